"""Time and identifiers for the simulated agent: a fixed fake clock or the real one.

Design notes: docs/ARCHITECTURE.md, “demo/clock.py”.
"""

from __future__ import annotations

import random
import time
import uuid as _uuid
from datetime import UTC, datetime

#: 2026-11-23T01:00:00Z: the fixed start of a seeded demo home's timeline.
DEMO_EPOCH_MS = 1795395600000

_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_B64 = _B62 + "+/"
_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def iso_ms(ms: int) -> str:
    """``new Date(ms).toISOString()`` (UTC, milliseconds, ``Z``)."""
    secs, rest = divmod(int(ms), 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs)) + f".{rest:03d}Z"


def find_dead_pid(rng: random.Random) -> int:
    """A PID no process has now (for a stale registration: the demo's own
    and its Claude Code home's), chosen from ``rng``."""
    import psutil

    pid = 4_190_000 + rng.randint(0, 4_000)
    while psutil.pid_exists(pid):
        pid += 1
    return pid


class SimClock:
    """A clock in ms since the epoch.

    Args:
        start_ms: the first reading of a fake clock (ignored when ``live``).
        live: read the real time instead (``advance`` then does nothing).
        rng: jitter source for :meth:`step` (default: a fixed ``random.Random(0)``).
    """

    def __init__(self, start_ms: int = DEMO_EPOCH_MS, *, live: bool = False, rng=None) -> None:
        self.live = live
        self._ms = int(start_ms)
        self._rng = rng or random.Random(0)

    def ms(self) -> int:
        """Now, in ms (the ``CheckpointManager`` clock signature)."""
        if self.live:
            return time.time_ns() // 1_000_000
        return self._ms

    def iso(self) -> str:
        """Now as an ISO string (the ``SessionStore`` clock signature)."""
        return iso_ms(self.ms())

    def advance(self, ms: int) -> None:
        """Move a fake clock forward by ``ms`` (no-op when live)."""
        if not self.live:
            self._ms += max(0, int(ms))

    def step(self, lo: int = 3, hi: int = 40) -> None:
        """Advance by a random ``lo..hi`` ms (the gap between two records)."""
        self.advance(self._rng.randint(lo, hi))

    def set(self, ms: int) -> None:
        """Jump a fake clock to ``ms`` (never backwards)."""
        if not self.live:
            self._ms = max(self._ms, int(ms))

    def session_stamp(self) -> str:
        """``YYYYMMDD-HHMMSS`` of now (UTC)."""
        return datetime.fromtimestamp(self.ms() / 1000, UTC).strftime("%Y%m%d-%H%M%S")


class SeededIds:
    """Every random-looking identifier the agent writes, from one seeded generator.

    Args:
        rng: the generator; ``None`` means ``random.SystemRandom`` (live mode: real ids).
    """

    def __init__(self, rng: random.Random | None) -> None:
        self.rng = rng if rng is not None else random.SystemRandom()

    def uuid(self) -> str:
        """An RFC 4122 v4 uuid string (``crypto.randomUUID()``)."""
        return str(_uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def _chars(self, alphabet: str, n: int) -> str:
        return "".join(self.rng.choices(alphabet, k=n))

    def tool_use_id(self) -> str:
        """``toolu_01`` + 22 base62 chars (the Anthropic shape)."""
        return "toolu_01" + self._chars(_B62, 22)

    def msg_id(self) -> str:
        """``msg_01`` + 22 base62 chars."""
        return "msg_01" + self._chars(_B62, 22)

    def signature(self, n: int = 96) -> str:
        """A thinking-block signature (opaque base64)."""
        return self._chars(_B64, n)

    def hex8(self) -> str:
        return f"{self.rng.getrandbits(32):08x}"

    def agent_id(self) -> str:
        """A sub-agent id: ``a`` + 8 base36 chars (as in the fixtures)."""
        return "a" + self._chars(_B36, 8)

    def session_id(self, clock: SimClock) -> str:
        """``YYYYMMDD-HHMMSS-<8 hex>`` for now on ``clock``."""
        return f"{clock.session_stamp()}-{self.hex8()}"
