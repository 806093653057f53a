"""The FastAPI application factory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app import api_chat, api_tasks
from app.errors import install_error_handlers
from app.settings import Settings, get_settings
from app.state import AppState, Clock, build_state
from core.llm import ModelHub


def create_app(
    settings: Settings | None = None,
    *,
    hub: ModelHub | None = None,
    clock: Clock | None = None,
    state: AppState | None = None,
) -> FastAPI:
    """Builds the app; the database is opened and migrated when it starts, not at import."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.suikou = state or build_state(settings, hub=hub, clock=clock)
        try:
            yield
        finally:
            if state is None:
                await app.state.suikou.hub.aclose()
                app.state.suikou.engine.dispose()

    app = FastAPI(title="Suikou", version="0.1.0", lifespan=lifespan)
    install_error_handlers(app)
    app.include_router(api_chat.router)
    app.include_router(api_tasks.router)

    @app.get("/healthz", tags=["ops"])
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return app
