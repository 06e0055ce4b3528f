"""deploy/run_local.sh: two Streamlit processes behind nginx with sticky sessions, Redis.

Starts the script on free loopback ports in a temporary state folder, checks that the
proxy spreads browsers (by cookie) over both processes and keeps each on one, that
sessions step through the proxy over websockets without errors (bench/load_app.py, from
the start while the other checks run, so they are made under that load), that
Redis runs with persistence, that an instructor link opened in Chromium through the proxy
takes control and leaves no history entry holding its token (Streamlit pushes one when a
page clears its query parameters, so the page alone cannot: docs/class_mode.md; nginx
answers the link with a 303 and the instructor cookie; screenshot
test-artifacts/deploy-instructor-link.png), and that stopping the script stops everything
it started. Without nginx, redis-server or Chromium this skips, unless
BPE_REQUIRE_BROWSER=1 (CI). One file, so the deployment starts once.
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from classroom import open_store
from tests.redis_server import free_port, require_redis_server

ROOT = Path(__file__).resolve().parents[2]
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def _render_module():
    spec = importlib.util.spec_from_file_location("render_nginx", ROOT / "deploy" / "render_nginx.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _post_status(url: str, size: int) -> int:
    """The HTTP status of a POST with a body of `size` bytes (a refused upload included)."""
    request = urllib.request.Request(url, data=b"x" * size, method="POST",
                                     headers={"Content-Type": "application/octet-stream"})
    try:
        with urllib.request.urlopen(request, timeout=60) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def _get(url: str, cookie: str | None = None):
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    with urllib.request.urlopen(request, timeout=10) as r:
        return r.read(), r.headers


#: sessions stepping through the proxy (bench/load_app.py), from the deployment's start while
#: the other tests run; test_sessions_step_through_the_proxy_without_errors reads the result
PROXY_LOAD = ["--sessions", "6", "--think", "1", "--duration", "12", "--min-clicks", "2", "--cookie", "bpe_backend",
              "--json"]


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    require_redis_server()
    if not Path(NGINX).exists():
        reason = "nginx not found (apt-get install nginx)"
        if os.environ.get("BPE_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{reason}; BPE_REQUIRE_BROWSER=1: the deploy test must run here")
        pytest.skip(reason)
    state = tmp_path_factory.mktemp("deploy")
    port, apps, redis_port = free_port(), [free_port(), free_port()], free_port()
    proc = subprocess.Popen(
        ["bash", "deploy/run_local.sh", "--port", str(port), "--app-ports", ",".join(map(str, apps)),
         "--redis-port", str(redis_port), "--state", str(state), "--debug-backend"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    load = None
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if _get(base + "/_stcore/health")[0] == b"ok":
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"deploy/run_local.sh did not come up: {proc.stdout.read() if proc.poll() is not None else 'timeout'}")
            time.sleep(0.3)
        load = subprocess.Popen(
            [sys.executable, "bench/load_app.py", "--url", f"{base}/train-bpe?preset=english", *PROXY_LOAD],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        yield {"base": base, "apps": apps, "redis": f"redis://127.0.0.1:{redis_port}/0", "proc": proc,
               "load": load}
    finally:
        if load is not None and load.poll() is None:
            load.kill()
            load.wait(timeout=10)
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def test_browsers_are_spread_over_both_processes_and_each_stays_on_one(deployment):
    seen = {}
    for i in range(12):
        cookie = f"bpe_backend=browser-{i}"
        backends = {_get(deployment["base"] + "/_stcore/health", cookie)[1]["X-BPE-Backend"] for _ in range(3)}
        assert len(backends) == 1  # sticky
        seen[i] = backends.pop()
    assert set(seen.values()) == {f"127.0.0.1:{p}" for p in deployment["apps"]}


def test_a_new_browser_gets_a_cookie_that_keeps_it_where_it_landed(deployment):
    _, headers = _get(deployment["base"] + "/")
    cookie = headers["Set-Cookie"].split(";")[0]
    assert cookie.startswith("bpe_backend=") and len(cookie) > len("bpe_backend=") + 8
    first = headers["X-BPE-Backend"]
    for _ in range(4):
        assert _get(deployment["base"] + "/_stcore/health", cookie)[1]["X-BPE-Backend"] == first


def test_the_processes_share_classes_through_persistent_redis(deployment):
    a, b = open_store(deployment["redis"]), open_store(deployment["redis"])
    keys = a.create_class({"preset": "sennrich"}, session="t")
    a.set_step(keys.code, 2, instructor_token=keys.instructor_token)
    assert b.join(keys.code, session="s").step == 2
    assert a._client.config_get("appendonly") == {"appendonly": "yes"}
    a.end_class(keys.code, instructor_token=keys.instructor_token)
    a.close()
    b.close()


# ---- issue 26: nginx agrees with the page's upload limit; no backend header unless asked --------

def test_the_nginx_body_limit_comes_from_the_apps_upload_setting():
    """nginx said 3m while the Tokenize page takes 40 MB tokenizer files: a 9 MB Llama-3
    tokenizer.json got HTTP 413 behind the documented deployment."""
    from ui.tokenize.upload import LIMIT_MB
    from ui.train.config import UPLOAD_LIMIT_MB

    render = _render_module()
    upload_mb = render.upload_limit_mb()
    assert upload_mb == LIMIT_MB >= UPLOAD_LIMIT_MB  # one setting: the pages' largest limit
    conf = render.render(state="/s", listen="127.0.0.1:1", upstreams="        server 127.0.0.1:2;")
    sizes = re.findall(r"^\s*client_max_body_size (\d+)m;", conf, flags=re.M)
    assert sizes == [str(upload_mb + render.FORM_OVERHEAD_MB)]
    assert "@" not in conf.replace("$", "")  # every placeholder filled
    assert render.render(state="/s", listen="l", upstreams="", upload_mb=7).count("client_max_body_size 8m;") == 1


def test_the_backend_header_is_sent_only_when_asked_for(tmp_path):
    render = _render_module()
    lines = "        server 127.0.0.1:2;"
    quiet = render.render(state=str(tmp_path), listen="127.0.0.1:1", upstreams=lines)
    loud = render.render(state=str(tmp_path), listen="127.0.0.1:1", upstreams=lines, debug_backend=True)
    assert not re.search(r"^\s*add_header X-BPE-Backend", quiet, flags=re.M)
    assert re.search(r"^\s*add_header X-BPE-Backend \$upstream_addr always;", loud, flags=re.M)
    if Path(NGINX).exists():  # both are valid nginx configurations
        for name, text in (("quiet.conf", quiet), ("loud.conf", loud)):
            (tmp_path / name).write_text(text)
            out = subprocess.run([NGINX, "-t", "-q", "-c", str(tmp_path / name), "-p", str(tmp_path)],
                                 capture_output=True, text=True, timeout=30)
            assert out.returncode == 0, out.stderr


def test_the_proxy_passes_a_9_mb_upload_and_refuses_one_over_the_limit(deployment):
    """A body the page accepts reaches the app (whatever the app then answers, it is not
    nginx's 413); one over the app's limit plus the form's overhead is refused by nginx."""
    render = _render_module()
    url = deployment["base"] + "/_stcore/upload_file/session/file"
    assert _post_status(url, 9_000_000) != 413
    assert _post_status(url, (render.upload_limit_mb() + render.FORM_OVERHEAD_MB + 1) * 1024 * 1024) == 413


def test_the_app_processes_count_clients_by_the_proxys_address(deployment):
    """run_local.sh tells the app processes they are behind one proxy (BPE_BEHIND_PROXY=1),
    so class limits count the address nginx appends to X-Forwarded-For."""
    found = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
            environ = dict(e.split(b"=", 1) for e in (proc / "environ").read_bytes().split(b"\0") if b"=" in e)
        except OSError:
            continue
        for port in deployment["apps"]:
            if f"--server.port={port}".encode() in cmdline:
                found[port] = environ.get(b"BPE_BEHIND_PROXY")
    assert found == {port: b"1" for port in deployment["apps"]}


# ---- issue 27: an instructor link never becomes a history entry ------------------------------

def _head(url: str) -> tuple[int, dict[str, list[str]]]:
    """Status and headers of a GET, redirects not followed."""
    import http.client
    from urllib.parse import urlsplit
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        conn.request("GET", parts.path + ("?" + parts.query if parts.query else ""))
        response = conn.getresponse()
        response.read()
        headers: dict[str, list[str]] = {}
        for name, value in response.getheaders():
            headers.setdefault(name.lower(), []).append(value)
        return response.status, headers
    finally:
        conn.close()


def test_the_proxy_answers_an_instructor_link_with_a_redirect_and_the_cookie(deployment):
    """The browser records an address it is redirected from nowhere in its history; the
    page already takes control from the bpe_class_teach cookie (ui/classmode/session.py)."""
    render = _render_module()
    status, headers = _head(deployment["base"] + "/join?code=7K3Q-X9M2&teach=abcDEF_12-xyz")
    assert status == 303
    assert headers["location"] == ["/join?resume=1"]
    cookie = next(c for c in headers["set-cookie"] if c.startswith("bpe_class_teach="))
    assert cookie == (f"bpe_class_teach=7K3Q-X9M2.abcDEF_12-xyz; Path=/; Max-Age={render.class_seconds()}; "
                      "SameSite=Strict")
    assert headers["cache-control"] == ["no-store"] and headers["referrer-policy"] == ["no-referrer"]
    # Anything that is not a code and a token goes to the app as before (which refuses it):
    for query in ("code=7K3Q&teach=a;Path=/x", "code=a%3Bb&teach=abcdefgh12", "teach=abcdefgh12", "code=7K3Q"):
        status, headers = _head(deployment["base"] + "/join?" + query)
        assert status == 200, query
        assert not any(c.startswith("bpe_class_teach=") for c in headers.get("set-cookie", [])), query
    assert _head(deployment["base"] + "/joint?code=7K3Q&teach=abcdefgh12")[0] == 200  # only /join


def _history(page) -> list[str]:
    """Every address in the tab's session history (Chromium's own list, as Back walks it)."""
    cdp = page.context.new_cdp_session(page)
    try:
        return [e["url"] for e in cdp.send("Page.getNavigationHistory")["entries"]]
    finally:
        cdp.detach()


def test_the_instructor_link_through_the_proxy_leaves_no_token_in_the_history(browser, deployment, artifacts):
    from playwright.sync_api import expect

    from tests.browser.test_class_browser import PROJECTOR, click, expect_step, idle, settled, start_class

    base = deployment["base"]
    teacher_ctx = browser.new_context(viewport=PROJECTOR)
    laptop_ctx = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        teacher = teacher_ctx.new_page()
        teacher.set_default_timeout(20_000)
        start_class(teacher, f"{base}/train-bpe?preset=sennrich")
        panel = teacher.locator(".st-key-class_instructor_panel")
        idle(teacher)
        panel.get_by_text("Instructor link: keep it private").click()
        teach_link = panel.locator("code", has_text="teach=").first.inner_text().strip()
        assert teach_link.startswith(base + "/join?") and "teach=" in teach_link
        code = teach_link.split("code=")[1].split("&")[0]
        token = teach_link.split("teach=")[1].split("&")[0]

        laptop = laptop_ctx.new_page()
        laptop.set_default_timeout(20_000)
        laptop.goto(f"{base}/")  # the device had a page open before the link
        expect(laptop.get_by_test_id("stApp")).to_be_visible(timeout=60_000)
        laptop.goto(teach_link)
        expect(laptop.locator(".st-key-class_instructor_panel").get_by_test_id("class-code")).to_be_visible(timeout=60_000)
        settled(laptop)
        idle(laptop)
        expect(laptop.get_by_test_id("stException")).to_have_count(0)
        laptop.screenshot(path=str(artifacts / "deploy-instructor-link.png"))
        cookies = {c["name"]: c for c in laptop_ctx.cookies()}
        assert cookies["bpe_class_teach"]["value"] == f"{code}.{token}"
        assert cookies["bpe_class_teach"]["sameSite"] == "Strict"
        click(laptop, "train_w_btn_step")  # the second device steps the class
        expect_step(laptop, 1)
        idle(laptop)
        history = _history(laptop)
        assert not [u for u in history if token in u or "teach=" in u], history
        assert [u for u in history if u != "about:blank"][0].rstrip("/") == base, history  # all of it
        assert f"{base}/join?resume=1" in history, history
    finally:
        laptop_ctx.close()
        teacher_ctx.close()


def test_sessions_step_through_the_proxy_without_errors(deployment):
    """The load started with the deployment (`PROXY_LOAD`), run while the tests above ran."""
    stdout, stderr = deployment["load"].communicate(timeout=240)
    try:
        result = json.loads(stdout)
    except json.JSONDecodeError:
        pytest.fail(f"bench/load_app.py printed no JSON:\n{stdout[-2000:]}\n{stderr[-2000:]}")
    assert result["errors"] == 0, result["first_errors"]
    assert result["exceptions"] == 0, result["first_exceptions"]
    assert result["reruns"] >= 6 * 2


def test_stopping_the_script_stops_everything_it_started(deployment):
    proc = deployment["proc"]
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    time.sleep(0.5)
    for port in deployment["apps"]:
        with pytest.raises(OSError):
            _get(f"http://127.0.0.1:{port}/_stcore/health")
    with pytest.raises(OSError):
        _get(deployment["base"] + "/_stcore/health")
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)  # nothing left in the script's process group
