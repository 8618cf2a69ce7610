"""A small LTI 1.3 platform (the LMS side) served on 127.0.0.1 for the tests to drive a real tool.

It implements the IMS Assignment and Grade Services 2.0 line-item and score endpoints, the Names
and Role Provisioning Services 2.0 context membership (paged by `Link: rel="next"`), the
OAuth2 client-credentials grant with an RS256 JWT client assertion (IMS Security Framework,
RFC 7523), and a resource link launch: the third-party login initiation a browser is sent to
(`login_initiation`), and the OpenID Connect authentication request (`/authorize`) answered, for a
registered redirect URI, with the auto-posting form of a signed id token carrying the request's nonce.
Signatures are verified with jwcrypto against the tool's registered JWKS and the
platform keeps its own state (tokens, seen `jti`s, line items, scores); every request it receives
is recorded in `calls` with the status it was answered with.
"""

from __future__ import annotations

import html
import json
import re
import secrets
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlencode

import jwt as pyjwt
from jwcrypto import jwk, jwt

AGS = "https://purl.imsglobal.org/spec/lti-ags/scope/"
LINEITEM, SCORE = AGS + "lineitem", AGS + "score"
RESULT_READONLY, LINEITEM_READONLY = AGS + "result.readonly", AGS + "lineitem.readonly"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
SCOPES = frozenset({LINEITEM, SCORE, RESULT_READONLY, LINEITEM_READONLY, NRPS})
MEMBERSHIP_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
MEMBERS_PATH = "/api/lti/courses/7/names_and_roles"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
CONTAINER_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
ACTIVITY = {"Initialized", "Started", "InProgress", "Submitted", "Completed"}
GRADING = {"FullyGraded", "Pending", "PendingManual", "Failed", "NotReady"}
LINEITEMS_PATH = "/api/lti/courses/7/line_items"
ITEM_PATH = re.compile(re.escape(LINEITEMS_PATH) + r"/(\d+)(/scores)?")
COMPACT_JWS = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")
LTI = "https://purl.imsglobal.org/spec/lti/claim/"
SKEW = 60  # seconds of clock skew allowed on `iat`


@dataclass
class Call:
    """One HTTP request the platform received, with the status it answered."""

    method: str
    path: str
    query: str
    status: int
    body: str  # the request body text


class Reply(Exception):
    """Ends a request with this status, JSON body and extra headers."""

    def __init__(
        self, status: int, body: Any, headers: dict[str, str] | None = None, content_type: str = "application/json"
    ) -> None:
        super().__init__(status)
        self.status, self.body, self.headers, self.content_type = status, body, headers or {}, content_type


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _media_type(header: str | None) -> str:
    return (header or "").split(";")[0].strip().lower()


class Platform:
    """The platform: `with Platform(tool_jwks) as lms: ...` serves it on a free port."""

    def __init__(
        self,
        tool_jwks: dict | None = None,
        page_size: int = 2,
        token_seconds: int = 3600,
        lineitems_query: str = "type_id=3",
    ) -> None:
        self.tool_jwks = tool_jwks
        self.page_size, self.token_seconds, self.lineitems_query = page_size, token_seconds, lineitems_query
        self.client_id, self.deployment_id = "rnn-course-tool", "1"
        self.calls: list[Call] = []
        self.lineitems: dict[str, dict] = {}
        self.members: list[dict] = []  # NRPS members, as the platform lists them
        self.scores: dict[str, dict[str, dict]] = {}
        self.refuse: dict[str, tuple[int, str]] = {}
        self.tokens: dict[str, tuple[frozenset[str], float]] = {}  # token -> (scopes, expires at)
        self.jtis: set[str] = set()
        self.key: jwk.JWK | None = None
        self.people: dict[str, dict] = {}  # login hint -> the claims of that person's launches
        self.redirect_uris: set[str] = set()  # where the tool registered that id tokens may go
        self.target_link_uri = ""
        self._lock = threading.Lock()
        self._next_item = 1
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- life cycle and addresses ------------------------------------------------------------
    def start(self) -> Platform:
        """Makes the platform's RSA key and serves on 127.0.0.1 from a background thread."""
        self.key = jwk.JWK.generate(kty="RSA", size=2048, kid="platform-1")
        platform = self

        class Handler(_Handler):
            lms = platform

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="lti-platform", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stops serving and joins the thread."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            assert self._thread is not None
            self._thread.join()
            self._server = self._thread = None

    def __enter__(self) -> Platform:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the platform is not started")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    issuer = url

    @property
    def token_url(self) -> str:
        return f"{self.url}/token"

    @property
    def keyset_url(self) -> str:
        return f"{self.url}/jwks"

    @property
    def members_url(self) -> str:
        return f"{self.url}{MEMBERS_PATH}"

    @property
    def lineitems_url(self) -> str:
        query = f"?{self.lineitems_query}" if self.lineitems_query else ""
        return f"{self.url}{LINEITEMS_PATH}{query}"

    @property
    def authorize_url(self) -> str:
        return f"{self.url}/authorize"

    def login_initiation(self, login_hint: str) -> dict[str, str]:
        """What the LMS has a browser post to the tool's login initiation URL to launch `login_hint`."""
        return {
            "iss": self.issuer,
            "login_hint": login_hint,
            "target_link_uri": self.target_link_uri,
            "client_id": self.client_id,
            "lti_deployment_id": self.deployment_id,
            "lti_message_hint": f"link-1:{login_hint}",
        }

    # -- helpers for tests -------------------------------------------------------------------
    def expire_tokens(self) -> None:
        """Every token issued so far becomes expired: its next use is answered 401."""
        with self._lock:
            self.tokens = {token: (scopes, 0.0) for token, (scopes, _) in self.tokens.items()}

    def count(self, method: str, path_suffix: str) -> int:
        """How many calls had this method and a path (without query) ending with `path_suffix`."""
        with self._lock:
            return sum(c.method == method and c.path.endswith(path_suffix) for c in self.calls)

    def add_lineitem(self, label: str, score_maximum: float, **fields: Any) -> dict:
        """Stores a line item as if a tool had created it; returns it (with its `id`)."""
        with self._lock:
            return self._store_lineitem({"label": label, "scoreMaximum": score_maximum, **fields})

    def _store_lineitem(self, item: dict) -> dict:
        item = {**item, "id": f"{self.url}{LINEITEMS_PATH}/{self._next_item}"}
        self._next_item += 1
        self.lineitems[item["id"]] = item
        return item

    # -- token endpoint ----------------------------------------------------------------------
    def _token(self, content_type: str, body: str) -> dict:
        if content_type != "application/x-www-form-urlencoded":
            raise Reply(400, {"error": "invalid_request"})
        form = dict(parse_qsl(body, keep_blank_values=True))
        if form.get("grant_type") != "client_credentials":
            raise Reply(400, {"error": "unsupported_grant_type"})
        if form.get("client_assertion_type") != ASSERTION_TYPE or not form.get("client_assertion"):
            raise Reply(400, {"error": "invalid_client"})
        claims = self._verify_assertion(form["client_assertion"])
        requested = list(dict.fromkeys(form.get("scope", "").split()))
        if not requested or not set(requested) <= SCOPES:
            raise Reply(400, {"error": "invalid_scope"})
        with self._lock:
            if claims["jti"] in self.jtis:
                raise Reply(400, {"error": "invalid_grant", "error_description": "jti replayed"})
            self.jtis.add(claims["jti"])
            token = secrets.token_urlsafe(24)
            self.tokens[token] = (frozenset(requested), time.time() + self.token_seconds)
        return {
            "access_token": token,
            "token_type": "Bearer",
            "expires_in": self.token_seconds,
            "scope": " ".join(requested),
        }

    def _verify_assertion(self, assertion: str) -> dict:
        """The claims of an RS256 client assertion signed by a key of `tool_jwks`, checked."""

        def refuse(error: str, why: str) -> Reply:
            return Reply(400, {"error": error, "error_description": why})

        if not self.tool_jwks or not COMPACT_JWS.fullmatch(assertion):
            raise refuse("invalid_client", "no tool key or not a compact JWS")
        try:
            keys = jwk.JWKSet.from_json(json.dumps(self.tool_jwks))
            token = jwt.JWT(jwt=assertion, key=keys, algs=["RS256"], check_claims=False)
            claims = json.loads(token.claims)
        except Exception as e:  # noqa: BLE001 - any failure to verify is the client's
            raise refuse("invalid_client", f"signature: {type(e).__name__}") from None
        if not isinstance(claims, dict) or claims.get("iss") != self.client_id or claims.get("sub") != self.client_id:
            raise refuse("invalid_client", "iss and sub must be the client id")
        aud = claims.get("aud")
        if not any(a in (self.token_url, self.issuer) for a in (aud if isinstance(aud, list) else [aud])):
            raise refuse("invalid_grant", "aud")
        now = time.time()
        if not _number(claims.get("exp")) or claims["exp"] <= now:
            raise refuse("invalid_grant", "exp")
        if not _number(claims.get("iat")) or claims["iat"] > now + SKEW:
            raise refuse("invalid_grant", "iat")
        if not isinstance(claims.get("jti"), str) or not claims["jti"]:
            raise refuse("invalid_grant", "jti")
        return claims

    # -- AGS endpoints -----------------------------------------------------------------------
    def _authorize(self, header: str | None, allowed: set[str]) -> None:
        token = header[len("Bearer ") :].strip() if header and header.startswith("Bearer ") else ""
        with self._lock:
            scopes, until = self.tokens.get(token, (frozenset(), 0.0))
        if time.time() >= until:
            raise Reply(
                401,
                {"errors": {"message": "invalid access token"}},
                {"WWW-Authenticate": 'Bearer error="invalid_token"'},
            )
        if not scopes & allowed:
            raise Reply(
                403,
                {"errors": {"message": "insufficient scope"}},
                {"WWW-Authenticate": 'Bearer error="insufficient_scope"'},
            )

    def _list_lineitems(self, query: str) -> Reply:
        params = dict(parse_qsl(query))
        try:
            page = int(params.get("page", "1"))
        except ValueError:
            raise Reply(400, {"errors": {"message": "bad page"}}) from None
        filters = {k: params[k] for k in ("resource_id", "resource_link_id", "tag") if k in params}
        key = {"resource_id": "resourceId", "resource_link_id": "resourceLinkId", "tag": "tag"}
        with self._lock:
            items = [i for i in self.lineitems.values() if all(i.get(key[k]) == v for k, v in filters.items())]
        start = (page - 1) * self.page_size
        headers = {}
        if page >= 1 and start + self.page_size < len(items):
            kept = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k != "page"]
            headers["Link"] = f'<{self.url}{LINEITEMS_PATH}?{urlencode(kept + [("page", page + 1)])}>; rel="next"'
        page_items = items[start : start + self.page_size] if page >= 1 else []
        return Reply(200, page_items, headers, CONTAINER_TYPE)

    def _create_lineitem(self, content_type: str, body: str) -> Reply:
        if content_type != LINEITEM_TYPE:
            raise Reply(415, {"errors": {"message": f"content type must be {LINEITEM_TYPE}"}})
        item = _json_object(body)
        if not _number(item.get("scoreMaximum")) or item["scoreMaximum"] <= 0:
            raise Reply(400, {"errors": {"message": "scoreMaximum must be a number > 0"}})
        if not isinstance(item.get("label"), str) or not item["label"].strip():
            raise Reply(400, {"errors": {"message": "label is required"}})
        item.pop("id", None)
        with self._lock:
            stored = self._store_lineitem(item)
        return Reply(201, stored, {}, LINEITEM_TYPE)

    def _post_score(self, item_id: str, content_type: str, body: str) -> Reply:
        if content_type != SCORE_TYPE:
            raise Reply(415, {"errors": {"message": f"content type must be {SCORE_TYPE}"}})
        score = _json_object(body)
        user, stamp = score.get("userId"), score.get("timestamp")
        if not isinstance(user, str) or not user:
            raise Reply(400, {"errors": {"message": "userId is required"}})
        when = _instant(stamp)
        if score.get("activityProgress") not in ACTIVITY or score.get("gradingProgress") not in GRADING:
            raise Reply(400, {"errors": {"message": "activityProgress or gradingProgress invalid"}})
        if "scoreGiven" in score:
            given, maximum = score.get("scoreGiven"), score.get("scoreMaximum")
            if not (_number(given) and _number(maximum) and given >= 0 and maximum >= 0):
                raise Reply(400, {"errors": {"message": "scoreGiven and scoreMaximum must be numbers >= 0"}})
            if given > maximum:
                raise Reply(400, {"errors": {"message": "ScoreGiven exceeds ScoreMaximum"}})
        if user in self.refuse:
            status, message = self.refuse[user]
            raise Reply(status, {"errors": {"message": message}})
        with self._lock:
            results = self.scores.setdefault(item_id, {})
            if user in results and _instant(results[user]["timestamp"]) > when:
                raise Reply(409, {"errors": {"message": "a later score is on record"}})
            results[user] = score
        return Reply(200, {})

    # -- NRPS endpoint -----------------------------------------------------------------------
    def _list_members(self, query: str, accept: str | None) -> Reply:
        if MEMBERSHIP_TYPE not in (accept or ""):
            raise Reply(406, {"errors": {"message": f"Accept must name {MEMBERSHIP_TYPE}"}})
        try:
            page = int(dict(parse_qsl(query)).get("page", "1"))
        except ValueError:
            raise Reply(400, {"errors": {"message": "bad page"}}) from None
        with self._lock:
            members = list(self.members)
        start = (page - 1) * self.page_size
        headers = {}
        if page >= 1 and start + self.page_size < len(members):
            headers["Link"] = f'<{self.members_url}?page={page + 1}>; rel="next"'
        body = {
            "id": self.members_url,
            "context": {"id": "7", "label": "RNN", "title": "Recurrent networks"},
            "members": members[start : start + self.page_size] if page >= 1 else [],
        }
        return Reply(200, body, headers, MEMBERSHIP_TYPE)

    def _update_lineitem(self, item_id: str, content_type: str, body: str) -> Reply:
        if content_type != LINEITEM_TYPE:
            raise Reply(415, {"errors": {"message": f"content type must be {LINEITEM_TYPE}"}})
        item = _json_object(body)
        if not _number(item.get("scoreMaximum")) or item["scoreMaximum"] <= 0:
            raise Reply(400, {"errors": {"message": "scoreMaximum must be a number > 0"}})
        with self._lock:
            stored = self.lineitems[item_id] = {**self.lineitems[item_id], **item, "id": item_id}
        return Reply(200, stored, {}, LINEITEM_TYPE)

    # -- the launch: the OpenID Connect authentication request ---------------------------------
    def _launch(self, fields: dict[str, str]) -> Reply:
        """The id token of the person `login_hint` names, in a form that posts it to the redirect URI."""
        wanted = {"response_type": "id_token", "scope": "openid", "response_mode": "form_post", "prompt": "none"}
        wrong = [name for name, value in wanted.items() if fields.get(name) != value]
        if wrong or fields.get("client_id") != self.client_id or not fields.get("nonce"):
            raise Reply(400, {"errors": {"message": f"bad authentication request ({', '.join(wrong) or 'client'})"}})
        if fields.get("redirect_uri") not in self.redirect_uris:
            raise Reply(400, {"errors": {"message": "redirect_uri is not registered"}})
        person = self.people.get(fields.get("login_hint", ""))
        if person is None or fields.get("lti_message_hint") != f"link-1:{fields['login_hint']}":
            raise Reply(403, {"errors": {"message": "no such user or link"}})
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "aud": self.client_id,
            "iat": now,
            "exp": now + 300,
            "nonce": fields["nonce"],
            LTI + "message_type": "LtiResourceLinkRequest",
            LTI + "version": "1.3.0",
            LTI + "deployment_id": self.deployment_id,
            LTI + "target_link_uri": self.target_link_uri,
            LTI + "resource_link": {"id": "link-1", "title": "Recurrent networks on the hub"},
            LTI + "context": {"id": "7", "label": "RNN", "title": "Recurrent networks"},
            **person,
        }
        assert self.key is not None
        token = pyjwt.encode(
            claims, self.key.export_to_pem(private_key=True, password=None), "RS256", {"kid": self.key.get("kid")}
        )
        page = (
            f'<form method="post" action="{html.escape(fields["redirect_uri"])}">'
            f'<input type="hidden" name="id_token" value="{token}">'
            f'<input type="hidden" name="state" value="{html.escape(fields.get("state", ""))}"></form>'
        )
        return Reply(200, page, {}, "text/html")

    def handle(self, method: str, path: str, query: str, headers: Any, body: str) -> Reply:
        """Routes one request; raises or returns the Reply to send."""
        content_type = _media_type(headers.get("Content-Type"))
        if path == "/authorize" and method in ("GET", "POST"):
            return self._launch(dict(parse_qsl(query if method == "GET" else body)))
        if path == "/jwks" and method == "GET":
            assert self.key is not None
            return Reply(200, {"keys": [self.key.export_public(as_dict=True)]})
        if path == "/token" and method == "POST":
            return Reply(200, self._token(content_type, body), {"Cache-Control": "no-store"})
        if path == MEMBERS_PATH:
            if method != "GET":
                raise Reply(405, {"errors": {"message": "method not allowed"}})
            self._authorize(headers.get("Authorization"), {NRPS})
            return self._list_members(query, headers.get("Accept"))
        item = ITEM_PATH.fullmatch(path)
        if path != LINEITEMS_PATH and not item:
            raise Reply(404, {"errors": {"message": "not found"}})
        if path == LINEITEMS_PATH:
            readonly = method == "GET"
            self._authorize(headers.get("Authorization"), {LINEITEM, LINEITEM_READONLY} if readonly else {LINEITEM})
            required = parse_qsl(self.lineitems_query)
            if not set(required) <= set(parse_qsl(query)):
                raise Reply(400, {"errors": {"message": f"the query must carry {self.lineitems_query}"}})
            if method in ("GET", "POST"):
                return self._list_lineitems(query) if readonly else self._create_lineitem(content_type, body)
            raise Reply(405, {"errors": {"message": "method not allowed"}})
        assert item is not None
        scores = bool(item.group(2))
        if (method, scores) not in (("POST", True), ("GET", False), ("PUT", False)):
            raise Reply(405, {"errors": {"message": "method not allowed"}})
        allowed = {SCORE} if scores else {LINEITEM} if method == "PUT" else {LINEITEM, LINEITEM_READONLY}
        self._authorize(headers.get("Authorization"), allowed)
        item_id = f"{self.url}{LINEITEMS_PATH}/{item.group(1)}"
        if item_id not in self.lineitems:
            raise Reply(404, {"errors": {"message": "no such line item"}})
        if scores:
            return self._post_score(item_id, content_type, body)
        if method == "PUT":
            return self._update_lineitem(item_id, content_type, body)
        return Reply(200, self.lineitems[item_id], {}, LINEITEM_TYPE)


def _json_object(body: str) -> dict:
    try:
        value = json.loads(body)
    except ValueError:
        raise Reply(400, {"errors": {"message": "body is not JSON"}}) from None
    if not isinstance(value, dict):
        raise Reply(400, {"errors": {"message": "body must be a JSON object"}})
    return value


def _instant(stamp: Any) -> datetime:
    """An ISO 8601 timestamp with a time zone, else a 400."""
    try:
        when = datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        when = None
    if when is None or when.tzinfo is None:
        raise Reply(400, {"errors": {"message": "timestamp must be ISO 8601 with a time zone"}})
    return when


class _Handler(BaseHTTPRequestHandler):
    """Hands every request to `lms.handle` and records it; never writes to the terminal."""

    lms: Platform

    def _serve(self) -> None:
        path, _, query = self.path.partition("?")
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", errors="replace") if length else ""
        try:
            reply = self.lms.handle(self.command, path, query, self.headers, body)
        except Reply as r:
            reply = r
        except Exception as e:  # noqa: BLE001 - a bug in the platform still answers and is recorded
            reply = Reply(500, {"errors": {"message": repr(e)}})
        data = (reply.body if isinstance(reply.body, str) else json.dumps(reply.body)).encode()
        with self.lms._lock:
            self.lms.calls.append(Call(self.command, path, query, reply.status, body))
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass
