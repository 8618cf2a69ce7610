"""Attempts for tests that grade checks directly, under a secret of the tests' own (a course's real
secret is made by its first release): `attempt("s1")` is student s1's first attempt."""

from __future__ import annotations

from autograder.grading.attempts import Attempt

SECRET = b"tests-only course secret, never a course's own: 0123456789abcdef"


def attempt(student: str = "s1", number: int = 1, digest: str = "", secret: bytes = SECRET) -> Attempt:
    return Attempt(secret, student, number, digest)
