"""Join codes, link tokens and instructor tokens for a class.

A **join code** is what students type from the projector: 8 symbols from Crockford's
base-32 alphabet (digits and capital letters without I, L, O and U), shown as
``ABCD-2345``. That is 32**8 = 2**40, about 1.1 million million codes. Typing is forgiving:
case, spaces and hyphens are ignored, O reads as 0 and I or L as 1.

How hard a code is to guess: each guess hits one of the live classes with probability
``live_classes / 2**40``. With 200 classes running (the default cap), one guess succeeds
with probability about 1.8e-10. Wrong codes are rate-limited per client address (see
`classroom.limits`: 20, then one every 10 s), so one address makes at most about 8,660
wrong guesses a day, a chance of about 2e-6 a day; a thousand addresses guessing at once
still have about 1 chance in 635 a day. What a guess wins is a seat in a stranger's
class: a view of the step and one answer per question. The **instructor token** is
separate and long (24 random bytes, 192 bits); it is never derived from the code, and the
store keeps only its SHA-256 digest.

A **join link token** (16 random bytes) goes in the join link, so a shared link works
without typing; it opens the same class as the code.

Left out: storing anything; the store (`classroom.store`) decides when a code is taken.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 8
CODE_BITS = 40  # 8 symbols of 5 bits
JOIN_TOKEN_BYTES = 16
INSTRUCTOR_TOKEN_BYTES = 24

_READS_AS = str.maketrans({"O": "0", "I": "1", "L": "1"})


def new_join_code() -> str:
    """A fresh random code in canonical form (8 symbols, no hyphen)."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def new_join_token() -> str:
    return secrets.token_urlsafe(JOIN_TOKEN_BYTES)


def new_instructor_token() -> str:
    return secrets.token_urlsafe(INSTRUCTOR_TOKEN_BYTES)


def format_code(code: str) -> str:
    """The code as shown on the projector, in two groups of four.

    >>> format_code("7K3QX9M2")
    '7K3Q-X9M2'
    """
    return f"{code[:4]}-{code[4:]}"


def canonical_code(text: str) -> str | None:
    """The canonical code a student meant, or None when ``text`` cannot be a code.

    >>> canonical_code(" 7k3q-x9m2 ")
    '7K3QX9M2'
    >>> canonical_code("o1lI-2345")   # O reads as 0, I and L as 1
    '01112345'
    >>> canonical_code("7K3Q-X9M")  is None   # too short
    True
    >>> canonical_code("7K3Q-X9MU") is None   # U is not in the alphabet
    True
    """
    if not isinstance(text, str):
        return None
    cleaned = "".join(text.split()).replace("-", "").upper().translate(_READS_AS)
    if len(cleaned) != CODE_LENGTH or any(c not in ALPHABET for c in cleaned):
        return None
    return cleaned


def token_digest(token: str) -> str:
    """SHA-256 of a token, hex: what the store keeps instead of the instructor token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_matches(token: object, digest: str) -> bool:
    """Whether ``token`` hashes to ``digest``, compared in constant time."""
    if not isinstance(token, str) or not token:
        return False
    return hmac.compare_digest(token_digest(token), digest)


def guess_odds(live_classes: int, guesses: int) -> float:
    """Chance that ``guesses`` random guesses hit at least one of ``live_classes`` codes.

    >>> round(guess_odds(100, 1) * 1e11, 1)
    9.1
    >>> round(1 / guess_odds(200, 8_660_000))   # a thousand addresses, a day each, at 8,660 guesses
    635
    """
    p_miss = 1.0 - live_classes / 2**CODE_BITS
    return 1.0 - p_miss**guesses
