"""``sdcflow ui`` as a user starts it: the command prints the one-time link, the link
opens the project page, Ctrl-C stops the server; a bad port is a plain error."""

from __future__ import annotations

import http.cookiejar
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

from sdcflow.ui.server.serve import free_port


def test_the_command_serves_the_project_behind_its_link(ui_project):
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "sdcflow", "ui", "--no-browser",
                                "--port", str(port), str(ui_project / "quickstart.yaml")],
                               stderr=subprocess.PIPE, text=True)
    try:
        printed = ""
        deadline = time.monotonic() + 60
        while "token=" not in printed and time.monotonic() < deadline:
            printed += process.stderr.readline()
        link = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=[\w-]+", printed)
        assert link is not None and int(link.group(1)) == port, printed
        opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        page = ""
        for _ in range(100):  # the server may still be starting
            try:
                page = opener.open(link.group(0), timeout=10).read().decode()
                break
            except urllib.error.URLError as exc:
                if isinstance(exc, urllib.error.HTTPError):
                    raise
                time.sleep(0.1)
        assert 'id="recipes"' in page and "quickstart.yaml" in page
        # the recipe given is open: its page answers with the recipe's text
        assert "name: quickstart" in opener.open(f"http://127.0.0.1:{port}/recipe",
                                                 timeout=10).read().decode()
        # the link is spent: a second browser (no cookie) gets 403
        try:
            urllib.request.urlopen(link.group(0), timeout=10)
            raise AssertionError("a spent link was served")
        except urllib.error.HTTPError as exc:
            assert exc.code == 403
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(30)
    assert process.returncode in (0, 130)


def test_a_port_out_of_range_is_a_plain_error(ui_project):
    done = subprocess.run([sys.executable, "-m", "sdcflow", "ui", "--no-browser", "--port",
                           "70000", str(ui_project)], check=False, capture_output=True,
                          text=True,
                          timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip() == ("sdcflow: --port 70000: not a port (0 to 65535; 0 picks a "
                                   "free one)")
