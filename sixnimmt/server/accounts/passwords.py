"""Passwords: what a password must be, and hashing them with argon2id off the event loop."""

from __future__ import annotations

import asyncio
import functools
import secrets
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from ..tables.scheduling import lower_priority
from .users import PASSWORD_MAX, PASSWORD_MIN, AccountError

T = TypeVar("T")


#: A few passwords too common to accept whatever their length.
COMMON_PASSWORDS = frozenset({
    "1234567890", "12345678910", "0123456789", "qwertyuiop", "password12", "password123", "passwordpassword",
    "iloveyou123", "sixnimmt123", "letmein123", "abcdefghij", "1q2w3e4r5t", "qwerty1234", "1111111111",
})


def check_password(password: str, name: str) -> None:
    """Refuse a weak password: too short, too long, one repeated character, the name, or common."""
    if len(password) < PASSWORD_MIN or len(password) > PASSWORD_MAX:
        raise AccountError(
            f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters", "account-password-weak",
            min=PASSWORD_MIN, max=PASSWORD_MAX,
        )
    folded = password.casefold()
    if len(set(password)) < 4 or name.casefold() in folded or folded in COMMON_PASSWORDS:
        raise AccountError(
            "that password is too easy to guess: use a longer phrase, not your name",
            "account-password-weak", min=PASSWORD_MIN, max=PASSWORD_MAX,
        )


#: argon2id's parameters: OWASP's recommended configuration (19 MiB of memory, 2 passes, 1 lane),
#: tens of milliseconds of one core per hash. argon2-cffi's own default (RFC 9106's 64 MiB, 3
#: passes, 4 lanes) is about twenty times that: a burst of sign-ins on a small server would queue
#: without end. A hash names its parameters: hashes made with others still verify.
ARGON2_TIME_COST = 2
ARGON2_MEMORY_KIB = 19 * 1024
ARGON2_LANES = 1


class Hasher:
    """argon2id (:data:`ARGON2_TIME_COST` …) on ``threads`` threads of its own, run ``niceness``
    steps below the server's priority: a burst of sign-ins waits its turn there instead of slowing
    the moves on the event loop."""

    def __init__(
        self, threads: int = 2, niceness: int = 5, hasher: PasswordHasher | None = None, most_waiting: int = 32
    ) -> None:
        self.hasher = hasher or PasswordHasher(
            time_cost=ARGON2_TIME_COST, memory_cost=ARGON2_MEMORY_KIB, parallelism=ARGON2_LANES
        )
        self._pool = ThreadPoolExecutor(
            max(1, threads), thread_name_prefix="sixnimmt-hash", initializer=lower_priority, initargs=(niceness,)
        )
        #: A hash of nothing anyone knows: checked when a name is unknown, so that an unknown name
        #: takes as long to refuse as a wrong password.
        self._dummy: str | None = None
        #: Hashes queued or running, and how many may be: past that a sign-in is refused at once
        #: (503, try again) instead of waiting behind a queue that only grows.
        self.waiting = 0
        self.most_waiting = most_waiting

    async def _run(self, function: Callable[[], T]) -> T:
        if self.waiting >= self.most_waiting:
            raise HasherBusyError()
        self.waiting += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, function)
        finally:
            self.waiting -= 1

    async def hash(self, password: str) -> str:
        return await self._run(functools.partial(self.hasher.hash, password))

    async def verify(self, stored: str | None, password: str) -> bool:
        if stored is None:
            if self._dummy is None:
                self._dummy = await self.hash(secrets.token_urlsafe(16))
            stored = self._dummy
        return await self._run(functools.partial(_verify, self.hasher, stored, password))

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


class HasherBusyError(RuntimeError):
    """Too many password hashes are waiting: the request is refused (503) rather than queued."""


def _verify(hasher: PasswordHasher, stored: str, password: str) -> bool:
    try:
        return hasher.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False
