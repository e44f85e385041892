"""The operators' page (``/reports/``) in headless chromium, loaded.

For the browser tests of the page and ``tools/screenshot_reports.py``:
the application served over HTTP on a free local port, and Debian's
chromium (``tools/install_ci_packages.sh``) on the page, logged in.
"""

import contextlib
import socketserver
import threading
from wsgiref import simple_server

from selenium import webdriver
from selenium.webdriver.chrome import service as chrome_service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import ui

CHROMEDRIVER = '/usr/bin/chromedriver'
WAIT_SECONDS = 30


class _QuietHandler(simple_server.WSGIRequestHandler):
    def log_message(self, *args):
        pass


class _ThreadingServer(socketserver.ThreadingMixIn,
                       simple_server.WSGIServer):
    daemon_threads = True


@contextlib.contextmanager
def http_server(application):
    """Serve ``application`` on a free local port; yields its base URL."""
    server = simple_server.make_server(
        '127.0.0.1', 0, application, server_class=_ThreadingServer,
        handler_class=_QuietHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f'http://127.0.0.1:{server.server_port}'
    finally:
        server.shutdown()
        server.server_close()


def headless_chromium():
    options = webdriver.ChromeOptions()
    for argument in ('--headless=new', '--no-sandbox',
                     '--disable-dev-shm-usage', '--window-size=1280,1000'):
        options.add_argument(argument)
    # The console, where the browser reports what the page's
    # Content-Security-Policy blocked.
    options.set_capability('goog:loggingPrefs', {'browser': 'ALL'})
    return webdriver.Chrome(
        options=options,
        service=chrome_service.Service(executable_path=CHROMEDRIVER))


@contextlib.contextmanager
def loaded_page(application):
    """The browser on the loaded page (token ``admin``)."""
    with http_server(application) as base_url:
        browser = headless_chromium()
        try:
            browser.get(f'{base_url}/reports/')
            browser.find_element(By.ID, 'token').send_keys('admin')
            browser.find_element(By.CSS_SELECTOR,
                                 '#token-form button').click()
            ui.WebDriverWait(browser, WAIT_SECONDS).until(
                lambda driver: driver.find_element(
                    By.TAG_NAME, 'body').get_attribute('data-loaded'))
            yield browser
        finally:
            browser.quit()
