"""etc/grafana/placement-dashboard.json asks only for what the service
exports: every metric its queries name is in a scrape of GET /metrics,
with the labels they select, group and print by."""

import json
import pathlib
import re

import pytest
import webob

from placement.db import api as db_api
from tests.functional import app
from tests.functional import scrape
from tools import report_data

pytestmark = pytest.mark.db

_DASHBOARD = (pathlib.Path(__file__).parents[2] / 'etc' / 'grafana'
              / 'placement-dashboard.json')
#: Labels Prometheus adds to every series it scrapes.
_TARGET_LABELS = {'job', 'instance'}
_METRIC = re.compile(r'\b((?:openstack_)?placement_[a-z0-9_]+)\b')
_SELECTOR = re.compile(r'\b((?:openstack_)?placement_[a-z0-9_]+)\{([^}]*)\}')
_MATCHER = re.compile(r'(\w+)\s*(?:=~|!~|!=|=)')
_GROUPING = re.compile(r'\b(?:by|without)\s*\(([^)]*)\)')
_LABEL_VALUES = re.compile(r'label_values\(\s*(\w+)\s*,\s*(\w+)\s*\)')
_LEGEND = re.compile(r'{{\s*(\w+)\s*}}')


def _queries(dashboard):
    """``(expression, legend)`` of every panel target and variable."""
    for panel in dashboard['panels']:
        for target in panel.get('targets', []):
            yield target['expr'], target.get('legendFormat', '')
    for variable in dashboard['templating']['list']:
        query = variable.get('query')
        if isinstance(query, dict):
            yield query['query'], ''


def _exported(application, db):
    """``{metric name: label names}`` of a scrape after requests of
    every kind the metrics count (a success, a miss, a conflict,
    candidates, a transaction run again)."""
    def get(path, token='admin'):
        return webob.Request.blank(
            path, headers={'X-Auth-Token': token,
                           'OpenStack-API-Version': 'placement latest'}
        ).get_response(application)
    assert get('/allocation_candidates?resources=VCPU:1&limit=1').status_int \
        == 200
    assert get('/resource_providers/missing').status_int == 404
    attempts = []

    def moved_once(conn):
        attempts.append(1)
        if len(attempts) == 1:
            raise db_api.RetryTransaction('moved')
    db.write(moved_once, conflict_retries=1)
    exported = {}
    for name, labels in scrape.samples(get('/metrics').text):
        exported.setdefault(name, set()).update(
            label for label, _value in labels)
    return exported


def test_every_metric_and_label_is_exported(db_url):
    dashboard = json.loads(_DASHBOARD.read_text())
    application, db = app.build_stack(
        db_url, reports__availability_zones=report_data.ZONES)
    try:
        report_data.load(application)
        exported = _exported(application, db)
    finally:
        db.dispose()
    queries = list(_queries(dashboard))
    assert queries
    for expression, legend in queries:
        metrics = set(_METRIC.findall(expression))
        assert metrics, expression
        missing = metrics - set(exported)
        assert not missing, (expression, missing)
        known = set().union(*(exported[name] for name in metrics))
        known |= _TARGET_LABELS
        for metric, selector in _SELECTOR.findall(expression):
            for label in _MATCHER.findall(selector):
                assert label in exported[metric] | _TARGET_LABELS, (
                    expression, metric, label)
        used = {label.strip() for grouping in _GROUPING.findall(expression)
                for label in grouping.split(',') if label.strip()}
        used |= {label for _metric, label in _LABEL_VALUES.findall(
            expression)}
        used |= set(_LEGEND.findall(legend))
        assert used <= known, (expression, used - known)
