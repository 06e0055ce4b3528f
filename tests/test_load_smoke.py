"""The load script against the real app: 5 sessions clicking Step for 15 s, and at the
same time a class of 5 students following an instructor, no errors.

A correctness check of the app under concurrent sessions and of bench/load_app.py itself
(the script checks that every click moved the step on by one); it asserts nothing about
time. The figures that matter are in bench/README.md.
"""
from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: the app server's process id, for the tests that look at the running process
_SERVER: dict[str, int] = {}


@pytest.fixture(scope="module")
def app_base():
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.address=127.0.0.1",
         f"--server.port={port}", "--server.headless=true", "--browser.gatherUsageStats=false",
         "--server.fileWatcherType=none"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    _SERVER["pid"] = proc.pid
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(base + "/_stcore/health", timeout=2) as r:
                    if r.read() == b"ok":
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("the app did not start within 60 s")
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


#: the two loads: 5 sessions stepping on their own, and a class of 5 following an instructor
LOADS = {
    "step": ["--url", "/train-bpe?preset=english", "--sessions", "5", "--think", "1", "--duration", "15",
             "--min-clicks", "3", "--json"],
    "follow": ["--url", "/train-bpe?preset=sennrich", "--action", "follow", "--sessions", "5", "--think", "1.5",
               "--duration", "15", "--min-clicks", "3", "--json"],
}


@pytest.fixture(scope="module")
def loads(app_base):
    """Both loads of LOADS at once on the one server (11 sessions for 15 s, not twice 15 s
    one after the other): each load's (exit code, JSON result), for its own test to check."""
    procs = {}
    for name, args in LOADS.items():
        args = [a if not a.startswith("/train-bpe") else app_base + a for a in args]
        procs[name] = subprocess.Popen([sys.executable, "bench/load_app.py", *args], cwd=ROOT,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out = {}
    try:
        for name, proc in procs.items():
            stdout, stderr = proc.communicate(timeout=240)
            try:
                out[name] = (proc.returncode, json.loads(stdout))
            except json.JSONDecodeError:
                out[name] = (proc.returncode, {"no JSON": stdout[-2000:] + stderr[-2000:]})
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)
    return out


def test_five_sessions_step_for_15_seconds_without_errors(loads):
    returncode, result = loads["step"]
    assert "errors" in result, result
    assert result["errors"] == 0, result["first_errors"]
    assert result["exceptions"] == 0, result["first_exceptions"]
    assert result["reruns"] >= 5 * 3  # every session clicked several times (about 15 each)
    assert returncode == 0


def test_five_students_follow_a_class_and_every_step_reaches_them_by_push(loads):
    """A small class on a real server (while five other sessions step on their own): every
    student sees the instructor's steps without a reload, and the server brings them (the
    store's announcement wakes each student's session; their poll timer is only a safety
    net, far slower than the steps)."""
    returncode, result = loads["follow"]
    assert "errors" in result, result
    assert result["errors"] == 0, result["first_errors"]
    assert result["exceptions"] == 0, result["first_exceptions"]
    assert result["instructor_steps"] >= 3
    assert result["students_at_last_step"] == 5  # every student shows the instructor's last step
    assert result["lags"] >= 5 * 2  # each saw steps arrive while following
    # Steps come by a wake from the server (a poll fragment run the browser never asked
    # for), then rerun the step area alone, never the whole page.
    assert result["pushed"] >= 5 * 2, result
    assert result["reruns"] - result["pushed"] <= 5 * 4, result  # a few safety ticks, not one a second
    assert result["app_reruns"] >= 1 and result["full_reruns"] == 0, result
    assert returncode == 0


def test_the_script_refuses_anything_but_loopback():
    out = subprocess.run(
        [sys.executable, "bench/load_app.py", "--url", "http://example.com/train-bpe", "--duration", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "loopback" in out.stderr


def test_the_script_helpers_doctests():
    import doctest
    import importlib.util
    spec = importlib.util.spec_from_file_location("load_app", ROOT / "bench" / "load_app.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
        failed, tried = doctest.testmod(module)
    finally:
        del sys.modules[spec.name]
    assert tried >= 2 and failed == 0


def test_no_embedding_page_may_steer_the_app(app_base):
    """Streamlit's default lets pages on *.streamlit.app (and a dozen other hosts) that frame
    the app send it commands by postMessage; this app is served on its own, so the list the
    browser gets is empty (which also spares it checking the app's own messages against it)."""
    with urllib.request.urlopen(app_base + "/_stcore/host-config", timeout=10) as r:
        assert json.loads(r.read())["allowedOrigins"] == []


def test_the_server_runs_on_uvloop_and_httptools(app_base):
    """requirements.txt installs both: Streamlit then runs its server's event loop on uvloop
    and uvicorn parses HTTP with httptools (a first load's 60-80 script files are served
    on the loop that streams the page's elements: the server's CPU per first load fell by a
    fifth)."""
    import uvicorn
    from streamlit.web import bootstrap

    if sys.platform != "win32":  # uvloop has no Windows build (requirements.txt installs it elsewhere)
        assert bootstrap._get_uvloop_loop_factory() is not None
    config = uvicorn.Config(app=lambda *a: None, http="auto")
    config.load()
    assert config.http_protocol_class.__module__ == "uvicorn.protocols.http.httptools_impl"
    maps = Path(f"/proc/{_SERVER['pid']}/maps")
    if maps.exists():  # Linux: the running server has both loaded, not only importable
        with urllib.request.urlopen(app_base + "/", timeout=10):  # one HTTP request parsed
            pass
        loaded = maps.read_text()
        assert "/uvloop/" in loaded and "/httptools/" in loaded
