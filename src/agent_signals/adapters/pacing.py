"""Pacing of model calls: a run stays under a provider's requests-per-minute and tokens-per-minute quota
(AGENT_SIGNALS_REQUESTS_PER_MINUTE, _TOKENS_PER_MINUTE) instead of collecting 429s, each call waiting its
turn for a cheap estimate of its tokens."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable


def estimate_tokens(messages: list[dict]) -> int:
    """A cheap upper estimate of a prompt's tokens (about 3 characters a token), for pacing only."""
    return sum(len(m.get("content") or "") for m in messages) // 3 + 4 * len(messages)


class RateLimiter:
    """Paces calls under requests-per-minute and tokens-per-minute limits (None: no limit), so a run
    stays under a provider's quota instead of collecting 429s. Continuous token buckets; `clock` and
    `sleep` are injectable for tests."""

    def __init__(
        self,
        requests_per_minute: int | None,
        tokens_per_minute: int | None,
        *,
        clock: Callable[[], float] | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        self.rpm, self.tpm = requests_per_minute, tokens_per_minute
        self.clock = clock or time.monotonic
        self.sleep = sleep or asyncio.sleep
        self.requests = float(requests_per_minute or 0)
        self.tokens = float(tokens_per_minute or 0)
        self.updated = self.clock()
        self.lock = asyncio.Lock()

    def _refill(self) -> None:
        now = self.clock()
        elapsed = now - self.updated
        self.updated = now
        if self.rpm:
            self.requests = min(float(self.rpm), self.requests + elapsed * self.rpm / 60)
        if self.tpm:
            self.tokens = min(float(self.tpm), self.tokens + elapsed * self.tpm / 60)

    async def acquire(self, tokens: int) -> None:
        if not self.rpm and not self.tpm:
            return
        if self.tpm:
            tokens = min(tokens, self.tpm)  # one call larger than the whole minute's quota still goes
        async with self.lock:  # first come, first served
            while True:
                self._refill()
                waits = []
                if self.rpm and self.requests < 1:
                    waits.append((1 - self.requests) * 60 / self.rpm)
                if self.tpm and self.tokens < tokens:
                    waits.append((tokens - self.tokens) * 60 / self.tpm)
                if not waits:
                    break
                await self.sleep(max(waits))
            if self.rpm:
                self.requests -= 1
            if self.tpm:
                self.tokens -= tokens
