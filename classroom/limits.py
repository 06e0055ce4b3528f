"""Per-session rate limits for a class: a token bucket per (session, action).

A bucket holds up to ``burst`` tries and refills at ``per_second``; each try takes one.
An empty bucket raises `RateLimited` (a ValueError) saying when to try again.

The buckets live in the server process, for both stores: a Streamlit session is served by
one process for its whole life (the proxy keeps it there), so counting its tries in that
process is exact and costs no round trip to Redis. The table is bounded: past
``max_buckets`` the least recently used bucket is dropped (that session starts afresh,
which errs towards letting a student in).

Left out: limits across sessions (a guesser with many tabs gets a bucket per tab; see
`classroom.codes` for what that buys them).
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
    "create": Limit(burst=3, per_second=1 / 60),   # starting classes
    "join": Limit(burst=5, per_second=1 / 12),     # typing a code: 5 tries, then one per 12 s
    "answer": Limit(burst=10, per_second=1 / 2),   # one answer per question, a few retries
    "poll": Limit(burst=30, per_second=5.0),       # a follower polls about once a second
}


class RateLimited(ValueError):
    """Too many tries of one action from one session; ``retry_after`` is in seconds."""

    def __init__(self, action: str, retry_after: float):
        self.action = action
        self.retry_after = retry_after
        wait = max(1, round(retry_after + 0.5))
        super().__init__(
            f"Too many {action} requests from this browser tab: wait {wait} s and try again."
        )


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
        """Spend one try of ``action`` for ``session``, or raise RateLimited."""
        limit = self.limits.get(action)
        if limit is None:
            raise ValueError(f"unknown rate-limited action {action!r}: use one of {sorted(self.limits)}")
        key = (session, action)
        with self._lock:
            now = self._clock()
            tokens, then = self._buckets.pop(key, (float(limit.burst), now))
            tokens = min(float(limit.burst), tokens + max(0.0, now - then) * limit.per_second)
            if tokens < 1.0:
                self._buckets[key] = (tokens, now)
                raise RateLimited(action, (1.0 - tokens) / limit.per_second)
            self._buckets[key] = (tokens - 1.0, now)
            while len(self._buckets) > self._max:
                self._buckets.popitem(last=False)

    def __len__(self) -> int:
        return len(self._buckets)
