"""The tool's LTI 1.3 registration: the platform's ids and URLs from the course settings, and the
tool's RSA key (`KEY_FILE` in the course root: made on first use with mode 0600, never in the kit or
in git), whose public half the LMS is given as a key set (JWKS)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from jwcrypto.jwk import JWK
from pylti1p3.registration import Registration

from ..coursedir.settings import Settings

#: The tool's private key, in the course root.
KEY_FILE = "lti_private_key.pem"
#: Its size in bits (NIST SP 800-57's RSA size for keys used beyond 2030).
KEY_BITS = 3072
#: The settings every call to the LMS needs, each one the LMS gives on registering the tool.
REGISTRATION = ("LTI_ISSUER", "LTI_CLIENT_ID", "LTI_DEPLOYMENT_ID", "LTI_TOKEN_URL", "LTI_KEYSET_URL")
#: What a grade push needs, and what reading the class list needs.
PUSH = (*REGISTRATION, "LTI_LINEITEMS_URL")
ROSTER = (*REGISTRATION, "LTI_NRPS_URL", "LTI_ROSTER")
#: What the hub needs to log people in through the LMS (a launch), and `lti key` to print its URLs.
LAUNCH = ("LTI_ISSUER", "LTI_CLIENT_ID", "LTI_DEPLOYMENT_ID", "LTI_KEYSET_URL", "LTI_AUTHORIZE_URL")


class RegistrationError(ValueError):
    """The tool cannot speak to the LMS: a setting is missing or the key cannot be used (one line)."""


def private_key(root: Path, made: list[Path] | None = None) -> str:
    """The tool's private key (PEM) at `root`/KEY_FILE, made (RSA of KEY_BITS, mode 0600) when there is
    none (and its path appended to `made`). A key that others may read, or that is not a private RSA
    key, is refused."""
    path = Path(root) / KEY_FILE
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        mode = stat.S_IMODE(path.lstat().st_mode)
        if not path.is_file() or path.is_symlink():
            raise RegistrationError(f"{path} is not a regular file") from None
        if mode & 0o077:
            raise RegistrationError(f"{path} may be read by others (mode {mode:04o}): chmod 600 it") from None
        text = path.read_text(encoding="ascii")
        try:
            key = JWK.from_pem(text.encode("ascii"))
        except (ValueError, TypeError) as error:
            raise RegistrationError(f"{path} is not a private key in PEM ({error})") from None
        if key.get("kty") != "RSA" or not key.has_private:
            raise RegistrationError(f"{path} is not a private RSA key")
        return text
    text = JWK.generate(kty="RSA", size=KEY_BITS).export_to_pem(private_key=True, password=None).decode("ascii")
    with os.fdopen(descriptor, "w", encoding="ascii") as file:
        file.write(text)
    if made is not None:
        made.append(path)
    return text


def public_pem(root: Path) -> str:
    """The public half of the tool's key (PEM)."""
    return JWK.from_pem(private_key(root).encode("ascii")).public().export_to_pem().decode("ascii")


def key_set(root: Path) -> dict:
    """The tool's public key set to register with the LMS: {"keys": [an RS256 signing key with its kid]}."""
    return {"keys": [dict(Registration.get_jwk(public_pem(root)))]}


def key_set_text(root: Path) -> str:
    return json.dumps(key_set(root), indent=2)


def check(settings: Settings, needed: tuple[str, ...]) -> None:
    """RegistrationError naming, at once, every setting of `needed` that is not set."""
    missing = [name for name in needed if not str(getattr(settings, name)).strip()]
    if missing:
        raise RegistrationError(
            f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not set in course_config.py "
            "(docs/lms.md says where the LMS shows each)"
        )


def registration(root: Path, settings: Settings, needed: tuple[str, ...] = PUSH) -> Registration:
    """pylti1p3's `Registration` of the course's platform, signing with the tool's key (its kid in
    the assertion's header); RegistrationError naming every setting of `needed` that is not set."""
    check(settings, needed)
    return (
        Registration()
        .set_issuer(settings.LTI_ISSUER)
        .set_client_id(settings.LTI_CLIENT_ID)
        .set_auth_token_url(settings.LTI_TOKEN_URL)
        .set_key_set_url(settings.LTI_KEYSET_URL)
        .set_tool_private_key(private_key(root))
        .set_tool_public_key(public_pem(root))
    )
