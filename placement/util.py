"""Helpers shared by the request handlers, and what they answer."""

import collections
import dataclasses
import datetime
import itertools
import types
import typing
import uuid

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

    The router renders it (:func:`placement.router.render`): the status
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
    #: True: a body of nothing dated (no inventories), Cache-Control
    #: without Last-Modified, as upstream answers it.
    undated: bool = False


#: Items of a lazily made array or object serialised at once.
CHUNK_ITEMS = 1000


class JsonArray:
    """A JSON array of a body, made from ``items`` while it is serialised.

    As a Python structure a large answer (100,000 allocation requests or
    providers) costs several times its JSON, and holding both at once
    set a worker's peak memory: in a JsonArray the items are made by an
    iterable (consumed once) and serialised :data:`CHUNK_ITEMS` at a
    time, so that only one chunk of them exists besides the bytes. It
    may be anywhere in a body (see :func:`dump_json_chunks`); so may a
    generator, which is one.
    """

    #: What the chunks' JSON opens and closes with.
    brackets = (b'[', b']')
    #: What a chunk's items are gathered in to be serialised.
    gathered = list

    def __init__(self, items):
        self._items = iter(items)

    def chunks(self):
        """The JSON of each chunk of items, with its brackets."""
        while chunk := self.gathered(
                itertools.islice(self._items, CHUNK_ITEMS)):
            with timing.serialising():
                dumped = _dumps(chunk, _no_lazy)
            yield dumped


class SerialisedArray(JsonArray):
    """A :class:`JsonArray` serialised when it is made: for items made
    from a streamed result (:func:`placement.db.api.streamed`), which is
    read inside its transaction, so that a large listing never holds
    its rows and its JSON at once. Each chunk is let go once it is
    spliced into the body."""

    def __init__(self, items):
        self._chunks = collections.deque(JsonArray(items).chunks())

    def chunks(self):
        while self._chunks:
            yield self._chunks.popleft()


class JsonObject(JsonArray):
    """A JSON object made, as :class:`JsonArray`, from an iterable of
    ``(key, value)`` pairs with distinct keys, in that order."""

    brackets = (b'{', b'}')
    gathered = dict


def _no_lazy(value):
    raise TypeError(f'not serialisable inside a lazy array: {value!r}')


#: What orjson raises for an integer outside -2**63 .. 2**64 - 1.
_BIG_INTEGER = 'Integer exceeds 64-bit range'


def _dumps(data, default):
    """``orjson.dumps(data, default=default)``, integers of any size
    included, as the stdlib's json writes them.

    An accepted inventory may have a capacity past 64 bits (total
    2**31 - 1 at the allocation ratio 3.4e38 the schema allows is about
    7.3e47) that allocation candidates' provider summaries and the
    explain report show: orjson refuses such an integer, so the rare
    body holding one is dumped again with each written as its digits.
    """
    try:
        return orjson.dumps(data, default=default)
    except TypeError as error:
        if str(error) != _BIG_INTEGER:
            raise
    return orjson.dumps(_big_integers_as_digits(data), default=default)


def _big_integers_as_digits(value):
    """``value`` with each integer orjson refuses, in its dicts, lists
    and tuples, made an ``orjson.Fragment`` of its digits."""
    if isinstance(value, dict):
        return {key: _big_integers_as_digits(item)
                for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_big_integers_as_digits(item) for item in value]
    if (isinstance(value, int) and not isinstance(value, bool)
            and not -2 ** 63 <= value < 2 ** 64):
        return orjson.Fragment(str(value).encode())
    return value


def dump_json_chunks(data):
    """``data`` as an iterator of JSON bytes whose concatenation is
    ``orjson.dumps`` of the same data made whole.

    :class:`JsonArray` and :class:`JsonObject` values, and generators
    (arrays), anywhere in ``data`` are made and serialised a chunk at a
    time, as the iterator is consumed (the operations that answer them
    pause the cycle collector,
    :attr:`placement.operations.Operation.large_answer`, and stream
    them, :func:`placement.router.render`): orjson writes the rest
    once, with a marker in their place, and their chunks are put in at
    the markers. Without any, the iterator gives the one bytes of the
    whole (orjson: no per-object Python work).
    """
    lazy = []
    marker = f'lazy-{uuid.uuid4().hex}-'

    def mark(value):
        if isinstance(value, types.GeneratorType):
            value = JsonArray(value)
        elif not isinstance(value, JsonArray):
            raise TypeError(f'not JSON serialisable: {value!r}')
        lazy.append(value)
        return f'{marker}{len(lazy) - 1}'

    # Dumped again after a big integer (:func:`_dumps`), the lazy values
    # are marked anew: the markers of the first try are not in ``whole``.
    with timing.serialising():
        whole = _dumps(data, mark)
    if not lazy:
        return iter([whole])
    return _spliced(whole, b'"' + marker.encode(), lazy)


def _spliced(whole, marker, lazy):
    """The bytes of ``whole`` with the chunks of each lazy value in
    place of its marker (``"<marker><index>"``), a chunk at a time."""
    first, *rest = whole.split(marker)
    pending = [first]
    for part in rest:
        index, after = part.split(b'"', 1)
        value = lazy[int(index)]
        opening, closing = value.brackets
        pending.append(opening)
        for number, chunk in enumerate(value.chunks()):
            # The chunk without its brackets, after what is pending.
            yield b''.join([*pending, b',' if number else b'',
                            memoryview(chunk)[1:-1]])
            pending = []
        pending += [closing, after]
    yield b''.join(pending)


def add_last_modified(req, response, last_modified=None, undated=False):
    """From 1.15: Last-Modified (``last_modified``, else now; none when
    ``undated``), no-cache."""
    if microversion.at_least(req, microversion.LAST_MODIFIED):
        if not undated:
            response.last_modified = (
                last_modified or timeutils.utcnow(with_timezone=True))
        response.cache_control = 'no-cache'
