"""Classes kept in Redis, so several server processes (or machines) share them.

Keys, under a prefix (``bpe:class:`` by default):

- ``c:{code}``: a hash with ``rec`` (the `ClassRecord` as JSON), ``ver`` (its version)
  and ``touched`` (the time of the last action, by the store's clock);
- ``t:{join token}``: the code a join link opens;
- ``a:{code}:{n}``: answers to question n, session -> JSON [option, nickname];
- ``n:{code}:{n}``: counts of question n, option -> count;
- ``live``: the set of class codes, for the cap on classes (``max_classes``); its TTL
  is refreshed with every class's.

Only the current question's answers are kept: opening question n deletes question
n-1's keys. Ending a class deletes its keys and, when Redis keeps an append-only file,
asks Redis to rewrite it (``BGREWRITEAOF``) so the answers and nicknames leave the disk.

Every change is one Lua script, so it is atomic without locks: a change by the
instructor is a compare-and-set on ``ver``; an answer checks ``ver`` (the question is
still the open one), sets the session's answer only if absent and counts it. Every key
carries a Redis TTL of the class lifetime plus a minute, refreshed on each action, so
Redis frees a forgotten class by itself; the store's own clock decides when a class has
expired, as in the in-process store.

Changes are announced on the channel ``{prefix}changes`` (``"{code} {version}"``, or
``"{code} end"`` when a class ends). The first `watch` starts one daemon thread per store
object that subscribes to it and calls the listeners; when its connection breaks, it
retries every `RESUBSCRIBE_SECONDS` at most, and once subscribed again calls the
listeners with ``(None, None)`` (announcements made meanwhile were lost). A lost
announcement only delays a follower until its own slow poll.

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
import threading
import time
from typing import cast

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from classroom.store import ClassFull, ClassRecord, ClassStore, StoreUnavailable, class_limit_message

# KEYS: class, token, live set. ARGV: rec, ver, touched, code, ttl ms, max classes,
# lifetime in seconds, the class key prefix. Returns 1 (stored), 0 (code or token taken)
# or -1 (the server's limit of classes is reached). At the limit, codes in the live set
# whose class is gone or idle past its lifetime (by the store's clock) leave the set first.
_INSERT = """
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if redis.call('SCARD', KEYS[3]) >= tonumber(ARGV[6]) then
  for _, code in ipairs(redis.call('SMEMBERS', KEYS[3])) do
    local t = redis.call('HGET', ARGV[8] .. code, 'touched')
    if not t or tonumber(ARGV[3]) - tonumber(t) > tonumber(ARGV[7]) then
      redis.call('SREM', KEYS[3], code)
    end
  end
  if redis.call('SCARD', KEYS[3]) >= tonumber(ARGV[6]) then return -1 end
end
redis.call('HSET', KEYS[1], 'rec', ARGV[1], 'ver', ARGV[2], 'touched', ARGV[3])
redis.call('SET', KEYS[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('SADD', KEYS[3], ARGV[4])
redis.call('PEXPIRE', KEYS[3], ARGV[5])
return 1
"""

# KEYS: class, token, live set, [answers, counts of the current question], [those of the
# one before]. ARGV: expected ver, new ver, rec, touched, ttl ms, how many KEYS are kept.
# Keys past the kept ones are deleted: a new question drops the previous one's answers.
_REPLACE = """
local v = redis.call('HGET', KEYS[1], 'ver')
if not v then return 'gone' end
if v ~= ARGV[1] then return 'stale' end
redis.call('HSET', KEYS[1], 'rec', ARGV[3], 'ver', ARGV[2], 'touched', ARGV[4])
local kept = tonumber(ARGV[6])
for i = 1, kept do redis.call('PEXPIRE', KEYS[i], ARGV[5]) end
for i = kept + 1, #KEYS do redis.call('DEL', KEYS[i]) end
return 'ok'
"""

# KEYS: class, token, live set. ARGV: touched, ttl ms
_TOUCH = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'touched', ARGV[1])
for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
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
#: Connections to Redis one store (one app process) keeps at most; the watcher holds one.
MAX_CONNECTIONS = 64
#: How long a store call waits for a free connection before the store counts as unavailable.
POOL_WAIT_SECONDS = 3.0
#: A poll answers from this process's copy of a class for this long after Redis gave it,
#: while this store listens and no announcement has said the class changed since.
READ_COPY_SECONDS = 0.5
#: The copies' total size at most (their records' JSON, in characters).
READ_COPY_CHARS = 8_000_000
#: The subscriber thread waits this long between tries while Redis is away.
RESUBSCRIBE_SECONDS = 1.0
#: Longest announcement read from the channel (a code, a space, a version): longer ones are dropped.
ANNOUNCEMENT_MAX = 40


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
        retry = Retry(ExponentialBackoff(cap=0.2, base=0.05), 2)
        # A blocking pool: a call waits (at most POOL_WAIT_SECONDS) for one of MAX_CONNECTIONS
        # connections. redis-py's default pool refuses the 101st connection at once
        # (MaxConnectionsError, which read as "the class server cannot be reached"): 150
        # students joining one process in two seconds have that many store calls at once.
        pool = redis.BlockingConnectionPool.from_url(
            url, max_connections=MAX_CONNECTIONS, timeout=POOL_WAIT_SECONDS, decode_responses=True,
            socket_connect_timeout=1.0, socket_timeout=2.0, retry=retry, health_check_interval=15)
        self._client = redis.Redis(connection_pool=pool, retry=retry)
        self._ttl_ms = int(self.ttl_seconds * 1000) + TTL_MARGIN_MS
        self._rewrite_pending = False
        self._insert_script = self._client.register_script(_INSERT)
        self._replace_script = self._client.register_script(_REPLACE)
        self._touch_script = self._client.register_script(_TOUCH)
        self._answer_script = self._client.register_script(_ANSWER)
        self._channel = f"{prefix}changes"
        self._closed = threading.Event()
        self._watcher: threading.Thread | None = None
        self._watcher_lock = threading.Lock()
        #: announcements that could not be published (Redis away): their followers catch up by polling
        self.unannounced = 0
        # Polls' copies: code -> (read at, record, touched, size). A woken class of 150
        # students in one process reads its class once, not 150 times (docs/class_mode.md).
        self._copies: dict[str, tuple[float, ClassRecord, float, int]] = {}
        self._copies_size = 0
        self._copies_lock = threading.Lock()
        self._forgotten = 0  # how many times copies were dropped: a read older than that is not kept
        self._subscribed = False  # copies are used only while announcements are heard
        self.copies_used = 0

    def close(self) -> None:
        self._closed.set()
        if self._watcher is not None:
            self._watcher.join(timeout=5)
        self._client.close()
        self._client.connection_pool.disconnect()  # a pool passed in is not closed with the client

    # ---- announcements ----

    def _announce(self, code: str, version: int | None) -> None:
        try:
            self._client.publish(self._channel, f"{code} {'end' if version is None else version}")
        except redis.exceptions.RedisError:
            self.unannounced += 1  # the change is stored; followers see it at their next poll

    def _start_watching(self) -> None:
        with self._watcher_lock:
            if self._watcher is None and not self._closed.is_set():
                self._watcher = threading.Thread(target=self._listen, name="bpe-class-announcements", daemon=True)
                self._watcher.start()

    def _listen(self) -> None:
        """The subscriber thread: announcements on the channel -> the listeners."""
        subscribed_before = False
        while not self._closed.is_set():
            pubsub = self._client.pubsub(ignore_subscribe_messages=True)
            try:
                pubsub.subscribe(self._channel)
                self._forget_copies(None)
                self._subscribed = True
                if subscribed_before:  # back after a break: what was announced meanwhile is lost
                    self._deliver(None, None)
                subscribed_before = True
                while not self._closed.is_set():
                    message = pubsub.get_message(timeout=1.0)
                    if message is not None:
                        self._heard(message.get("data"))
            except (redis.exceptions.RedisError, OSError, ValueError):
                self._subscribed = False
                self._forget_copies(None)
                self._closed.wait(RESUBSCRIBE_SECONDS)
            finally:
                try:
                    pubsub.close()
                except (redis.exceptions.RedisError, OSError):
                    pass

    def _heard(self, data: object) -> None:
        """One announcement from the channel, checked before the listeners see it."""
        if not isinstance(data, str) or len(data) > ANNOUNCEMENT_MAX or data.count(" ") != 1:
            return
        code, version = data.split(" ")
        self._forget_copies(code)  # before any listener wakes a student who will read it
        if version == "end":
            self._deliver(code, None)
        elif version.isascii() and version.isdigit():
            self._deliver(code, int(version))

    # ---- polls' copies ----

    def _forget_copies(self, code: str | None) -> None:
        """Drop the copy of one class (None: of every class)."""
        with self._copies_lock:
            self._forgotten += 1
            if code is None:
                self._copies.clear()
                self._copies_size = 0
            else:
                old = self._copies.pop(code, None)
                if old is not None:
                    self._copies_size -= old[3]

    def _load_polled(self, code: str):
        if not self._subscribed or self._closed.is_set():
            return self._load(code)
        now = time.monotonic()
        copy = self._copies.get(code)
        if copy is not None and now - copy[0] < READ_COPY_SECONDS:
            self.copies_used += 1
            return copy[1], copy[2]
        return self._load(code, keep=True)

    def _keep_copy(self, code: str, record: ClassRecord, touched: float, size: int, read_at: float,
                   forgotten: int) -> None:
        if size > READ_COPY_CHARS // 4:
            return
        with self._copies_lock:
            if forgotten != self._forgotten:  # an announcement came in during the read
                return
            old = self._copies.pop(code, None)
            if old is not None:
                self._copies_size -= old[3]
            for stale in [c for c, v in self._copies.items() if read_at - v[0] >= READ_COPY_SECONDS]:
                self._copies_size -= self._copies.pop(stale)[3]
            if self._copies_size + size > READ_COPY_CHARS:
                return
            self._copies[code] = (read_at, record, touched, size)
            self._copies_size += size

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

    def _live_set(self) -> str:
        return f"{self.prefix}live"

    @_guarded
    def _insert(self, record: ClassRecord, now: float) -> bool:
        self._rewrite_if_pending()
        done = self._insert_script(
            keys=[self._c(record.code), self._t(record.join_token), self._live_set()],
            args=[record.to_json(), record.version, repr(now), record.code, self._ttl_ms,
                  self.max_classes, repr(self.ttl_seconds), self._c("")])
        if done == -1:
            raise ClassFull(class_limit_message(self.max_classes))
        return done == 1

    @_guarded
    def _load(self, code: str, *, keep: bool = False):
        read_at, forgotten = time.monotonic(), self._forgotten
        subscribed = self._subscribed
        rec, touched = self._client.hmget(self._c(code), ["rec", "touched"])
        if rec is None or touched is None:
            return None
        record = ClassRecord.from_json(cast(str, rec))  # decode_responses: str
        # a copy only when the watcher listened throughout the read (no announcement missed)
        if keep and subscribed and self._subscribed:
            self._keep_copy(code, record, float(touched), len(rec), read_at, forgotten)
        return record, float(touched)

    @_guarded
    def _code_for_token(self, join_token: str) -> str | None:
        return cast("str | None", self._client.get(self._t(join_token)))  # decode_responses: str

    @_guarded
    def _replace(self, record: ClassRecord, now: float, *, expected_version: int) -> str:
        keys = [self._c(record.code), self._t(record.join_token), self._live_set()]
        q = record.question
        if q is not None:
            keys += [self._a(record.code, q.number), self._n(record.code, q.number)]
        kept = len(keys)
        if q is not None and q.number > 1:  # only the current question's answers are kept
            keys += [self._a(record.code, q.number - 1), self._n(record.code, q.number - 1)]
        self._forget_copies(record.code)
        return self._replace_script(
            keys=keys, args=[expected_version, record.version, record.to_json(), repr(now), self._ttl_ms, kept])

    @_guarded
    def _touch(self, record: ClassRecord, now: float) -> None:
        self._touch_script(keys=[self._c(record.code), self._t(record.join_token), self._live_set()],
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
        if record.questions_asked:
            n = record.questions_asked
            keys += [self._a(code, n), self._n(code, n)]
        self._forget_copies(code)
        pipe = self._client.pipeline(transaction=True)
        pipe.delete(*keys)
        pipe.srem(self._live_set(), code)
        pipe.execute()
        self._rewrite_pending = True
        self._rewrite_if_pending()

    def _rewrite_if_pending(self) -> None:
        """After a class is deleted, have Redis rewrite its append-only file, so the
        class's answers and nicknames leave the disk too (a DEL alone only appends to the
        file). If Redis is rewriting already (that rewrite may have started before the
        DEL), ask again at the next creation or deletion. Nothing to do without AOF; a
        Redis that refuses the command (some hosted ones) keeps the data on disk until
        its own next rewrite (see docs/class_mode.md)."""
        if not self._rewrite_pending:
            return
        try:
            info = self._client.info("persistence")
            if not info.get("aof_enabled"):
                self._rewrite_pending = False
                return
            if info.get("aof_rewrite_in_progress"):
                return
            self._client.bgrewriteaof()
            self._rewrite_pending = False
        except redis.exceptions.ResponseError:
            self._rewrite_pending = False  # refused: nothing this store can do
