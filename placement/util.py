"""Helpers shared by the request handlers, and what they answer."""

import dataclasses
import datetime
import typing

import orjson
from oslo_utils import timeutils

from placement import microversion
from placement import timing

JSON = 'application/json'


def path_arg(req, name):
    """A variable of the matched route, e.g. the provider ``uuid``."""
    return req.environ['wsgiorg.routing_args'][1][name]


@dataclasses.dataclass(frozen=True)
class Result:
    """What a handler answers: the body data and only what varies.

    The router renders it (:func:`placement.handler.render`): the status
    and media type come from the operation table.
    """
    #: The JSON body; None: no body.
    data: typing.Any = None
    #: Which status, where the operation declares two at the microversion
    #: (201 created or 204 already there).
    status: int | None = None
    #: The Location header (of a created resource).
    location: str | None = None
    #: From 1.15 the Last-Modified of a GET (None: now): the newest
    #: timestamp of what the body shows.
    last_modified: datetime.datetime | None = None
    #: A write that answers what it stored carries Last-Modified and
    #: Cache-Control too, as a GET does (as upstream).
    dated: bool = False


def dump_json(data):
    """``data`` as JSON bytes (orjson: no per-object Python work)."""
    with timing.serialising():
        return orjson.dumps(data)


def add_last_modified(req, response, last_modified=None):
    """From 1.15: Last-Modified (``last_modified``, else now), no-cache."""
    if microversion.at_least(req, microversion.LAST_MODIFIED):
        response.last_modified = (
            last_modified or timeutils.utcnow(with_timezone=True))
        response.cache_control = 'no-cache'
