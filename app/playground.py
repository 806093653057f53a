"""The playground: one self-contained page at `/` (and `/playground`) to try Suikou in a browser.

The page (app/static/playground.html) talks to the same public API any client uses — streaming
`/v1/chat/completions`, `GET /tasks`, `PATCH /tasks/{id}` (ticking a task done or open again) and
`/changes` (what a turn wrote, and undoing the last change) — so it needs no route of its own beyond
serving itself, and it is left out of the OpenAPI document: it is not part of the API.
"""

from __future__ import annotations

import base64
import hashlib
import re
from functools import lru_cache
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

router = APIRouter(include_in_schema=False)

PAGE_FILE = Path(__file__).with_name("static") / "playground.html"

PAGE_PATHS = ("/", "/playground")
_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


@lru_cache(maxsize=1)
def page_html() -> str:
    """Read once: the file ships inside the package (pyproject's package-data)."""
    return PAGE_FILE.read_text(encoding="utf-8")


def script_hashes(html: str) -> list[str]:
    """CSP sources for the page's own inline scripts, by content: these run, no other inline script does."""
    return [
        f"'sha256-{base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()}'"
        for body in _INLINE_SCRIPT.findall(html)
    ]


@lru_cache(maxsize=1)
def security_headers() -> dict[str, str]:
    """Everything the page uses is inline or same-origin; nothing else may load, run or be framed.
    The API key lives in this origin's localStorage, so even an injected inline script must not run."""
    scripts = " ".join(script_hashes(page_html()))
    return {
        "Content-Security-Policy": (
            f"default-src 'self'; script-src {scripts}; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
            "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
        ),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-cache",
    }


@router.get(PAGE_PATHS[0], response_class=HTMLResponse)
@router.get(PAGE_PATHS[1], response_class=HTMLResponse)
async def playground() -> HTMLResponse:
    return HTMLResponse(page_html(), headers=security_headers())
