#!/usr/bin/env bash
# Install what the tests need, then run the whole suite (engine, pages, browser).
#
# The browser tests drive Debian's Chromium with Playwright. As root with apt-get this
# script installs Chromium (and CJK/emoji fonts, so screenshots are readable); without it
# the browser tests are skipped, unless BPE_REQUIRE_BROWSER=1 (CI sets it), which makes a
# missing browser a failure. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

# The versions CI tested, hash-checked (requirements-lock.txt, made for CPython 3.11 on
# x86-64 Linux); elsewhere the pins of requirements-dev.txt. Then requirements-dev.txt
# itself, which installs nothing more unless a requirement was added after the lock.
if python -c 'import platform, sys; sys.exit(not (sys.version_info[:2] == (3, 11) and platform.machine() == "x86_64" and sys.platform == "linux"))'; then
  python -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements-lock.txt
fi
python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt

if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Debian's chromium for the browser tests..."
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk fonts-noto-color-emoji >/dev/null
  else
    echo "chromium not found and cannot apt-get it: browser tests will be skipped" >&2
  fi
fi

# The class-store tests start a real redis-server, and the deploy test nginx too (both
# Debian's, on free loopback ports); like the browser, they are installed here when
# missing and required under BPE_REQUIRE_BROWSER=1.
servers=()
command -v redis-server >/dev/null 2>&1 || servers+=(redis-server)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || servers+=(nginx)
if [ ${#servers[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Debian's ${servers[*]} for the class and deploy tests..."
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${servers[@]}" >/dev/null
  else
    echo "${servers[*]} not found and cannot apt-get: the Redis/deploy tests will be skipped" >&2
  fi
fi

# Lint and type checks first (settings in pyproject.toml): pyflakes and pycodestyle's
# errors over the whole tree, mypy over the engine (bpe_core) and the class store.
python -m ruff check --quiet .
python -m mypy

# Two pytest-xdist workers, a test file per worker at a time (module fixtures such as the
# browser tests' app server are set up once per file). The security browser tests wait for
# script runs by counting the websocket's script_finished frames, which two workers' load
# cannot hide (the DOM observer they used before missed runs now and then).
exec python -m pytest -n 2 --dist loadfile "$@"
