"""Who is asking: the client address that class limits are counted by.

A class's limits (starting classes, wrong codes, instructor links) are counted per client
address, not per browser session: a new session costs an attacker nothing, a new address
does. The page passes what its server saw (the connection's peer address and the
``X-Forwarded-For`` header of the websocket's opening request) to `client_key`:

- **Not behind a proxy** (``BPE_BEHIND_PROXY`` unset or ``0``): the peer address. The
  forwarded header is ignored, since any visitor can send one.
- **Behind N proxies** (``BPE_BEHIND_PROXY=N``, ``1`` for `deploy/`'s nginx): the N-th
  address from the right of ``X-Forwarded-For``. Each proxy appends the address it saw, so
  the entries a visitor wrote come first and cannot push the proxy's own entry out.

An IPv6 address counts by its /64 network (one household or machine usually holds a
whole /64), an IPv4-mapped IPv6 address as its IPv4 address, and a loopback or missing
peer as ``local`` (Streamlit reports no address for loopback visitors).

    >>> client_key("203.0.113.7", None, 0)
    '203.0.113.7'
    >>> client_key("127.0.0.1", "1.2.3.4, 198.51.100.9", 0)   # the header is not trusted
    'local'
    >>> client_key("127.0.0.1", "1.2.3.4, 198.51.100.9", 1)   # nginx appended 198.51.100.9
    '198.51.100.9'
    >>> client_key("2001:db8:1:2:aaaa::1", None, 0)
    '2001:db8:1:2::/64'

Left out: the limits themselves (`classroom.limits`); nothing here is stored.
"""
from __future__ import annotations

import ipaddress
import os

PROXY_SETTING = "BPE_BEHIND_PROXY"
LOCAL = "local"


def proxy_hops(environ=None) -> int:
    """How many proxies stand in front of the app (the BPE_BEHIND_PROXY setting).

    >>> proxy_hops({"BPE_BEHIND_PROXY": "1"}), proxy_hops({})
    (1, 0)
    """
    raw = (os.environ if environ is None else environ).get(PROXY_SETTING, "").strip()
    if not raw:
        return 0
    if raw.lower() in ("yes", "true", "on"):
        return 1
    if not (raw.isascii() and raw.isdigit()) or int(raw) > 8:
        raise ValueError(f"{PROXY_SETTING}={raw!r} must be the number of proxies in front of the app "
                         "(0 to 8; 1 for deploy/'s nginx)")
    return int(raw)


def _normal(text: str | None) -> str | None:
    """One address as a key, or None when ``text`` is not an address."""
    if not text:
        return None
    text = text.strip()
    if text.startswith("[") and "]" in text:  # "[2001:db8::1]:443"
        text = text[1:text.index("]")]
    elif text.count(":") == 1:  # "203.0.113.7:443"
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_loopback:
        return LOCAL
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network(f"{address}/64", strict=False))
    return str(address)


def client_key(peer: str | None, forwarded_for: str | None, hops: int) -> str:
    """The key a visitor's limits are counted under (see the module docstring).

    >>> client_key(None, None, 0)
    'local'
    >>> client_key("10.0.0.2", "garbage", 1)    # an unreadable header: the peer counts
    '10.0.0.2'
    >>> client_key("10.0.0.2", "9.9.9.9, 5.6.7.8, 1.2.3.4", 2)
    '5.6.7.8'
    """
    if hops > 0 and forwarded_for:
        entries = [e.strip() for e in forwarded_for.split(",") if e.strip()]
        if entries:
            chosen = _normal(entries[max(0, len(entries) - hops)])
            if chosen is not None:
                return chosen
    return _normal(peer) or LOCAL
