"""Rate limits for a class: a token bucket per (who, action), who being a session or a client address.

A bucket holds up to ``burst`` tries and refills at ``per_second``; each try takes one.
An empty bucket raises `RateLimited` (a ValueError) saying when to try again.

What is counted by what (see `classroom.store`):

- per **client address** (`classroom.clients.client_key`): starting classes (``create``),
  opening instructor links (``teach``), and **wrong** class codes, link tokens, instructor
  links and passphrases (``guess``). A wrong answer spends a ``guess``; while an address
  has none left every try from it is refused, right or wrong, so a guesser learns
  nothing more. Right codes cost no ``guess``, so a lecture hall behind one school
  address can join at once.
- per **session**: joining (``join``), answering and polling.

The buckets live in the server process, for both stores: a Streamlit session is served by
one process for its whole life (the proxy keeps it there), so counting its tries in that
process costs no round trip to Redis; with several processes, an address's budget is per
process (deploy/'s nginx sends a browser without a cookie to any of them). The table is
bounded: past ``max_buckets`` the least recently used bucket is dropped (that key starts
afresh, which errs towards letting a student in).
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Mapping


@dataclass(frozen=True)
class Limit:
    """``burst`` tries at once, then ``per_second`` tries a second."""

    burst: int
    per_second: float


DEFAULT_LIMITS: Mapping[str, Limit] = {
    "create": Limit(burst=4, per_second=1 / 600),  # starting classes, per address: 4, then one per 10 min
    "teach": Limit(burst=6, per_second=1 / 60),    # opening an instructor link, per address
    "guess": Limit(burst=20, per_second=1 / 10),   # wrong codes, links or passphrases, per address
    "join": Limit(burst=5, per_second=1 / 12),     # typing a code, per session: 5 tries, then one per 12 s
    "answer": Limit(burst=10, per_second=1 / 2),   # one answer per question, a few retries
    "poll": Limit(burst=30, per_second=5.0),       # a follower polls about once a second
}


_WHO = {
    "create": "Too many classes started from your network address",
    "teach": "Too many instructor links opened from your network address",
    "guess": "Too many wrong class codes or links from your network address",
}


class RateLimited(ValueError):
    """Too many tries of one action from one session; ``retry_after`` is in seconds."""

    def __init__(self, action: str, retry_after: float):
        self.action = action
        self.retry_after = retry_after
        wait = max(1, round(retry_after + 0.5))
        who = _WHO.get(action, f"Too many {action} requests from this browser tab")
        super().__init__(f"{who}: wait {wait} s and try again.")


class RateLimiter:
    """Token buckets keyed by (session, action), thread-safe and bounded."""

    def __init__(self, limits: Mapping[str, Limit] = DEFAULT_LIMITS, *,
                 clock: Callable[[], float] = time.monotonic, max_buckets: int = 20_000):
        self.limits = dict(limits)
        self._clock = clock
        self._max = max_buckets
        self._buckets: OrderedDict[tuple[str, str], tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, session: str, action: str) -> None:
        """Spend one try of ``action`` for ``session`` (a session id or a client
        address), or raise RateLimited."""
        self._use(session, action, cost=1.0, strict=True)

    def check(self, session: str, action: str) -> None:
        """Raise RateLimited if ``session`` has no try of ``action`` left; spend nothing."""
        self._use(session, action, cost=0.0, strict=True)

    def spend(self, session: str, action: str) -> None:
        """Spend one try after the fact (a wrong answer), never raising; the bucket
        bottoms out at empty."""
        self._use(session, action, cost=1.0, strict=False)

    def _use(self, session: str, action: str, *, cost: float, strict: bool) -> None:
        limit = self.limits.get(action)
        if limit is None:
            raise ValueError(f"unknown rate-limited action {action!r}: use one of {sorted(self.limits)}")
        key = (session, action)
        with self._lock:
            now = self._clock()
            tokens, then = self._buckets.pop(key, (float(limit.burst), now))
            tokens = min(float(limit.burst), tokens + max(0.0, now - then) * limit.per_second)
            if strict and tokens < 1.0:
                self._buckets[key] = (tokens, now)
                raise RateLimited(action, (1.0 - tokens) / limit.per_second)
            self._buckets[key] = (max(0.0, tokens - cost), now)
            while len(self._buckets) > self._max:
                self._buckets.popitem(last=False)

    def __len__(self) -> int:
        return len(self._buckets)
