"""The persona gabbits are generated from the policy table and current."""

import os

import pytest

from placement import policies
from tools import policy_personas


@pytest.mark.parametrize('file_name', list(policy_personas.FILES))
def test_committed_gabbit_is_what_the_generator_writes(file_name):
    path = os.path.join(policy_personas.GABBITS, file_name)
    with open(path) as gabbit:
        committed = gabbit.read()
    assert committed == policy_personas.render(file_name), (
        f'{file_name} is stale: run python -m tools.policy_personas')


def test_the_table_has_every_per_api_rule_and_a_request_for_each():
    api_rules = [rule.name for rule in policies.list_rules()
                 if rule.name.startswith('placement:')]
    assert list(policy_personas.parse_table()) == api_rules
    assert list(policy_personas.REQUESTS) == api_rules


def test_legacy_values_differ_only_where_the_table_says_so():
    table = policy_personas.parse_table()
    differing = [(rule, persona) for rule, row in table.items()
                 for persona, (new, legacy) in row.items() if new != legacy]
    assert differing == [('placement:reshaper:reshape', 'project admin')]


@pytest.mark.parametrize('value', ['maybe', 'yes (legacy: maybe)', ''])
def test_a_cell_that_is_not_yes_or_no_is_an_error(value):
    row = f'| `rule` | {value} |' + ' no |' * 6
    with pytest.raises(ValueError):
        policy_personas.parse_table(row)


def test_a_row_without_a_value_per_persona_is_an_error():
    with pytest.raises(ValueError):
        policy_personas.parse_table('| `rule` | yes | yes |')
