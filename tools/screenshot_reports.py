"""Take doc/images/reports.png: the reports page in headless chromium.

    python -m tools.screenshot_reports [--output doc/images/reports.png]

Loads the cloud of :mod:`tools.report_data` into a throw-away database
(SQLite, or on the server of ``PLACEMENT_TEST_DB_URL`` as the tests'),
breaks it once for each finding of the audit (:mod:`tools.audit_cloud`:
the panel then has counts to show), serves it as the browser test of
the page does (:mod:`tools.report_browser`), fills the headroom form
and the explain form (a query that fits nowhere, so that its funnels
narrow to nothing and the misses say why), and saves the whole page.
It needs Debian's chromium and chromium-driver
(``tools/install_ci_packages.sh``).
"""

import argparse
import os

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support import ui

from placement import throwaway
from placement.db import api as db_api
from placement.db import migration
from tools import audit_cloud
from tools import report_browser
from tools import report_data

WIDTH = 1200
HEADROOM = ('VCPU:4,MEMORY_MB:2048',
            'in:a1a1a1a1-0000-4000-8000-000000000001,'
            'a2a2a2a2-0000-4000-8000-000000000002')
EXPLAIN = ('VCPU:40', 'resources1=VCPU:1,CUSTOM_LICENSE:1&group_policy=none')


def _submit(browser, form, fields, result):
    """Fill ``fields`` (``{element id: text}``) of ``form``, send it and
    wait for element ``result`` to show."""
    for element_id, text in fields.items():
        field = browser.find_element(By.ID, element_id)
        field.clear()
        field.send_keys(text)
    browser.find_element(By.CSS_SELECTOR, f'#{form} button').click()
    ui.WebDriverWait(browser, report_browser.WAIT_SECONDS).until(
        expected_conditions.visibility_of(
            browser.find_element(By.ID, result)))


def _fit_window(browser):
    """Make the window as tall as the page (its frame taken into
    account: the viewport is what is saved)."""
    browser.set_window_size(WIDTH, 1000)
    page, viewport = browser.execute_script(
        'return [document.documentElement.scrollHeight, window.innerHeight]')
    browser.set_window_size(WIDTH, 1000 + page - viewport)


def screenshot(db_url, output):
    db = db_api.Database(throwaway.make_conf(db_url).placement_database)
    try:
        migration.upgrade(db.engine)
        with report_data.serving(db_url) as application:
            audit_cloud.plant(application, db)
            with report_browser.loaded_page(application) as browser:
                _submit(browser, 'headroom-form', {
                    'headroom-resources': HEADROOM[0],
                    'headroom-member-of': HEADROOM[1]}, 'headroom-result')
                _submit(browser, 'explain-form', {
                    'explain-resources': EXPLAIN[0],
                    'explain-groups': EXPLAIN[1]}, 'explain-result')
                _fit_window(browser)
                browser.execute_script('window.scrollTo(0, 0)')
                browser.save_screenshot(output)
    finally:
        db.dispose()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--output', default='doc/images/reports.png')
    args = parser.parse_args()
    db_url = throwaway.new_database_url(
        os.environ.get('PLACEMENT_TEST_DB_URL', ''))
    screenshot(db_url, os.path.abspath(args.output))


if __name__ == '__main__':
    main()
