"""What the service takes of a client's text and how much it repeats."""

import jsonschema
import pytest

from placement import client_text


@pytest.mark.parametrize('text, problem', [
    ('plain', None),
    ('projé 雪 😀', None),
    ('a\x00b', 'it contains a NUL character (U+0000)'),
    ('a\ud800b', 'it contains U+D800, a lone surrogate, which is not a '
                 'Unicode character'),
    ('\udfff', 'it contains U+DFFF, a lone surrogate, which is not a '
               'Unicode character'),
])
def test_unstorable(text, problem):
    assert client_text.unstorable(text) == problem


def test_clip_keeps_both_ends():
    text = 'BEGIN' + 'x' * 10_000 + 'END'
    clipped = client_text.clip(text)
    assert len(clipped) == client_text.MAX_QUOTED
    assert clipped.startswith('BEGINxxx') and clipped.endswith('xxxEND')
    assert client_text.clip('short') == 'short'


def test_clip_lines_clips_each_line():
    text = 'x' * 1000 + '\nshort\n' + 'y' * 1000
    lines = client_text.clip_lines(text).split('\n')
    assert [len(line) for line in lines] == [
        client_text.MAX_QUOTED, 5, client_text.MAX_QUOTED]


def _error(schema, instance):
    return jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema).iter_errors(instance))


@pytest.mark.parametrize('schema, instance, phrases', [
    ({'type': 'object', 'properties': {'name': {'maxLength': 200}}},
     {'name': 'x' * 1_000_000},
     ["is too long", "Failed validating 'maxLength'",
      "On instance['name']"]),
    ({'type': 'object', 'properties': {
        'name': {'pattern': '^CUSTOM_[A-Z0-9_]+$'}}},
     {'name': 'bad' * 100_000},
     ["does not match '^CUSTOM_[A-Z0-9_]+$'", "Failed validating 'pattern'"]),
    ({'type': 'object', 'additionalProperties': False},
     {'k' * 100_000: 1},
     ['Additional properties are not allowed', 'was unexpected',
      "Failed validating 'additionalProperties'"]),
    ({'type': 'object', 'properties': {'uuids': {'maxItems': 3}}},
     {'uuids': ['u' * 36] * 100_000},
     ['is too long', "Failed validating 'maxItems'"]),
    ({'type': 'object', 'patternProperties': {
        '^[a-z]+$': {'type': 'integer'}}},
     {'z' * 100_000: 'x' * 100_000},
     ["is not of type 'integer'", "Failed validating 'type'"]),
])
def test_validation_detail_is_short_and_keeps_the_phrases(
        schema, instance, phrases):
    detail = client_text.validation_detail(_error(schema, instance))
    assert len(detail) < 2000, detail
    for phrase in phrases:
        assert phrase in detail


def test_validation_detail_of_short_input_is_jsonschemas():
    error = _error({'properties': {'name': {'maxLength': 2}}},
                   {'name': 'abc'})
    assert client_text.validation_detail(error) == str(error)
