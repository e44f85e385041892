"""The operators' page in a real headless browser (Debian's chromium).

The page is served over HTTP by the application of the report cloud; its
numbers must be those of the JSON reports, its headroom and explain
forms must answer, and its audit panel show the counts of the audit.
"""

import pytest
import webob
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support import ui

from tests.functional import report_cloud
from tools import audit_cloud
from tools import report_browser
from tools import report_data

pytestmark = [pytest.mark.browser, pytest.mark.db]

@pytest.fixture
def application(db_url):
    with report_data.serving(db_url) as application:
        yield application


@pytest.fixture
def page(application):
    with report_browser.loaded_page(application) as browser:
        yield browser


def cell_numbers(row):
    """``{data-field: int}`` of a table row's number cells."""
    return {cell.get_attribute('data-field'): int(cell.text.replace(',', ''))
            for cell in row.find_elements(By.CSS_SELECTOR, 'td[data-field]')
            if cell.text}


def expected_numbers(numbers):
    expected = {name: numbers[name] for name in
                ('capacity', 'raw_capacity', 'usage') if name in numbers}
    expected['free'] = numbers['capacity'] - numbers['usage']
    return expected


def test_capacity_and_zones_are_the_json(application, page):
    capacity = report_cloud.get_json(application, '/reports/capacity')
    # CUSTOM_LICENSE is a resource of compute and of storage.
    resources = [(service['type'], resource)
                 for service in capacity['cluster']['services']
                 for resource in service['resources']]
    shown = {(row.get_attribute('data-service'),
              row.get_attribute('data-resource')): cell_numbers(row)
             for row in page.find_elements(
                 By.CSS_SELECTOR, '#capacity-table tbody tr')}
    assert shown == {(service, resource['name']): expected_numbers(resource)
                     for service, resource in resources}
    assert ('storage', 'CUSTOM_LICENSE') in shown
    shown_zones = {
        (row.get_attribute('data-zone'), row.get_attribute('data-service'),
         row.get_attribute('data-resource')): cell_numbers(row)
        for row in page.find_elements(By.CSS_SELECTOR,
                                      '#zone-table tbody tr')}
    assert shown_zones == {
        (zone['name'], service, resource['name']): expected_numbers(zone)
        for service, resource in resources
        for zone in resource['per_availability_zone']}
    # One bar per resource and per zone row, each drawn as inline SVG.
    assert len(page.find_elements(By.CSS_SELECTOR, 'svg.bar')) == (
        len(shown) + len(shown_zones))


def test_fullest_and_emptiest_hosts(page):
    def hosts(table):
        return [(row.get_attribute('data-host'),
                 row.find_element(By.CSS_SELECTOR,
                                  '[data-field=share]').text)
                for row in page.find_elements(
                    By.CSS_SELECTOR, f'#{table} tbody tr')]
    # cn1: VCPU 22 of 64; cn3: SRIOV_NET_VF 1 of 8; shared-disk:
    # CUSTOM_LICENSE 1 of 10; cn2: nothing used.
    assert hosts('fullest') == [
        ('cn1', '34.4%'), ('cn3', '12.5%'), ('shared-disk', '10.0%'),
        ('cn2', '0.0%')]
    assert hosts('emptiest') == list(reversed(hosts('fullest')))


def test_project_usage_is_the_json(application, page):
    usage = report_cloud.get_json(application, '/reports/usage')
    shown = {row.get_attribute('data-project'): cell_numbers(row)
             for row in page.find_elements(By.CSS_SELECTOR,
                                           '#usage-table tbody tr')}
    expected = {}
    for project in usage['projects']:
        expected[project['id']] = {
            name: 0 for name in ('CUSTOM_LICENSE', 'DISK_GB', 'MEMORY_MB',
                                 'SRIOV_NET_VF', 'VCPU')}
        for service in project['services']:
            for resource in service['resources']:
                expected[project['id']][resource['name']] += resource['usage']
    assert shown == expected
    ui.Select(page.find_element(By.ID, 'usage-sort')).select_by_value('VCPU')
    # The rows are redrawn: read them in the page, not by reference.
    ui.WebDriverWait(page, report_browser.WAIT_SECONDS).until(
        lambda driver: driver.execute_script(
            "return document.querySelector('#usage-table tbody tr')"
            ".dataset.project") == 'p2')


def test_headroom_form_answers(application, page):
    field = page.find_element(By.ID, 'headroom-resources')
    field.clear()
    field.send_keys('VCPU:4,MEMORY_MB:2048')
    page.find_element(By.ID, 'headroom-member-of').send_keys(
        'in:a1a1a1a1-0000-4000-8000-000000000001,'
        'a2a2a2a2-0000-4000-8000-000000000002')
    page.find_element(By.CSS_SELECTOR, '#headroom-form button').click()
    result = page.find_element(By.ID, 'headroom-result')
    ui.WebDriverWait(page, report_browser.WAIT_SECONDS).until(
        expected_conditions.visibility_of(result))
    headroom = report_cloud.get_json(
        application, '/reports/headroom?resources=VCPU:4,MEMORY_MB:2048'
        '&member_of=in:a1a1a1a1-0000-4000-8000-000000000001,'
        'a2a2a2a2-0000-4000-8000-000000000002')['headroom']
    assert page.find_element(By.ID, 'headroom-count').text == str(
        headroom['count']) == '5'
    assert {row.get_attribute('data-zone'): cell_numbers(row)
            for row in page.find_elements(
                By.CSS_SELECTOR, '#headroom-zones tbody tr')} == {
        zone['name']: {'count': zone['count'],
                       'providers': zone['providers']}
        for zone in headroom['per_availability_zone']}
    assert 'Not counted: ' in result.text


def _explain_document(application, query):
    """The explain report of ``query`` at the latest microversion, as
    the page asks for it."""
    response = webob.Request.blank(f'/reports/explain?{query}', headers={
        'X-Auth-Token': 'admin', 'OpenStack-API-Version': 'placement latest',
    }).get_response(application)
    assert response.status_int == 200, response.text
    return response.json['explain']


def _explain_in_the_form(page, resources, groups='', required='',
                         member_of=''):
    """Fill the explain form and submit it."""
    field = page.find_element(By.ID, 'explain-resources')
    field.clear()
    field.send_keys(resources)
    for name, value in (('explain-groups', groups),
                        ('explain-required', required),
                        ('explain-member-of', member_of)):
        page.find_element(By.ID, name).send_keys(value)
    page.find_element(By.CSS_SELECTOR, '#explain-form button').click()


def test_explain_form_draws_the_funnels_and_the_misses(application, page):
    _explain_in_the_form(
        page, 'MEMORY_MB:5000',
        groups='resources1=VCPU:1,CUSTOM_LICENSE:1&group_policy=none')
    result = page.find_element(By.ID, 'explain-result')
    ui.WebDriverWait(page, report_browser.WAIT_SECONDS).until(
        expected_conditions.visibility_of(result))
    explain = _explain_document(
        application, 'resources1=VCPU:1,CUSTOM_LICENSE:1&group_policy=none'
        '&resources=MEMORY_MB:5000')
    assert page.find_element(By.ID, 'explain-count').text == str(
        explain['candidates']) == '0'
    rows = page.find_elements(By.CSS_SELECTOR, '#explain-funnel tbody tr')
    expected = [('trees', stage['stage'], stage['count'])
                for stage in explain['funnel']]
    for group in explain['groups']:
        resources = ','.join(f'{name}:{amount}'
                             for name, amount in group['resources'].items())
        expected += [
            (f"group {group['suffix'] or '(unsuffixed)'} {resources}",
             stage['stage'], stage['count']) for stage in group['funnel']]
    assert [(row.get_attribute('data-of'), row.get_attribute('data-stage'),
             cell_numbers(row)['count']) for row in rows] == expected
    # A bar per stage, as long as the share of its funnel's first stage.
    assert all(row.find_elements(By.CSS_SELECTOR, 'svg.bar rect.used')
               for row in rows)
    misses = [item.text for item in page.find_elements(
        By.CSS_SELECTOR, '#explain-misses li')]
    assert misses == [miss['sentence'] for miss in explain['misses']]
    assert ('cn2: MEMORY_MB 5000 asked, 6144 free of 6144 (step_size '
            '1024) (the unsuffixed group)') in misses
    assert "cn1: no inventory of CUSTOM_LICENSE (group '1')" in misses


def test_explain_form_shows_what_an_impossible_amount_left_uncounted(
        application, page):
    _explain_in_the_form(page, 'VCPU:1,PCI_DEVICE:1')
    decided = page.find_element(By.ID, 'explain-decided')
    ui.WebDriverWait(page, report_browser.WAIT_SECONDS).until(
        expected_conditions.visibility_of(decided))
    explain = _explain_document(application, 'resources=VCPU:1,PCI_DEVICE:1')
    assert [item.text for item in page.find_elements(
        By.CSS_SELECTOR, '#explain-impossible li')] == [
        amount['sentence'] for amount in explain['impossible']] == [
        'no provider has inventory of PCI_DEVICE (the unsuffixed group)']
    rows = page.find_elements(By.CSS_SELECTOR,
                              '#explain-funnel tbody tr.uncounted')
    assert [(row.get_attribute('data-of'), row.get_attribute('data-stage'),
             row.find_element(By.CSS_SELECTOR, 'td.num').text)
            for row in rows] == [
        ('group (unsuffixed) VCPU:1', stage, 'not counted')
        for stage in explain['groups'][0]['uncounted']]
    assert explain['groups'][0]['uncounted'] == ['inventory', 'capacity']


def test_explain_form_sends_required_and_member_of(application, page):
    _explain_in_the_form(
        page, 'VCPU:1', required='HW_CPU_X86_AVX2',
        member_of=f'in:{report_data.AZ1},{report_data.AZ2}')
    result = page.find_element(By.ID, 'explain-result')
    ui.WebDriverWait(page, report_browser.WAIT_SECONDS).until(
        expected_conditions.visibility_of(result))
    explain = _explain_document(
        application, f'resources=VCPU:1&required=HW_CPU_X86_AVX2'
        f'&member_of=in:{report_data.AZ1},{report_data.AZ2}')
    assert page.find_element(By.ID, 'explain-count').text == str(
        explain['candidates']) == '1'
    # The unsuffixed group's traits are met by its providers together:
    # a stage of the trees' funnel; its aggregates, of the group's.
    stages = [(row.get_attribute('data-of'), row.get_attribute('data-stage'),
               cell_numbers(row)['count'])
              for row in page.find_elements(By.CSS_SELECTOR,
                                            '#explain-funnel tbody tr')]
    assert stages == [
        (of, stage['stage'], stage['count'])
        for of, funnel in (('trees', explain['funnel']),
                           ('group (unsuffixed) VCPU:1',
                            explain['groups'][0]['funnel']))
        for stage in funnel]
    assert ('trees', 'required_together', 1) in stages
    assert ('group (unsuffixed) VCPU:1', 'member_of', 2) in stages
    assert [item.text for item in page.find_elements(
        By.CSS_SELECTOR, '#explain-misses li')] == [
        miss['sentence'] for miss in explain['misses']]


def test_explain_form_shows_a_refused_query(page):
    _explain_in_the_form(page, 'VCPU:1', groups='required1=HW_CPU_X86_AVX2')
    ui.WebDriverWait(page, report_browser.WAIT_SECONDS).until(
        lambda driver: 'same_subtree' in driver.find_element(
            By.ID, 'status').text)
    status = page.find_element(By.ID, 'status')
    assert status.text.startswith('400 ')
    assert status.text.endswith(
        'Resourceless suffixed group request should be specified in '
        '`same_subtree` query param: bad group(s) - 1.')
    assert status.get_attribute('class') == 'error'
    assert not page.find_element(By.ID, 'explain-result').is_displayed()


def test_the_page_breaks_none_of_its_security_policy(page):
    """Nothing inline (script, style, handler) that the CSP blocks, and
    no request refused (the favicon included)."""
    page.find_element(By.ID, 'usage-table')
    messages = [entry['message'] for entry in page.get_log('browser')]
    assert not [message for message in messages
                if 'Content Security Policy' in message
                or 'Failed to load resource' in message], messages


# The WCAG relative luminance and contrast ratio of two CSS colours,
# the background being the first opaque one of the element or above it.
_CONTRAST = """
const element = arguments[0];
function rgb(text) { return text.match(/[\\d.]+/g).map(Number); }
function luminance([r, g, b]) {
  const [R, G, B] = [r, g, b].map((c) => {
    c /= 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * R + 0.7152 * G + 0.0722 * B;
}
let node = element;
let background = null;
while (node && node.nodeType === 1) {
  const value = rgb(getComputedStyle(node).backgroundColor);
  if (value.length < 4 || value[3] === 1) { background = value; break; }
  node = node.parentElement;
}
background = background || [255, 255, 255];
const [light, dark] = [luminance(rgb(getComputedStyle(element).color)),
                       luminance(background)].sort((a, b) => b - a);
return (light + 0.05) / (dark + 0.05);
"""


def test_headroom_form_shows_errors_readably(page):
    field = page.find_element(By.ID, 'headroom-resources')
    field.clear()
    field.send_keys('CUSTOM_NOPE:1')
    page.find_element(By.CSS_SELECTOR, '#headroom-form button').click()
    ui.WebDriverWait(page, report_browser.WAIT_SECONDS).until(
        lambda driver: 'CUSTOM_NOPE' in driver.find_element(
            By.ID, 'status').text)
    status = page.find_element(By.ID, 'status')
    assert status.text.startswith('400 ')
    assert status.get_attribute('class') == 'error'
    # WCAG AA for normal text.
    assert page.execute_script(_CONTRAST, status) >= 4.5


def audit_counts(page):
    """``{finding: count}`` of the audit panel, and whether highlighted."""
    return {row.get_attribute('data-finding'): (
                cell_numbers(row)['count'],
                'found' in row.get_attribute('class'))
            for row in page.find_elements(By.CSS_SELECTOR,
                                          '#audit-table tbody tr')}


def test_audit_panel_of_a_clean_cloud(application, page):
    findings = report_cloud.get_json(application, '/reports/audit')[
        'audit']['findings']
    assert audit_counts(page) == {name: (0, False) for name in findings}
    assert page.find_element(By.ID, 'audit-summary').text == (
        'Nothing found: the data adds up.')


def test_audit_panel_shows_the_counts(application, db):
    audit_cloud.plant(application, db)
    with report_browser.loaded_page(application) as browser:
        assert audit_counts(browser) == {
            name: (found['count'], found['count'] > 0)
            for name, found in report_cloud.get_json(
                application, '/reports/audit')['audit']['findings'].items()}
        assert audit_counts(browser)['providers_with_broken_parent_chain'] \
            == (2, True)
        assert browser.find_element(By.ID, 'audit-summary').text == (
            '13 of 13 findings have something to show.')


def test_a_refused_audit_fails_its_panel_alone(db_url, tmp_path):
    """A policy that allows the capacity report and refuses the audit:
    the page loads, and the audit panel says why it shows nothing."""
    policy_file = tmp_path / 'policy.yaml'
    policy_file.write_text('"placement:reports:audit": "!"\n')
    refused = {'oslo_policy__policy_file': str(policy_file)}
    with report_data.serving(db_url, **refused) as application, \
            report_browser.loaded_page(application) as browser:
        assert browser.find_element(By.ID, 'status').text.startswith(
            'loaded ')
        assert browser.find_elements(By.CSS_SELECTOR,
                                     '#capacity-table tbody tr')
        summary = browser.find_element(By.ID, 'audit-summary')
        assert summary.text.startswith('Not shown: 403 ')
        assert 'placement:reports:audit' in summary.text
        assert summary.get_attribute('class') == 'error'
        assert audit_counts(browser) == {}
