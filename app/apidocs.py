"""The API reference at `/docs`: Swagger UI, served from the package instead of a CDN.

The playground keeps the API key in this origin's localStorage, so no script from elsewhere may
run on it (docs/fdr/0022-host-and-origin.md). The page loads Swagger UI's own files as the
`fastapi-offline` package ships them (swagger-ui-dist) and its init script from app/static; its
CSP allows those and nothing else: no inline script, no eval, no other host. FastAPI's /redoc and
OAuth2 redirect page are off (`create_app` passes `docs_url=None, redoc_url=None`).
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse

from app.errors import NotFound

router = APIRouter(include_in_schema=False)

DOCS_PATH = "/docs"
ASSETS_PATH = "/docs/assets"
_SWAGGER = Path(str(files("fastapi_offline") / "static"))
_STATIC = Path(__file__).with_name("static")
# name -> (file, media type): exactly what the page uses, so nothing else in either folder is served.
ASSETS: dict[str, tuple[Path, str]] = {
    "swagger-ui-bundle.js": (_SWAGGER / "swagger-ui-bundle.js", "text/javascript"),
    "swagger-ui.css": (_SWAGGER / "swagger-ui.css", "text/css"),
    "favicon.png": (_SWAGGER / "favicon.png", "image/png"),
    "docs-init.js": (_STATIC / "docs-init.js", "text/javascript"),
}

PAGE = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Suikou API</title>
<link rel="icon" type="image/png" href="{ASSETS_PATH}/favicon.png">
<link rel="stylesheet" href="{ASSETS_PATH}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="{ASSETS_PATH}/swagger-ui-bundle.js"></script>
<script src="{ASSETS_PATH}/docs-init.js"></script>
</body>
</html>
"""

# Swagger UI sets style attributes and inlines its icons as data: URLs; "Try it out" calls this server.
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        "font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
ASSET_HEADERS = {"X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"}  # revalidated by ETag


@router.get(DOCS_PATH, response_class=HTMLResponse)
async def docs_page() -> HTMLResponse:
    return HTMLResponse(PAGE, headers=PAGE_HEADERS)


@router.get(ASSETS_PATH + "/{name}")
async def docs_asset(name: str) -> FileResponse:
    if name not in ASSETS:
        raise NotFound(f"No file {name[:100]!r} in {ASSETS_PATH}.")
    path, media_type = ASSETS[name]
    return FileResponse(path, media_type=media_type, headers=ASSET_HEADERS)
