"""The playground page as HTTP serves it: one self-contained HTML file at `/` and `/playground`,
public (the API it calls asks for the key), outside the OpenAPI document, loading nothing from
elsewhere. What it does in a browser: test_playground_browser.py."""

from __future__ import annotations

import base64
import hashlib
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.actions import build_registry
from app.main import create_app
from app.playground import PAGE_PATHS, page_html
from core.display import GROUP_LABELS
from route.router import RULE_READ, RULE_SURE

ROOT = Path(__file__).resolve().parents[2]
LOCAL_HOSTS = {"127.0.0.1", "localhost"}


@pytest.fixture
def client(harness: Any) -> Any:
    with TestClient(create_app(harness.state.settings, state=harness.state)) as c:
        yield c


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_the_page_is_served_as_html(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 200
    assert r.headers["content-type"] == "text/html; charset=utf-8"
    assert r.text == page_html()
    assert r.text.lstrip().lower().startswith("<!doctype html>")
    csp = r.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "connect-src 'self'" in csp


def test_only_the_pages_own_script_may_run(client: TestClient) -> None:
    # The API key is in this origin's localStorage: an injected inline script must not run.
    csp = client.get("/").headers["content-security-policy"]
    script_src = next(d.split()[1:] for d in csp.split(";") if d.split()[0] == "script-src")
    body = re.fullmatch(r"(?s).*<script>(.*)</script>.*", page_html())
    assert body is not None and page_html().count("<script") == 1
    digest = base64.b64encode(hashlib.sha256(body[1].encode()).digest()).decode()
    assert script_src == [f"'sha256-{digest}'"]


def test_the_page_needs_no_key_when_the_api_does(harness: Any, client: TestClient) -> None:
    harness.api_key("alice")
    assert client.get("/").status_code == 200
    assert client.get("/tasks").status_code == 401  # the page asks for the key, the API checks it


def test_the_page_loads_nothing_from_other_hosts() -> None:
    html = page_html()
    hosts = set(re.findall(r"(?i)\b(?:https?:)?//([a-z0-9.-]+\.[a-z]{2,}|localhost|[0-9.]+)", html))
    assert hosts - LOCAL_HOSTS == set()
    assert not re.search(r"(?i)<script[^>]+\bsrc=|<link[^>]+stylesheet|@import|url\(", html)


def test_server_text_is_never_parsed_as_html() -> None:
    # Answers and task titles are user text: the page sets them with textContent only.
    html = page_html()
    assert all(sink not in html for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write"))


def test_the_page_speaks_the_api_it_documents() -> None:
    html = page_html()
    for needle in ('"/v1/chat/completions"', "stream: true", '"X-Suikou-Timezone"', "Bearer ", '"/tasks'):
        assert needle in html, needle
    # Ticking a task and undoing a change: the REST API's own writes, nothing of the page's.
    for needle in ('"/tasks/" + id, "PATCH", { is_completed: done }', '"/changes?limit=', '"/revert", "POST"'):
        assert needle in html, needle


def js_table(name: str) -> dict[str, str]:
    """A `const NAME = { key: "text", ... };` table of the page's script, as a dict."""
    found = re.search(rf"const {name} = \{{(.*?)\}};", page_html(), re.DOTALL)
    assert found is not None, name
    return dict(re.findall(r'(\w+): "([^"]*)"', found[1]))


def test_the_page_names_groups_as_the_product_does() -> None:
    assert js_table("GROUPS") == {str(g): label for g, label in GROUP_LABELS["zh"].items()}


def test_the_page_has_words_for_every_action() -> None:
    # The thinking panel says which action took a message in words, not by its name.
    names = {*build_registry().names(), "clarify"}
    words = js_table("ACTION_WORDS")
    assert set(words) == names
    assert all(re.fullmatch(r"[\u4e00-\u9fff]+", w) for w in words.values()), words


def test_confidence_words_follow_the_routers_bounds() -> None:
    found = re.search(r"const SURE_WORDS = \[(.*?)\];", page_html())
    assert found is not None
    bounds = [float(b) for b in re.findall(r"\[([0-9.]+), ", found[1])]
    assert bounds == [RULE_SURE, RULE_READ, 0]


def test_every_error_code_the_server_sends_has_chinese_words() -> None:
    codes = {
        code
        for path in (ROOT / "app").glob("*.py")
        for code in re.findall(r'\bcode\s*=\s*"([a-z_]+)"', path.read_text(encoding="utf-8"))
    }
    assert {"invalid_api_key", "rate_limit_exceeded", "string_above_max_length"} <= codes  # the scan finds them
    words = js_table("ERROR_CODES")
    assert codes <= set(words), codes - set(words)
    assert all(re.search(r"[\u4e00-\u9fff]", w) and w.endswith("。") for w in words.values())


def test_the_openapi_document_does_not_list_the_page(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert not set(PAGE_PATHS) & set(paths)
    assert "/tasks" in paths  # the document itself is still there


def test_the_page_ships_in_the_package() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["app"]
    assert any((ROOT / "app").glob(pattern) for pattern in patterns)
    assert list((ROOT / "app").glob(next(iter(patterns)))) == [ROOT / "app" / "static" / "playground.html"]
