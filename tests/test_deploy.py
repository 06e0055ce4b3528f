"""deploy/run_local.sh: two Streamlit processes behind nginx with sticky sessions, Redis.

Starts the script on free loopback ports in a temporary state folder, checks that the
proxy spreads browsers (by cookie) over both processes and keeps each on one, that
sessions step through the proxy over websockets without errors (bench/load_app.py), that
Redis runs with persistence, and that stopping the script stops everything it started.
Without nginx or redis-server this skips, unless BPE_REQUIRE_BROWSER=1 (CI).
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from classroom import open_store
from redis_server import free_port, require_redis_server

ROOT = Path(__file__).resolve().parent.parent
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def _get(url: str, cookie: str | None = None):
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    with urllib.request.urlopen(request, timeout=10) as r:
        return r.read(), r.headers


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
         "--redis-port", str(redis_port), "--state", str(state)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)
    base = f"http://127.0.0.1:{port}"
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
        yield {"base": base, "apps": apps, "redis": f"redis://127.0.0.1:{redis_port}/0", "proc": proc}
    finally:
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


def test_sessions_step_through_the_proxy_without_errors(deployment):
    out = subprocess.run(
        [sys.executable, "bench/load_app.py", "--url", f"{deployment['base']}/train-bpe?preset=english",
         "--sessions", "6", "--think", "1", "--duration", "12", "--min-clicks", "2", "--cookie", "bpe_backend", "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=240)
    result = json.loads(out.stdout)
    assert result["errors"] == 0, result["first_errors"]
    assert result["exceptions"] == 0, result["first_exceptions"]
    assert result["reruns"] >= 6 * 2


def test_the_processes_share_classes_through_persistent_redis(deployment):
    a, b = open_store(deployment["redis"]), open_store(deployment["redis"])
    keys = a.create_class({"preset": "sennrich"}, session="t")
    a.set_step(keys.code, 2, instructor_token=keys.instructor_token)
    assert b.join(keys.code, session="s").step == 2
    assert a._client.config_get("appendonly") == {"appendonly": "yes"}
    a.end_class(keys.code, instructor_token=keys.instructor_token)
    a.close()
    b.close()


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
