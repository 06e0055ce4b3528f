"""Classes kept in Redis, so several server processes (or machines) share them.

Keys, under a prefix (``bpe:class:`` by default):

- ``c:{code}``: a hash with ``rec`` (the `ClassRecord` as JSON), ``ver`` (its version)
  and ``touched`` (the time of the last action, by the store's clock);
- ``t:{join token}``: the code a join link opens;
- ``a:{code}:{n}``: answers to question n, session -> JSON [option, nickname];
- ``n:{code}:{n}``: counts of question n, option -> count.

Every change is one Lua script, so it is atomic without locks: a change by the
instructor is a compare-and-set on ``ver``; an answer checks ``ver`` (the question is
still the open one), sets the session's answer only if absent and counts it. Every key
carries a Redis TTL of the class lifetime plus a minute, refreshed on each action, so
Redis frees a forgotten class by itself; the store's own clock decides when a class has
expired, as in the in-process store.

When Redis cannot be reached, every call raises `StoreUnavailable` within a couple of
seconds (short socket timeouts, two quick retries). The state lives in Redis, so once it
is back the next call just works (scripts are reloaded if Redis lost them). For classes
to survive a Redis restart, run it with persistence: ``appendonly yes`` (the tests use
``--appendonly yes --appendfsync always``; ``everysec`` is the usual production choice).

Left out: Redis Cluster (the keys of one class are not hash-tagged to one slot; use one
Redis, with replicas if you like), authentication beyond what the URL carries.
"""
from __future__ import annotations

import functools
import json
from typing import cast

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from classroom.store import ClassRecord, ClassStore, StoreUnavailable

_INSERT = """
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'rec', ARGV[1], 'ver', ARGV[2], 'touched', ARGV[3])
redis.call('SET', KEYS[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return 1
"""

# KEYS: class, token, answers, counts. ARGV: expected ver, new ver, rec, touched, ttl ms
_REPLACE = """
local v = redis.call('HGET', KEYS[1], 'ver')
if not v then return 'gone' end
if v ~= ARGV[1] then return 'stale' end
redis.call('HSET', KEYS[1], 'rec', ARGV[3], 'ver', ARGV[2], 'touched', ARGV[4])
for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[5]) end
return 'ok'
"""

# KEYS: class, token. ARGV: touched, ttl ms
_TOUCH = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'touched', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1
"""

# KEYS: class, answers, counts, token.
# ARGV: expected ver, session, answer JSON, option, touched, ttl ms, max answers
_ANSWER = """
local v = redis.call('HGET', KEYS[1], 'ver')
if not v then return 'gone' end
if v ~= ARGV[1] then return 'stale' end
if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then return 'already' end
if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[7]) then return 'full' end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('HINCRBY', KEYS[3], ARGV[4], 1)
redis.call('HSET', KEYS[1], 'touched', ARGV[5])
for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[6]) end
return 'ok'
"""

TTL_MARGIN_MS = 60_000


def _guarded(method):
    """Turn a lost connection to Redis into StoreUnavailable, a message for the screen."""
    @functools.wraps(method)
    def call(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as e:
            raise StoreUnavailable(
                "The class server cannot be reached right now, so the class is paused. "
                "Nothing is lost: it carries on by itself when the server is back; try "
                "again in a few seconds.") from e
    return call


class RedisClassStore(ClassStore):
    """`ClassStore` over one Redis, given by URL (``redis://host:port/db``)."""

    def __init__(self, url: str, *, prefix: str = "bpe:class:", **options):
        super().__init__(**options)
        self.prefix = prefix
        self._client = redis.Redis.from_url(
            url, decode_responses=True, socket_connect_timeout=1.0, socket_timeout=2.0,
            retry=Retry(ExponentialBackoff(cap=0.2, base=0.05), 2), health_check_interval=15)
        self._ttl_ms = int(self.ttl_seconds * 1000) + TTL_MARGIN_MS
        self._insert_script = self._client.register_script(_INSERT)
        self._replace_script = self._client.register_script(_REPLACE)
        self._touch_script = self._client.register_script(_TOUCH)
        self._answer_script = self._client.register_script(_ANSWER)

    def close(self) -> None:
        self._client.close()

    # ---- key names ----

    def _c(self, code: str) -> str:
        return f"{self.prefix}c:{code}"

    def _t(self, token: str) -> str:
        return f"{self.prefix}t:{token}"

    def _a(self, code: str, number: int) -> str:
        return f"{self.prefix}a:{code}:{number}"

    def _n(self, code: str, number: int) -> str:
        return f"{self.prefix}n:{code}:{number}"

    # ---- primitives ----

    @_guarded
    def _insert(self, record: ClassRecord, now: float) -> bool:
        done = self._insert_script(
            keys=[self._c(record.code), self._t(record.join_token)],
            args=[record.to_json(), record.version, repr(now), record.code, self._ttl_ms])
        return done == 1

    @_guarded
    def _load(self, code: str):
        rec, touched = self._client.hmget(self._c(code), ["rec", "touched"])
        if rec is None or touched is None:
            return None
        return ClassRecord.from_json(cast(str, rec)), float(touched)  # decode_responses: str

    @_guarded
    def _code_for_token(self, join_token: str) -> str | None:
        return cast("str | None", self._client.get(self._t(join_token)))  # decode_responses: str

    @_guarded
    def _replace(self, record: ClassRecord, now: float, *, expected_version: int) -> str:
        keys = [self._c(record.code), self._t(record.join_token)]
        if record.question is not None:
            keys += [self._a(record.code, record.question.number), self._n(record.code, record.question.number)]
        return self._replace_script(
            keys=keys, args=[expected_version, record.version, record.to_json(), repr(now), self._ttl_ms])

    @_guarded
    def _touch(self, record: ClassRecord, now: float) -> None:
        self._touch_script(keys=[self._c(record.code), self._t(record.join_token)],
                           args=[repr(now), self._ttl_ms])

    @_guarded
    def _add_answer(self, record, session, option, nickname, now) -> str:
        n = record.question.number
        return self._answer_script(
            keys=[self._c(record.code), self._a(record.code, n), self._n(record.code, n),
                  self._t(record.join_token)],
            args=[record.version, session, json.dumps([option, nickname]), option, repr(now),
                  self._ttl_ms, self.max_answers])

    @_guarded
    def _answers(self, code, number):
        pipe = self._client.pipeline(transaction=False)
        pipe.hgetall(self._n(code, number))
        pipe.hvals(self._a(code, number))
        counts, answers = pipe.execute()
        pairs = [json.loads(a) for a in answers]
        return ({o: int(c) for o, c in counts.items()},
                [(nick, option) for option, nick in pairs if nick])

    @_guarded
    def _answer_of(self, code, number, session):
        found = self._client.hget(self._a(code, number), session)
        return None if found is None else json.loads(found)[0]

    @_guarded
    def _delete(self, record: ClassRecord) -> None:
        code = record.code
        keys = [self._c(code), self._t(record.join_token)]
        for n in range(1, record.questions_asked + 1):
            keys += [self._a(code, n), self._n(code, n)]
        self._client.delete(*keys)
