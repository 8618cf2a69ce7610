"""One user-name rule, from an LMS user to the course's student id and the hub's login name.

`LTI_USERNAME_CLAIM` says which of the LMS's words for a user names them: `sub` (the LTI user id,
always there; Canvas's is a UUID), `email` (what jupyterhub-ltiauthenticator uses by default),
`lis_person_sourcedid` (the institution's id, where the LMS shares it), or a `custom_<field>` the
LMS fills. `login_name` turns that value into a name a Linux account can have (`[a-z_][a-z0-9_-]*`,
at most 32 characters): the value itself where it is one already and does not end as a made name
does, else a readable part of it (an email's local part) and 10 hex digits of its SHA-256 after a
dash. So the name is the same at every launch, a value kept never meets a made name, and two made
names meet only if 40 bits of SHA-256 do. The roster (`LTI_ROSTER`, `python -m autograder lti roster`) keeps
each name beside the LMS user id, which is how a name is read back to its user; it refuses two
users with one name.
"""

from __future__ import annotations

import hashlib
import re

#: The claims a course may name users by (`custom_<field>` too).
CLAIMS = ("sub", "email", "lis_person_sourcedid")
#: A login name as useradd takes it (Debian's NAME_REGEX, lower case), and its longest.
LOGIN = re.compile(r"[a-z_][a-z0-9_-]{0,31}")
MAX_LENGTH = 32
#: Where a launch (id token) carries the custom fields, and the LIS fields.
CUSTOM = "https://purl.imsglobal.org/spec/lti/claim/custom"
LIS = "https://purl.imsglobal.org/spec/lti/claim/lis"
#: How a made name ends: a dash and the hex digits of the value's digest.
MADE = re.compile(r"-[0-9a-f]{10}")
DIGITS = 10


class UserNameError(ValueError):
    """A claim the rule cannot use, or a user without it (one line)."""


def check_claim(claim: str) -> str:
    """`claim` where the rule can use it (one of `CLAIMS` or `custom_<field>`); UserNameError otherwise."""
    if claim in CLAIMS or re.fullmatch(r"custom_[A-Za-z0-9_]+", claim):
        return claim
    raise UserNameError(f"LTI_USERNAME_CLAIM is {claim!r}: it must be one of {', '.join(CLAIMS)} or custom_<field>")


def login_name(value: str) -> str:
    """The login name of the user the LMS names `value` (see the module's docstring): stable,
    valid for a Linux account, and different for different values."""
    text = value.strip()
    if not text:
        raise UserNameError("an empty user name")
    if LOGIN.fullmatch(text) and not MADE.search(text[-DIGITS - 1 :]):
        return text
    readable = text.split("@", 1)[0].lower() if "@" in text else text.lower()
    readable = re.sub(r"[^a-z0-9]+", "-", readable).strip("-")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:DIGITS]
    if not readable or not readable[0].isalpha():
        readable = "u" + readable
    return f"{readable[: MAX_LENGTH - DIGITS - 1].rstrip('-')}-{digest}"


def claim_of(member: dict, claim: str) -> str | None:
    """The value of `claim` in an LMS member (Names and Roles) or launch (id token), None where it is not there."""
    if claim.startswith("custom_"):
        custom = member.get(CUSTOM) or member.get("custom") or {}
        value = custom.get(claim.removeprefix("custom_")) if isinstance(custom, dict) else None
    elif claim == "sub":  # a launch's `sub` is the member's `user_id` in Names and Roles
        value = member.get("sub", member.get("user_id"))
    elif claim == "lis_person_sourcedid" and claim not in member:
        lis = member.get(LIS)  # a launch carries it as the LIS claim's person_sourcedid
        value = lis.get("person_sourcedid") if isinstance(lis, dict) else None
    else:
        value = member.get(claim)
    return value.strip() if isinstance(value, str) and value.strip() else None
