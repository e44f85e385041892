"""The version document."""

from placement.contract import Operation
from placement.contract import Response
from placement.handlers import root
from placement.schemas import response

OPERATIONS = (
    Operation(
        'GET', '/', root.home, 'The version document.',
        authenticated=False,
        responses=(Response(200, response.VERSIONS),)),
)
