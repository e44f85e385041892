"""What the service takes of a client's text, and how much it repeats.

Text from a client (JSON strings, path segments, query values) is
stored and compared by every database backend only if it is made of
Unicode characters other than NUL: :func:`unstorable` says why a
string is not (a lone surrogate, which a ``\\ud800`` JSON escape makes
and no encoding stores; a NUL, which PostgreSQL refuses). Errors quote
what the client sent, but never more than a few hundred characters of
it: :func:`clip` shortens a quotation in the middle, keeping its
beginning and its end (where the phrases clients match are), and
:func:`validation_detail` words a jsonschema error with the instance,
its path and the message clipped. A log line shows a client's text
through :func:`loggable`: its newlines would start forged lines, its
escape sequences drive the terminal showing the log.
"""

import re
import reprlib

import jsonschema

#: The longest quotation of client input in an error, in characters.
MAX_QUOTED = 300
_ELLIPSIS = ' ... '
_UNSTORABLE = re.compile('[\x00\ud800-\udfff]')
#: C0, DEL and C1 (U+009B is a CSI too).
_CONTROLS = re.compile('[\x00-\x1f\x7f-\x9f]')
_CONTROLS_OR_PAST_ASCII = re.compile('[\x00-\x1f\x7f-\xff]')


def loggable(text):
    """``text`` with its control characters percent-encoded (``%0A``),
    for a log line."""
    return _percent_encoded(_CONTROLS, text)


def loggable_url(environ):
    """The request's path and query for a log line. WSGI gives their
    bytes decoded as latin-1: those past ASCII are percent-encoded as a
    client sends them (UTF-8 showed as two letters each), and so are the
    controls."""
    path = environ.get('SCRIPT_NAME', '') + environ.get('PATH_INFO', '')
    query = environ.get('QUERY_STRING')
    url = f'{path}?{query}' if query else path
    return _percent_encoded(_CONTROLS_OR_PAST_ASCII, url)


def _percent_encoded(characters, text):
    """``text`` with the ``characters`` (a pattern of one character of
    at most U+00FF) percent-encoded."""
    return characters.sub(lambda match: f'%{ord(match[0]):02X}', text)


def clip(text, limit=MAX_QUOTED):
    """``text``, or its beginning and end when longer than ``limit``."""
    if len(text) <= limit:
        return text
    head = (limit - len(_ELLIPSIS)) // 2
    tail = limit - len(_ELLIPSIS) - head
    return f'{text[:head]}{_ELLIPSIS}{text[-tail:]}'


def clip_lines(text, limit=MAX_QUOTED):
    """``text`` with each line clipped to ``limit`` characters."""
    return '\n'.join(clip(line, limit) for line in text.split('\n'))


def unstorable(text):
    """Why ``text`` cannot be stored (a sentence), or None when it can."""
    found = _UNSTORABLE.search(text)
    if found is None:
        return None
    if found.group() == '\x00':
        return 'it contains a NUL character (U+0000)'
    return (f'it contains U+{ord(found.group()):04X}, a lone surrogate, '
            f'which is not a Unicode character')


def _short_repr():
    """A ``repr`` whose output is bounded however large the value."""
    short = reprlib.Repr()
    short.maxstring = MAX_QUOTED // 2
    short.maxother = MAX_QUOTED // 2
    short.maxlist = short.maxdict = short.maxtuple = 10
    short.maxlevel = 4
    return short.repr


_SHORT_REPR = _short_repr()


class _Quoted:
    """What jsonschema prints of an instance: its clipped repr."""

    def __init__(self, value):
        self._text = _SHORT_REPR(value)

    def __repr__(self):
        return self._text


def validation_detail(error):
    """jsonschema's text for ``error``, the client's input in it clipped.

    The message keeps its words ("... is too long", "... does not match
    ...", "Failed validating 'pattern' ...") around a short repr of the
    instance; a path segment (a key the client chose) is clipped too.
    """
    message = error.message
    instance_repr = repr(error.instance)
    if len(instance_repr) > MAX_QUOTED // 2:
        message = message.replace(instance_repr, _SHORT_REPR(error.instance))
    clipped = jsonschema.exceptions.ValidationError(
        clip(message, 2 * MAX_QUOTED),
        validator=error.validator,
        path=[clip(part, MAX_QUOTED // 3) if isinstance(part, str) else part
              for part in error.relative_path],
        instance=_Quoted(error.instance),
        schema=error.schema,
        schema_path=error.relative_schema_path,
        validator_value=error.validator_value,
    )
    return str(clipped)
