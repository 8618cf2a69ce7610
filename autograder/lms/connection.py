"""How the tool speaks to the LMS: pylti1p3's service connector with a timeout on every request and
its access token kept for the life of one command, and the one line a refusal or a failure becomes.
The grade push (`push`) and the class list (`members`) use it, each asking for its own scopes only."""

from __future__ import annotations

import requests
from pylti1p3.exception import LtiServiceException
from pylti1p3.service_connector import ServiceConnector

from ..coursedir.ledger import now
from ..intake.escape import shown

#: Seconds the platform may take to answer one request.
TIMEOUT = 30
#: Seconds before its end that a token is no longer used.
TOKEN_MARGIN = 10


class Stopped(RuntimeError):
    """The command cannot go on (one line): the platform cannot be reached, refused the token or failed."""


class _Session(requests.Session):
    """requests' session with a timeout on every request: a platform that does not answer stops the command."""

    def request(self, *args, **kwargs):
        kwargs.setdefault("timeout", TIMEOUT)
        return super().request(*args, **kwargs)


class Connector(ServiceConnector):
    """pylti1p3's connector with its token kept for the life of the command (until `TOKEN_MARGIN`
    seconds before it ends), and asked for again once when the platform answers 401."""

    def __init__(self, reg):
        super().__init__(reg, _Session())
        self._tokens: dict[str, tuple[str, float]] = {}

    def _get_cached_access_token(self, scope_key: str) -> str | None:
        token, until = self._tokens.get(scope_key, ("", 0.0))
        return token if token and now().timestamp() < until else None

    def _cache_access_token(self, scope_key: str, access_token: str, expires_in: float) -> None:
        self._tokens[scope_key] = (access_token, now().timestamp() + float(expires_in or 0) - TOKEN_MARGIN)

    def make_service_request(self, scopes, url, **kwargs):
        try:
            return super().make_service_request(scopes, url, **kwargs)
        except LtiServiceException as error:
            if error.response.status_code != 401:
                raise
            self._tokens.pop(self._scope_key(sorted(scopes)), None)
            return super().make_service_request(scopes, url, **kwargs)

    def put(self, scopes, url: str, body: dict, content_type: str) -> dict:
        """PUT `body` as JSON to `url` with a token of `scopes` (pylti1p3 sends GET and POST only);
        the platform's answer, LtiServiceException where it refused."""
        headers = {"Authorization": "Bearer " + self.get_access_token(scopes), "Content-Type": content_type}
        response = self._requests_session.put(url, json=body, headers=headers)
        if not response.ok:
            raise LtiServiceException(response)
        return response.json() if response.content else {}


def platform_message(response: requests.Response) -> str:
    """What the platform said of a refused request, as one shown line: its JSON error message where
    it gives one (Canvas's {"errors": {"message"}} or [{"message"}], {"error", "error_description"},
    {"message"}), else the start of its text."""
    try:
        body = response.json()
    except ValueError:
        body = None
    message = None
    if isinstance(body, dict):
        errors = body.get("errors")
        if isinstance(errors, dict):
            message = errors.get("message")
        elif isinstance(errors, list) and errors and isinstance(errors[0], dict):
            message = errors[0].get("message")
        message = message or body.get("error_description") or body.get("message") or body.get("error")
    text = str(message) if message else response.text
    return shown(f"HTTP {response.status_code}: {' '.join(text.split())[:300]}")


def token_request(response: requests.Response) -> bool:
    """Whether `response` answered the request for an access token (a POST of grant_type)."""
    body = response.request.body if response.request is not None else None
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body or "")
    return "grant_type=client_credentials" in text


def stopped(error: Exception, what: str) -> Stopped:
    """Why the command stops, in one line: the token refused, the platform's answer, or no answer."""
    if isinstance(error, LtiServiceException):
        if token_request(error.response):
            return Stopped(f"the LMS refused the tool's access token request: {platform_message(error.response)}")
        return Stopped(f"{what}: {platform_message(error.response)}")
    if isinstance(error, requests.RequestException):
        return Stopped(f"the LMS cannot be reached ({shown(type(error).__name__)})")
    return Stopped(f"{what}: {shown(str(error))[:300]}")
