"""The OpenAPI document is honest: schemathesis, with every check, finds nothing against it.

Schemathesis reads `/openapi.json` from the ASGI app in-process (no network), generates requests
from it (examples, coverage, fuzzing, stateful sequences through `/tasks`), positive and negative,
and checks every answer: no 5xx, documented status codes, content types, headers and bodies,
valid data accepted, invalid data rejected, auth enforced, a deleted task gone, a created one
readable, 405 with `Allow`. The app has an API key and a fresh database per run (SQLite, or
PostgreSQL under `SUIKOU_TEST_BACKEND=postgresql`); chat turns run the offline model. Runs are
derandomized with a fixed seed, so a failure is reproducible.

Every `user` message must have content (a string that is not blank, or some parts): the document
states it. One rule is beyond JSON Schema and so beyond the generator: the last `user` message's
parts must be text, with some words. The document says so in words; `last_user_message_has_text`
keeps the positive cases to it (negative cases are sent as generated).

The second rule beyond JSON Schema: a task's `recurrence.rule` must be one `core.recurrence.make`
accepts from the task's deadline (FREQ given once, INTERVAL and COUNT in range, not COUNT with
UNTIL, occurring at all; the pattern says only which parts and values), and a repeating task needs a
deadline. The `rule` description says so; `rule_is_accepted` keeps positive cases to rules `make`
takes from the body's own deadline, and leaves out a positive PATCH that sets a rule without a
deadline, or clears the deadline without ending the repetition: whether that is valid depends on
the task as stored, which the generator can't see.
"""

from __future__ import annotations

import json
import logging
import time
from datetime import datetime
from typing import Any

import jsonschema
import pytest
import schemathesis
from fastapi.testclient import TestClient
from schemathesis.engine import events, from_schema

from app.main import create_app
from app.wire import TEXT_PART_TYPES
from core import recurrence, reminderspec

SEED = 20261201
TIMEZONE = "Asia/Shanghai"  # the harness's default zone: a rule's deadline is read in it
MAX_EXAMPLES = 40
# Generous: the check is on so that a pathological slowdown fails, not to benchmark a busy machine.
MAX_RESPONSE_TIME_S = 10.0


def _has_text(content: Any) -> bool:
    if isinstance(content, str):
        return bool(content.strip())
    if isinstance(content, list):
        texts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") in TEXT_PART_TYPES]
        return len(texts) == len(content) and bool("\n".join(t for t in texts if isinstance(t, str)).strip())
    return False


def last_user_message_has_text(_context: Any, case: schemathesis.Case) -> bool:
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return True
    messages = case.body.get("messages") if isinstance(case.body, dict) else None
    if not isinstance(messages, list):
        return True
    users = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    return not users or _has_text(users[-1].get("content"))


def _rule_takes(rule: Any, deadline: Any, tz: str) -> bool:
    if not isinstance(rule, str) or not isinstance(deadline, str):
        return False
    try:
        recurrence.make(rule, start=datetime.fromisoformat(deadline), tz=tz)
    except (recurrence.RuleError, ValueError):
        return False
    return True


def rule_is_accepted(_context: Any, case: schemathesis.Case) -> bool:
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return True
    body = case.body if isinstance(case.body, dict) else None
    if body is None or not case.path.startswith("/tasks") or case.method.upper() not in ("POST", "PATCH"):
        return True
    rec = body.get("recurrence")
    if isinstance(rec, dict):
        headers = {k.lower(): v for k, v in (case.headers or {}).items()}
        return _rule_takes(rec.get("rule"), body.get("deadline_at"), headers.get("x-suikou-timezone", TIMEZONE))
    clears_deadline = "deadline_at" in body and body["deadline_at"] is None
    return not (case.method.upper() == "PATCH" and clears_deadline and "recurrence" not in body)


def reminders_are_accepted(_context: Any, case: schemathesis.Case) -> bool:
    """What the document can't say about reminders: a lead needs a deadline (the task's, for a PATCH),
    and a lead is at most 366 days."""
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return True
    body = case.body if isinstance(case.body, dict) else None
    if body is None or not case.path.startswith("/tasks") or not isinstance(body.get("reminders"), list):
        return True
    leads = [r.get("before") for r in body["reminders"] if isinstance(r, dict) and r.get("before") is not None]
    if not leads:
        return True
    if case.method.upper() == "PATCH" and "deadline_at" not in body:
        return False  # whether the task has a deadline is not in the request
    try:
        return body.get("deadline_at") is not None and all(
            reminderspec.parse_duration(b) <= reminderspec.MAX_BEFORE for b in leads
        )
    except ValueError:
        return False


def webhook_url_is_public(_context: Any, case: schemathesis.Case) -> bool:
    """A webhook's URL must resolve to a public address: not something generated offline (no DNS
    here); POST /webhooks with such URLs is tested in tests/app/test_webhooks_api.py."""
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return True
    return not (case.path == "/webhooks" and case.method.upper() == "POST")


def import_files_are_files(_context: Any, case: schemathesis.Case) -> bool:
    """POST /import's body is a TickTick/Todoist/Suikou file: JSON Schema can only say "a string", so a
    generated one is a malformed file (a 400, rightly); real files are in tests/app/test_exchange_api.py."""
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return True
    return not (case.path == "/import" and case.method.upper() == "POST")


def run_schemathesis(app: Any, key: str) -> tuple[set[str], list[str], list[str], float]:
    """Every phase and check against the app: the operations tested, the failures and errors found,
    and the run time."""
    config = schemathesis.Config.from_dict(
        {
            "seed": SEED,
            "headers": {"Authorization": f"Bearer {key}"},
            "generation": {"max-examples": MAX_EXAMPLES, "deterministic": True},
            "checks": {
                "max_response_time": MAX_RESPONSE_TIME_S,
                # Its heuristic counts only a DELETE as taking a created resource away; here
                # `POST /changes/{id}/revert` of a create deletes the task by design, so a GET after
                # it is a 404 it flags (seen with this seed). Created tasks being readable is
                # checked directly (tests/app/test_tasks_api.py, tests/app/test_changes_api.py).
                "ensure_resource_availability": {"enabled": False},
            },
        }
    )
    schema = schemathesis.openapi.from_asgi("/openapi.json", app, config=config)
    schema.hook("filter_case")(last_user_message_has_text)
    schema.hook("filter_case")(rule_is_accepted)
    schema.hook("filter_case")(reminders_are_accepted)
    schema.hook("filter_case")(webhook_url_is_public)
    schema.hook("filter_case")(import_files_are_files)
    failures: dict[tuple[str, str, str], str] = {}
    errors: list[str] = []
    tested: set[str] = set()
    started = time.monotonic()
    for event in from_schema(schema).execute():
        if isinstance(event, events.ScenarioFinished):
            tested.add(event.recorder.label)
            for checks in event.recorder.checks.values():
                for check in checks:
                    if check.failure_info is not None:
                        info = check.failure_info
                        where = (event.recorder.label, check.name, str(info.failure.title))
                        failures.setdefault(where, f"{info.failure.message}\n{info.code_sample}")
        elif isinstance(event, events.NonFatalError):
            errors.append(f"{event.label}: {event.info.message}")
        elif isinstance(event, events.FatalError):
            errors.append(repr(event.exception))
    found = [f"{label} | {name} | {title}\n{detail}" for (label, name, title), detail in failures.items()]
    return tested, found, errors, time.monotonic() - started


def test_schemathesis_finds_nothing(harness: Any, caplog: pytest.LogCaptureFixture) -> None:
    key = harness.api_key("alice")
    app = create_app(harness.state.settings, state=harness.state)
    with caplog.at_level(logging.ERROR, logger="suikou"):
        tested, failures, errors, elapsed = run_schemathesis(app, key)
    assert errors == []
    documented = {f"{method} {path}" for method, path, _ in operations(app.openapi())}
    assert documented <= tested, documented - tested
    assert failures == [], "\n\n".join(failures)
    # Nothing unexpected reached the error boundary either (it answers 500s, which would fail above).
    assert [r for r in caplog.records if r.name == "suikou"] == []
    print(f"schemathesis: {elapsed:.1f}s")


# --- the document's own claims -------------------------------------------------------------------


@pytest.fixture
def doc(harness: Any) -> dict[str, Any]:
    with TestClient(create_app(harness.state.settings, state=harness.state)) as client:
        r = client.get("/openapi.json")
    assert r.status_code == 200
    document: dict[str, Any] = r.json()
    return document


def operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(method.upper(), path, op) for path, ops in doc["paths"].items() for method, op in ops.items()]


def test_no_422_anywhere(doc: dict[str, Any]) -> None:
    # Validation errors are 400s in OpenAI's envelope; FastAPI's 422 is never sent.
    assert all("422" not in op["responses"] for _, _, op in operations(doc))
    assert "HTTPValidationError" not in doc["components"]["schemas"]
    assert "422" not in json.dumps(doc["paths"])


def test_every_error_status_has_the_envelope(doc: dict[str, Any]) -> None:
    for method, path, op in operations(doc):
        errors = {code: r for code, r in op["responses"].items() if int(code) >= 400}
        assert "500" in errors, (method, path)
        for code, response in errors.items():
            schema = response["content"]["application/json"]["schema"]
            assert schema == {"$ref": "#/components/schemas/ErrorResponse"}, (method, path, code)
    envelope = doc["components"]["schemas"]["ErrorDetail"]
    assert set(envelope["required"]) == {"message", "type", "param", "code"}


def test_statuses_each_operation_can_answer(doc: dict[str, Any]) -> None:
    declared = {(method, path): set(op["responses"]) for method, path, op in operations(doc)}
    # app/guard.py answers before routing: 421 for a Host not served, 403 for a write from another origin.
    read, write = {"421"}, {"403", "421"}
    with_body = {"400", "401", "413", "415", "500", "503"} | write
    keyed = {"409"}  # an Idempotency-Key sent again with another request
    assert declared[("POST", "/v1/chat/completions")] == {"200", "404"} | with_body
    assert declared[("POST", "/agent/chat")] == {"200", "404"} | with_body
    assert declared[("POST", "/tasks")] == {"201"} | with_body | keyed
    assert declared[("PATCH", "/tasks/{task_id}")] == {"200", "404"} | with_body | keyed
    assert declared[("POST", "/tasks/{task_id}/complete")] == {"200", "404"} | with_body | keyed
    assert declared[("GET", "/tasks")] == {"200", "400", "401", "500", "503"} | read
    assert declared[("GET", "/tasks/{task_id}")] == {"200", "400", "401", "404", "500", "503"} | read
    assert declared[("GET", "/tasks/{task_id}/occurrences")] == {"200", "400", "401", "404", "500", "503"} | read
    assert declared[("DELETE", "/tasks/{task_id}")] == {"204", "400", "401", "404", "500", "503"} | write | keyed
    assert declared[("GET", "/v1/models")] == {"200", "401", "500", "503"} | read
    assert declared[("GET", "/healthz")] == {"200", "500"} | read
    assert declared[("GET", "/readyz")] == {"200", "500", "503"} | read
    assert declared[("POST", "/import")] == {"200"} | with_body | keyed
    assert declared[("GET", "/tasks/export")] == {"200", "400", "401", "500", "503"} | read
    assert declared[("GET", "/calendar.ics")] == {"200", "304", "400", "401", "500", "503"} | read
    assert declared[("GET", "/calendar/{token}.ics")] == {"200", "304", "400", "404", "500", "503"} | read
    assert declared[("POST", "/calendar/links")] == {"201", "409"} | with_body
    assert declared[("DELETE", "/calendar/links/{link_id}")] == {"204", "400", "401", "404", "500", "503"} | write
    # Every operation but the health and readiness checks needs the key once keys exist, and says so;
    # a calendar subscribe link's feed has its token in the URL instead.
    open_paths = ("/healthz", "/readyz", "/calendar/{token}.ics")
    for method, path, op in operations(doc):
        assert (op.get("security") == [{"HTTPBearer": []}]) == (path not in open_paths), (method, path)
        if path not in open_paths:
            assert "WWW-Authenticate" in op["responses"]["401"]["headers"]
        if path not in open_paths[:2]:
            # Every key (or link token) lookup can meet a database outage (docs/fdr/0023): a 503 saying when.
            assert "Retry-After" in op["responses"]["503"]["headers"], (method, path)


def test_chat_declares_its_body_and_both_answers(doc: dict[str, Any], harness: Any) -> None:
    settings = harness.state.settings
    schemas = doc["components"]["schemas"]
    for path in ("/v1/chat/completions", "/agent/chat"):
        op = doc["paths"][path]["post"]
        assert op["requestBody"]["required"] is True
        assert op["requestBody"]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/ChatRequest"
        }
        ok = op["responses"]["200"]["content"]
        assert ok["application/json"]["schema"] == {"$ref": "#/components/schemas/ChatCompletion"}
        assert ok["text/event-stream"]["itemSchema"]["required"] == ["data"]
        tz = next(p for p in op["parameters"] if p["name"] == "x-suikou-timezone")
        assert tz["schema"] == {"$ref": "#/components/schemas/TimeZone"}
    request = schemas["ChatRequest"]
    assert request["required"] == ["model", "messages"]
    assert request["properties"]["messages"]["maxItems"] == settings.max_messages
    assert "Asia/Shanghai" in schemas["TimeZone"]["enum"]
    text = schemas["ChatContent"]["anyOf"][0]
    assert text["maxLength"] == settings.max_message_chars and text["pattern"] == "^[^\\x00]*$"


def test_task_bounds_are_declared(doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    params = {p["name"]: p["schema"] for p in doc["paths"]["/tasks"]["get"]["parameters"]}
    assert params["quadrants"]["anyOf"][0]["items"] == {"type": "integer", "minimum": 1, "maximum": 4}
    assert params["limit"]["minimum"] == 1 and params["limit"]["maximum"] == 200
    assert params["offset"]["minimum"] == 0 and params["offset"]["maximum"] == 2**31 - 1
    assert params["keyword"]["anyOf"][0]["pattern"] == "^[^\\x00]*$"
    for name in ("time_after", "time_before"):
        when = params[name]["anyOf"][0]
        assert when["format"] == "date-time" and when["pattern"].startswith("^(19[7-9][0-9]|2[01][0-9]{2}|2200)-")
    title = schemas["TaskCreateRequest"]["properties"]["title"]
    assert title["minLength"] == 1 and title["maxLength"] == 500 and "\\u3000" in title["pattern"]
    group = schemas["TaskCreateRequest"]["properties"]["priority_group"]
    assert (group["minimum"], group["maximum"]) == (1, 4)
    task_id = next(p for p in doc["paths"]["/tasks/{task_id}"]["get"]["parameters"] if p["name"] == "task_id")
    assert (task_id["schema"]["minimum"], task_id["schema"]["maximum"]) == (1, 2**31 - 1)


# --- the chat body: what the document refuses, the server refuses -------------------------------

IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
# A user message without text, as the issue found it: the document took it, the server said 400.
EMPTY_USER_CONTENTS = {"empty": "", "blank": " \u3000\n", "null": None, "no parts": [], "missing": ...}


def chat_validator(doc: dict[str, Any]) -> jsonschema.Draft202012Validator:
    schema = {"$ref": "#/components/schemas/ChatRequest", "components": doc["components"]}
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def user(content: Any) -> dict[str, Any]:
    return {"role": "user"} if content is ... else {"role": "user", "content": content}


@pytest.mark.parametrize("content", list(EMPTY_USER_CONTENTS.values()), ids=list(EMPTY_USER_CONTENTS))
@pytest.mark.parametrize("where", ["last", "earlier", "last, then the assistant"])
def test_a_user_message_without_text_is_refused_by_the_document_and_the_server(
    doc: dict[str, Any], harness: Any, content: Any, where: str
) -> None:
    messages = {
        "last": [user(content)],
        "earlier": [user(content), {"role": "assistant", "content": "?"}, user("明天有什么事")],
        "last, then the assistant": [user("明天有什么事"), user(content), {"role": "assistant", "content": "好"}],
    }[where]
    body = {"model": "suikou", "messages": messages}
    assert not chat_validator(doc).is_valid(body)
    with harness.client() as client:
        r = client.post("/v1/chat/completions", json=body)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["param"] == f"messages.{messages.index(user(content))}.content"


@pytest.mark.parametrize(
    "messages",
    [
        [user("明天有什么事")],
        [{"role": "system", "content": ""}, {"role": "assistant", "content": None}, user("明天有什么事")],
        [user([IMAGE]), {"role": "assistant", "content": "我只能读文字。"}, user("明天有什么事")],  # history image
        [{"role": "system", "content": "只有系统消息"}],  # no user message at all: answered
    ],
    ids=["plain", "empty non-user messages", "image in history", "no user message"],
)
def test_what_the_document_accepts_the_server_answers(doc: dict[str, Any], harness: Any, messages: Any) -> None:
    body = {"model": "suikou", "messages": messages}
    assert chat_validator(doc).is_valid(body)
    with harness.client() as client:
        assert client.post("/v1/chat/completions", json=body).status_code == 200


# --- repeating tasks: the rule's grammar as far as JSON Schema can say it ---------------------------


def test_the_rule_is_declared_and_the_stored_form_is_not(doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    for body in ("TaskCreateRequest", "TaskUpdateRequest"):
        rec = schemas[body]["properties"]["recurrence"]
        assert rec["anyOf"] == [{"$ref": "#/components/schemas/RecurrenceIn"}, {"type": "null"}], body
    rule = schemas["RecurrenceIn"]["properties"]["rule"]
    assert rule["maxLength"] == recurrence.MAX_RULE_CHARS
    beyond = ("FREQ is required", f"COUNT 1..{recurrence.MAX_COUNT}", "not both COUNT and UNTIL", "needs a deadline")
    assert all(words in rule["description"] for words in beyond), rule["description"]
    assert schemas["RecurrenceIn"]["required"] == ["rule"]
    public = schemas["TaskPublic"]["properties"]["recurrence"]["anyOf"][0]
    assert public == {"$ref": "#/components/schemas/RecurrencePublic"}
    # The internal create/update (a stored-form string) never reaches the document.
    assert "TaskCreate" not in schemas and "TaskUpdate" not in schemas


RULES_BY_PATTERN = {
    "FREQ=WEEKLY;BYDAY=MO": True,
    "RRULE:FREQ=MONTHLY;BYDAY=-1FR": True,
    "RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=-1": True,
    "FREQ=DAILY;X-DAYS=CN-WORKDAY": True,
    "FREQ=HOURLY": False,
    "freq=daily": False,
    "FREQ=DAILY;": False,
    "FREQ=WEEKLY;BYDAY=-MO": False,
    "FREQ = DAILY": False,
    "": False,
}


@pytest.mark.parametrize(("rule", "fits"), list(RULES_BY_PATTERN.items()), ids=list(RULES_BY_PATTERN))
def test_the_rule_pattern_is_the_servers(doc: dict[str, Any], harness: Any, rule: str, fits: bool) -> None:
    schema = {"$ref": "#/components/schemas/RecurrenceIn", "components": doc["components"]}
    assert jsonschema.Draft202012Validator(schema).is_valid({"rule": rule}) is fits
    body = {"title": "规则", "deadline_at": "2026-12-07T09:00:00+08:00", "recurrence": {"rule": rule}}
    with harness.client() as client:
        r = client.post("/tasks", json=body)
    assert r.status_code == (201 if fits else 400), r.text
