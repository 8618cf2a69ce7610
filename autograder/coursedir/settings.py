"""The course settings: `course_config.py`, read once into one typed object.

Every setting is declared here, with its type, its default and its description, and nowhere else:
course_config.py's comment above each setting is its description (tests/coursedir/test_settings.py), nbgrader's
traits take theirs from `Settings.help`, and a limit of student code takes its default from
`rnnkit.jail.limits.Limits`, the one object of those limits (`Settings.limits`) that travels to the
runner. A value of the wrong type stops with a message naming the setting.
`autograder.coursedir.config.load` returns a `Settings`, and `autograder.pipeline.nbgrader_settings`
hands it to nbgrader's traitlets.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from rnnkit.jail.limits import Limits
from rnnkit.messages import LANGUAGES

#: What `FEEDBACK_SHOWS_EXPECTED` may say (see `autograder.grading.reveal`).
FEEDBACK_POLICIES = ("public", "never", "after_due", "always")


class SettingsError(ValueError):
    """A setting of course_config.py that the course cannot use."""


def _setting(default: Any, text: str, kind: type | tuple[type, ...], choices: tuple = ()) -> Any:
    extra = (
        {"default_factory": lambda: type(default)(default)}
        if isinstance(default, (dict, list))
        else {"default": default}
    )
    return field(**extra, metadata={"text": text, "kind": kind, "choices": choices})


@dataclass(frozen=True)
class Settings:
    """One course's settings (the names are course_config.py's)."""

    COURSE_ID: str = _setting("rnn-chapters", "nbgrader's course id.", str)
    COURSE_LANG: str = _setting(
        "en",
        'Language of the notebooks, messages, feedback, report and exports: "en" or "zh" '
        "(the environment variable COURSE_LANG overrides it for one command).",
        str,
        LANGUAGES,
    )
    ASSIGNMENTS: list = _setting(
        [], "Assignments in release order (their checks and points are in autograder/assignments/<name>/).", list
    )
    POINTS: dict = _setting({}, "Points that differ from a check's own: {assignment: {grade id: points}}.", dict)
    CELL_TIMEOUT: float = _setting(
        Limits.CELL_TIMEOUT, "Seconds one notebook cell may run during autograding.", (int, float)
    )
    CALL_TIMEOUT: float = _setting(
        Limits.CALL_TIMEOUT, "Seconds one call of a student's function may take inside a check.", (int, float)
    )
    MEMORY_LIMIT_MB: int = _setting(Limits.MEMORY_LIMIT_MB, "Memory (address space) of a sandboxed runner, in MB.", int)
    OUTPUT_LIMIT_KB: int = _setting(
        Limits.OUTPUT_LIMIT_KB,
        "Output one cell may keep in the autograded notebook, in KB (the rest is cut, with a note).",
        int,
    )
    OUTPUT_TOTAL_KB: int = _setting(
        Limits.OUTPUT_TOTAL_KB,
        "Output all the cells of one submission may keep, in KB (past it a cell's outputs are one note).",
        int,
    )
    PROCESS_LIMIT: int = _setting(
        Limits.PROCESS_LIMIT, "Processes a submission may run at once (its own included).", int
    )
    WORK_LIMIT_MB: int = _setting(
        Limits.WORK_LIMIT_MB,
        "Size of a runner's work folder (a tmpfs holding a copy of the assignment's data files), in MB.",
        int,
    )
    SUBMISSION_TIMEOUT: float = _setting(
        Limits.SUBMISSION_TIMEOUT,
        "Seconds of runner time one submission may take in all, "
        "replays of earlier cells after a restart included; past it the remaining cells "
        "and checks fail with a message.",
        (int, float),
    )
    RUNNER_RESTARTS: int = _setting(
        Limits.RUNNER_RESTARTS,
        "Times one submission's runner may be started again after it died (a crash, os._exit, a timeout).",
        int,
    )
    HIDDEN_CASES: int = _setting(6, "Hidden cases drawn per check (besides the book's public cases).", int)
    FEEDBACK_SHOWS_EXPECTED: str = _setting(
        "after_due",
        "After grading, the feedback shows the inputs of a check's first "
        'failed hidden case and the student\'s value; its expected value "never", '
        '"after_due" (the student\'s due date) or "always"; "public" shows the '
        "book's cases only (TERM may set it per assignment).",
        str,
        FEEDBACK_POLICIES,
    )
    TIMEZONE: str = _setting(
        "UTC",
        'Time zone of the due dates and extensions (an IANA name such as "Europe/Berlin"); a '
        "day late is a calendar day of it.",
        str,
    )
    TERM: dict = _setting(
        {},
        'The term\'s rules per assignment: {assignment: {"due": "2027-03-01 23:59", '
        '"grace_minutes": 15, "late": {"per_day": 0.1, "cap": 0.5, "late_days": False}, '
        '"attempts": 3, "counts": "last" or "best", "feedback": "public", "never", '
        '"after_due" or "always"}} (docs/term.md).',
        dict,
    )
    LATE_DAYS: int = _setting(
        0,
        'Late days each student may spend over the term where an assignment\'s late policy says "late_days": True.',
        int,
    )
    WORKERS: int = _setting(2, "Parallel autograde workers on this machine.", int)
    SHARED_HOST: bool = _setting(
        True,
        "Other people have accounts on this host (a hub, a shared server): every command "
        "stops where they could read the course's files (docs/instructor.md); False: the "
        "host has one user.",
        bool,
    )
    TA_GROUP: str = _setting(
        "",
        "A Unix group whose members (the TAs) may read and grade the course's files; empty: the "
        "instructor's account alone.",
        str,
    )
    DASK_PLAIN_TCP: bool = _setting(
        False,
        "Accept a tcp:// Dask scheduler without TLS on a shared host (whoever reaches "
        "it runs code as you); a tls:// cluster needs no such setting.",
        bool,
    )
    DATABASE_URL: str = _setting(
        "sqlite:///gradebook.db", "Gradebook database; relative SQLite paths are resolved against the course root.", str
    )
    LTI_ISSUER: str = _setting(
        "",
        "The LMS platform's issuer (LTI 1.3), as it gives it on registering the tool (docs/lms.md); empty: no LMS.",
        str,
    )
    LTI_CLIENT_ID: str = _setting("", "The client id the LMS gave the tool.", str)
    LTI_DEPLOYMENT_ID: str = _setting("", "The deployment id the LMS gave the tool in this course.", str)
    LTI_TOKEN_URL: str = _setting("", "The LMS's OAuth 2 access token URL.", str)
    LTI_KEYSET_URL: str = _setting("", "The LMS's public key set URL (its JWKS).", str)
    LTI_LINEITEMS_URL: str = _setting(
        "",
        "The line items URL of the course's context in the LMS (Assignment and Grade Services), query string included.",
        str,
    )
    LTI_AUTHORIZE_URL: str = _setting(
        "",
        "The LMS's OpenID Connect authentication request URL, where a launch into the hub is signed; "
        "with it, `hub config` logs people in through the LMS (docs/lms.md).",
        str,
    )
    HUB_URL: str = _setting(
        "",
        "The hub's address as people reach it (https://hub.example.edu/), which `lti key` builds the "
        "launch URLs to register from.",
        str,
    )
    LTI_NRPS_URL: str = _setting(
        "",
        "The Names and Role Provisioning Services (context memberships) URL of the course in the LMS, "
        "which `lti roster` reads the class list from.",
        str,
    )
    LTI_USERNAME_CLAIM: str = _setting(
        "email",
        "Which of the LMS's words for a user names them in the course and on the hub: sub, email, "
        "lis_person_sourcedid or custom_<field> (autograder/lms/names.py turns it into a login name).",
        str,
    )
    LTI_ROSTER: str = _setting(
        "",
        "A CSV file with the columns student_id,lti_user_id mapping each student to its LMS "
        "user id, relative to the course root; empty: the LMS user id is the student id.",
        str,
    )

    @property
    def limits(self) -> Limits:
        """What the course lets student code use: `Limits` of the settings of the same names."""
        return Limits(
            **{limit.name: getattr(self, limit.name) for limit in fields(Limits) if hasattr(self, limit.name)}
        )

    @classmethod
    def read(cls, path: str | os.PathLike) -> Settings:
        """The settings of one course_config.py (a setting it leaves out takes its default)."""
        path = Path(path)
        spec = importlib.util.spec_from_file_location(f"course_config_{abs(hash(str(path)))}", path)
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as error:  # noqa: BLE001 - a course_config.py that does not run is a setting the course cannot use
            raise SettingsError(f"{path} does not run: {type(error).__name__}: {error}") from None
        values = {}
        for setting in fields(cls):
            if not hasattr(module, setting.name):
                continue
            value, kind, choices = getattr(module, setting.name), setting.metadata["kind"], setting.metadata["choices"]
            if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
                names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
                raise SettingsError(
                    f"{path}: {setting.name} must be {names}, not {value!r} ({setting.metadata['text']})"
                )
            if choices and value not in choices:
                raise SettingsError(f"{path}: {setting.name} is {value!r}; it must be one of: {', '.join(choices)}")
            values[setting.name] = value
        return cls(**values)

    @classmethod
    def help(cls, name: str) -> str:
        """The description of one setting."""
        return next(setting.metadata["text"] for setting in fields(cls) if setting.name == name)
