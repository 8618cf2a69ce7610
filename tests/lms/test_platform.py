"""The test LTI platform itself: it grants, refuses, pages and stores as the specs say."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest
from jwcrypto import jwk, jwt

from .platform import ASSERTION_TYPE, LINEITEM, LINEITEM_TYPE, SCORE, SCORE_TYPE, Platform

TOOL_KEY = jwk.JWK.generate(kty="RSA", size=2048, kid="k1")
OTHER_KEY = jwk.JWK.generate(kty="RSA", size=2048, kid="k1")  # same kid, another key


@pytest.fixture
def lms() -> Iterator[Platform]:
    with Platform(tool_jwks={"keys": [TOOL_KEY.export_public(as_dict=True)]}) as platform:
        yield platform


def assertion(lms: Platform, key: jwk.JWK = TOOL_KEY, jti: str | None = None) -> str:
    now = int(time.time())
    claims = {
        "iss": lms.client_id,
        "sub": lms.client_id,
        "aud": lms.token_url,
        "iat": now,
        "exp": now + 300,
        "jti": jti or uuid.uuid4().hex,
    }
    token = jwt.JWT(header={"alg": "RS256", "kid": key.kid}, claims=claims)
    token.make_signed_token(key)
    return token.serialize()


def call(method: str, url: str, body: bytes | None = None, headers: dict | None = None) -> tuple[int, dict, object]:
    """(status, headers, JSON body) of one request, error statuses included."""
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), json.loads(e.read())


def ask_token(lms: Platform, scopes: list[str], **overrides: str) -> tuple[int, dict]:
    form = {
        "grant_type": "client_credentials",
        "client_assertion_type": ASSERTION_TYPE,
        "client_assertion": assertion(lms),
        "scope": " ".join(scopes),
        **overrides,
    }
    status, _, body = call(
        "POST", lms.token_url, urlencode(form).encode(), {"Content-Type": "application/x-www-form-urlencoded"}
    )
    return status, body  # type: ignore[return-value]


def bearer(lms: Platform, scopes: list[str] = [LINEITEM, SCORE]) -> str:  # noqa: B006
    status, body = ask_token(lms, scopes)
    assert status == 200, body
    return body["access_token"]


def post_score(lms: Platform, token: str, item_url: str, query: str = "", **score: object) -> tuple[int, object]:
    score = {
        "userId": "s1",
        "timestamp": "2024-05-01T10:00:00+00:00",
        "activityProgress": "Completed",
        "gradingProgress": "FullyGraded",
        "scoreGiven": 3,
        "scoreMaximum": 5,
        **score,
    }
    status, _, body = call(
        "POST",
        f"{item_url}/scores{query}",
        json.dumps(score).encode(),
        {"Content-Type": SCORE_TYPE, "Authorization": f"Bearer {token}"},
    )
    return status, body


def test_a_token_is_granted_for_the_two_ags_scopes(lms: Platform) -> None:
    status, body = ask_token(lms, [LINEITEM, SCORE])
    assert status == 200
    assert body["token_type"] == "Bearer" and body["expires_in"] == 3600 and body["access_token"]
    assert body["scope"].split() == [LINEITEM, SCORE]
    assert lms.count("POST", "/token") == 1 and lms.calls[-1].status == 200


def test_a_signature_by_another_key_is_refused(lms: Platform) -> None:
    status, body = ask_token(lms, [SCORE], client_assertion=assertion(lms, key=OTHER_KEY))
    assert (status, body["error"]) == (400, "invalid_client")


def test_a_replayed_jti_is_refused(lms: Platform) -> None:
    again = assertion(lms, jti="once")
    assert ask_token(lms, [SCORE], client_assertion=again)[0] == 200
    status, body = ask_token(lms, [SCORE], client_assertion=again)
    assert (status, body["error"]) == (400, "invalid_grant")


def test_a_json_token_request_is_refused(lms: Platform) -> None:
    form = {
        "grant_type": "client_credentials",
        "client_assertion_type": ASSERTION_TYPE,
        "client_assertion": assertion(lms),
        "scope": SCORE,
    }
    status, _, body = call("POST", lms.token_url, json.dumps(form).encode(), {"Content-Type": "application/json"})
    assert (status, body) == (400, {"error": "invalid_request"})
    assert lms.calls[-1].status == 400 and json.loads(lms.calls[-1].body) == form


def test_a_scope_the_platform_does_not_grant_is_refused(lms: Platform) -> None:
    status, body = ask_token(lms, [SCORE, "https://purl.imsglobal.org/spec/lti/scope/noticehandlers"])
    assert (status, body["error"]) == (400, "invalid_scope")
    assert lms.tokens == {}


def test_line_items_page_with_a_next_link_that_keeps_the_query(lms: Platform) -> None:
    token = bearer(lms)
    status, _, created = call(
        "POST",
        lms.lineitems_url,
        json.dumps({"label": "ch11", "scoreMaximum": 5}).encode(),
        {"Content-Type": LINEITEM_TYPE, "Authorization": f"Bearer {token}"},
    )
    assert status == 201 and created["id"] == f"{lms.url}/api/lti/courses/7/line_items/1"
    lms.add_lineitem("ch12 gates", 5)
    lms.add_lineitem("ch12 bptt", 5, resourceId="ch12_bptt")
    auth = {"Authorization": f"Bearer {token}"}
    status, headers, first = call("GET", lms.lineitems_url, headers=auth)
    assert status == 200 and headers["Content-Type"] == "application/vnd.ims.lis.v2.lineitemcontainer+json"
    assert [i["label"] for i in first] == ["ch11", "ch12 gates"]
    next_url = f"{lms.url}/api/lti/courses/7/line_items?type_id=3&page=2"
    assert headers["Link"] == f'<{next_url}>; rel="next"'
    status, headers, second = call("GET", next_url, headers=auth)
    assert [i["label"] for i in second] == ["ch12 bptt"] and "Link" not in headers
    status, _, only = call("GET", lms.lineitems_url + "&resource_id=ch12_bptt", headers=auth)
    assert [i["label"] for i in only] == ["ch12 bptt"]


def test_a_score_is_stored_also_with_the_query_after_scores(lms: Platform) -> None:
    item = lms.add_lineitem("ch11", 5)
    token = bearer(lms)
    assert post_score(lms, token, item["id"]) == (200, {})
    status, _ = post_score(lms, token, item["id"], "?type_id=3", userId="s2")
    assert status == 200 and set(lms.scores[item["id"]]) == {"s1", "s2"}
    assert lms.count("POST", "/scores") == 2
    older = post_score(lms, token, item["id"], timestamp="2024-05-01T09:00:00+00:00", scoreGiven=1)
    assert older[0] == 409 and lms.scores[item["id"]]["s1"]["scoreGiven"] == 3


def test_a_score_above_its_maximum_is_refused(lms: Platform) -> None:
    item = lms.add_lineitem("ch11", 5)
    status, body = post_score(lms, bearer(lms), item["id"], scoreGiven=6)
    assert (status, body) == (400, {"errors": {"message": "ScoreGiven exceeds ScoreMaximum"}})
    assert lms.scores == {}


def test_a_refused_user_gets_its_status(lms: Platform) -> None:
    item = lms.add_lineitem("ch11", 5)
    lms.refuse["s9"] = (422, "User not found in course or is not a student")
    status, body = post_score(lms, bearer(lms), item["id"], userId="s9")
    assert (status, body) == (422, {"errors": {"message": "User not found in course or is not a student"}})
    assert lms.scores == {} and lms.calls[-1].status == 422


def test_an_expired_token_is_answered_401(lms: Platform) -> None:
    item = lms.add_lineitem("ch11", 5)
    token = bearer(lms)
    lms.expire_tokens()
    status, headers, _ = call("GET", item["id"], headers={"Authorization": f"Bearer {token}"})
    assert status == 401 and headers["WWW-Authenticate"] == 'Bearer error="invalid_token"'
    assert post_score(lms, token, item["id"])[0] == 401 and lms.scores == {}


def test_a_score_token_cannot_create_line_items_and_unknown_paths_are_404(lms: Platform) -> None:
    token = bearer(lms, [SCORE])
    status, _, _ = call(
        "POST",
        lms.lineitems_url,
        json.dumps({"label": "x", "scoreMaximum": 1}).encode(),
        {"Content-Type": LINEITEM_TYPE, "Authorization": f"Bearer {token}"},
    )
    assert status == 403 and lms.lineitems == {}
    assert call("GET", f"{lms.url}/nowhere")[0] == 404
    assert [c.status for c in lms.calls] == [200, 403, 404]
