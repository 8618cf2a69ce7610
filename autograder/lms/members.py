"""The class list from the LMS: `python -m autograder lti roster [--dry-run]`.

The course's members are read through LTI 1.3 Names and Role Provisioning Services (NRPS 2.0) from
`LTI_NRPS_URL`, every page (`Link: rel="next"`), with a token of the NRPS scope alone. Each active
learner is named by the course's user-name rule (`autograder.lms.names`, `LTI_USERNAME_CLAIM`);
`LTI_ROSTER` is written with the columns `student_id,lti_user_id` (the rows of students who left
kept, so that their grades still reach their LMS user), and the learners the gradebook does not know
are added to it with their names and email. Members who left (status Inactive, or gone from the
list) are listed, never deleted; instructors and teaching assistants are listed apart; a learner
without the claim, or two learners whose names would be one, are not mapped and are listed with why.
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass, field
from pathlib import Path

import requests
from nbgrader.api import Gradebook
from pylti1p3.exception import LtiException
from pylti1p3.names_roles import NamesRolesProvisioningService

from ..coursedir import config
from ..labels import label
from . import names, registration, roles, roster
from .connection import Connector, stopped

#: The only scope the roster asks for.
SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"


@dataclass(frozen=True)
class Member:
    """One member of the course as the LMS lists it."""

    user_id: str  # the LTI `user_id` (the `sub` of a launch)
    name: str | None  # the login name of the rule, None where the member lacks the claim
    roles: tuple[str, ...]
    active: bool
    given: str = ""
    family: str = ""
    email: str = ""

    @property
    def staff(self) -> bool:
        return roles.is_staff(self.roles)


@dataclass
class Outcome:
    """What a roster read found: learners added to the course, learners kept, those who left,
    staff, and learners it could not map (user id, why); `stopped` where the LMS could not be read."""

    joined: list[Member] = field(default_factory=list)
    kept: list[Member] = field(default_factory=list)
    left: list[str] = field(default_factory=list)
    staff: list[Member] = field(default_factory=list)
    unmapped: list[tuple[str, str]] = field(default_factory=list)
    stopped: str = ""

    @property
    def exit_code(self) -> int:
        """0: every learner taken; 1: some could not be mapped; 2: stopped."""
        return 2 if self.stopped else 1 if self.unmapped else 0


def member(entry: dict, claim: str) -> Member:
    """A member of an NRPS membership container, named by `claim`."""
    value = names.claim_of(entry, claim)
    return Member(
        str(entry.get("user_id", "")),
        names.login_name(value) if value else None,
        tuple(str(role) for role in entry.get("roles") or ()),
        str(entry.get("status", "Active")) == "Active",
        str(entry.get("given_name") or ""),
        str(entry.get("family_name") or ""),
        str(entry.get("email") or ""),
    )


def read(root: Path, dry_run: bool = False) -> Outcome:
    """Read the class list from the LMS and, unless `dry_run`, write `LTI_ROSTER` and add the new
    learners to the gradebook. Raises RegistrationError, RosterError or names.UserNameError before
    the LMS is asked anything."""
    root = Path(root)
    settings = config.load(root)
    registration.check(settings, registration.ROSTER)
    claim = names.check_claim(settings.LTI_USERNAME_CLAIM)
    before = roster.user_ids(root, settings) if (root / settings.LTI_ROSTER).is_file() else {}
    reg = registration.registration(root, settings, registration.ROSTER)
    service = NamesRolesProvisioningService(Connector(reg), {"context_memberships_url": settings.LTI_NRPS_URL})
    outcome = Outcome()
    try:
        members = [member(entry, claim) for entry in service.get_members()]
    except (LtiException, requests.RequestException) as error:
        outcome.stopped = str(stopped(error, "the class list"))
        return outcome
    learners = [m for m in members if not m.staff]
    outcome.staff = [m for m in members if m.staff]
    by_name: dict[str, list[Member]] = {}
    for learner in learners:
        if learner.name is None:
            outcome.unmapped.append((learner.user_id, label("lti.no_claim", claim=claim)))
        elif learner.active:
            by_name.setdefault(learner.name, []).append(learner)
    taken = {}
    for name, same in sorted(by_name.items()):
        if len(same) > 1:
            outcome.unmapped += [(m.user_id, label("lti.same_name", name=name)) for m in same]
        else:
            taken[name] = same[0]
    url = config.database_url(root, settings)
    with Gradebook(url, settings.COURSE_ID) as gradebook:
        known = {student.id for student in gradebook.students}
    for name, learner in taken.items():
        (outcome.kept if name in known else outcome.joined).append(learner)
    outcome.left = sorted((set(before or {}) | known) - set(taken))
    if dry_run:
        return outcome
    rows = {**(before or {}), **{name: learner.user_id for name, learner in taken.items()}}
    _write(root / settings.LTI_ROSTER, rows)
    with Gradebook(url, settings.COURSE_ID) as gradebook:
        for learner in outcome.joined:
            gradebook.update_or_create_student(
                learner.name, first_name=learner.given, last_name=learner.family, email=learner.email or None
            )
    return outcome


def _write(path: Path, rows: dict[str, str]) -> None:
    """`LTI_ROSTER` as `roster.user_ids` reads it, written whole (a new file put in the old one's place)."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(roster.COLUMNS)
    writer.writerows(sorted(rows.items()))
    fresh = path.with_name(f".{path.name}.new")
    fresh.write_text(text.getvalue(), encoding="utf-8")
    os.replace(fresh, path)
