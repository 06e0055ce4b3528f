"""A real redis-server for tests: on a free loopback port, in a temporary folder.

It runs with ``--appendonly yes --appendfsync always``, so what it held survives a kill and
a restart on the same folder (the outage test relies on that). Without redis-server the
caller skips, unless BPE_REQUIRE_BROWSER=1 (CI), where a missing server is a failure.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
REQUIRED = os.environ.get("BPE_REQUIRE_BROWSER") == "1"


def require_redis_server() -> None:
    if Path(REDIS_SERVER).exists():
        return
    reason = "redis-server not found (apt-get install redis-server)"
    if REQUIRED:
        pytest.fail(f"{reason}; BPE_REQUIRE_BROWSER=1: the Redis tests must run here")
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """Start, kill and restart one redis-server process; its data stays in ``folder``."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [REDIS_SERVER, "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.folder),
             "--appendonly", "yes", "--appendfsync", "always", "--save", "",
             "--daemonize", "no", "--protected-mode", "yes", "--loglevel", "warning"],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.proc.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(64).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("redis-server did not answer PING within 20 s")

    def kill(self) -> None:
        """Stop it abruptly, as a crash would (the append-only file keeps the data)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.proc = None
