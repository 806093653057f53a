"""The API reference at /docs (app/apidocs.py): Swagger UI served from this origin, the origin
where the playground keeps the API key, so no third-party script may run there. Every script and
style comes from the package; a CSP allows only those, and no inline script. /redoc is off.
What it does in a browser: test_playground_browser.py."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from support.harness import Harness


@pytest.fixture
def client(harness: Harness) -> Iterator[TestClient]:
    with harness.client() as c:
        yield c


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.inline_script = ""
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.inline_script += data.strip()


def page(client: TestClient) -> tuple[Any, Tags]:
    r = client.get("/docs")
    assert r.status_code == 200
    assert r.headers["content-type"] == "text/html; charset=utf-8"
    tags = Tags()
    tags.feed(r.text)
    return r, tags


def directives(csp: str) -> dict[str, list[str]]:
    return {d.split()[0]: d.split()[1:] for d in (part.strip() for part in csp.split(";")) if d}


def test_the_page_loads_only_its_own_files(client: TestClient) -> None:
    r, tags = page(client)
    urls = [a.get("src") or a.get("href") for tag, a in tags.tags if tag in ("script", "link", "img")]
    assert urls and all(isinstance(u, str) and u.startswith("/docs/") for u in urls), urls
    assert not re.search(r"(?i)https?:|//[a-z0-9]", r.text)  # no CDN, no other host at all
    assert tags.inline_script == ""
    for url in urls:
        asset = client.get(url)
        assert asset.status_code == 200, url
        assert asset.headers["x-content-type-options"] == "nosniff"
        assert asset.headers["content-type"].split(";")[0] in ("text/javascript", "text/css", "image/png"), url


def test_the_page_has_a_strict_csp(client: TestClient) -> None:
    r, _ = page(client)
    csp = directives(r.headers["content-security-policy"])
    assert csp["default-src"] == ["'none'"]
    assert csp["script-src"] == ["'self'"]  # no inline script, no eval, no other host
    assert csp["connect-src"] == ["'self'"]  # "Try it out" talks to this server only
    assert csp["frame-ancestors"] == ["'none'"] and csp["base-uri"] == ["'none'"]
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "no-referrer"


def test_the_init_script_reads_this_servers_document_and_no_validator(client: TestClient) -> None:
    _, tags = page(client)
    init = next(a["src"] for tag, a in tags.tags if tag == "script" and "init" in (a.get("src") or ""))
    script = client.get(init).text
    assert '"/openapi.json"' in script
    assert "validatorUrl: null" in script  # Swagger UI's default badge asks validator.swagger.io


@pytest.mark.parametrize("path", ["/redoc", "/docs/oauth2-redirect", "/docs/assets/nope.js", "/docs/assets/../main.py"])
def test_what_is_not_served(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 404
    assert r.json()["error"]["code"] == "not_found"


def test_the_document_is_still_served(client: TestClient) -> None:
    doc = client.get("/openapi.json").json()
    assert "/tasks" in doc["paths"]
    assert not any(path.startswith("/docs") for path in doc["paths"])


def test_the_init_script_ships_in_the_package() -> None:
    root = Path(__file__).resolve().parents[2]
    patterns = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"
    ]["app"]
    shipped = {path for pattern in patterns for path in (root / "app").glob(pattern)}
    assert root / "app" / "static" / "docs-init.js" in shipped
