"""What the running service holds: settings, database, models, the action pipeline, the clock."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.actions import build_registry
from app.keycache import KeyCache
from app.settings import Settings
from core import carry
from core.breaker import Breakers
from core.db import make_engine, migrate
from core.llm import ModelHub
from core.providers import ProviderConfig, resolve_providers
from core.service_secrets import stored_secret
from core.timeanchor import chinacal
from core.turn import ChatText, Turn, TurnConfig, new_turn
from route.pipeline import Pipeline

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now(UTC)


@dataclass
class AppState:
    settings: Settings
    engine: Engine
    hub: ModelHub
    pipeline: Pipeline
    clock: Clock = system_clock
    key_cache: KeyCache = field(default_factory=KeyCache)
    # Signs the records answers carry (core.carry); stored in the database (core.service_secrets).
    record_secret: bytes = carry.EPHEMERAL_SECRET

    def session(self) -> Session:
        # Objects stay readable after commit: handlers return them after the session closes.
        return Session(self.engine, expire_on_commit=False)

    def turn_config(self) -> TurnConfig:
        # SQLite reads run on the event loop: local, indexed and capped, they cost less than the
        # thread hop would (docs/fdr/0011); a PostgreSQL read is a network round trip.
        return turn_config_from(self.settings, reads_inline=self.engine.dialect.name == "sqlite")

    def new_turn(self, messages: Sequence[ChatText], *, user_id: int, tz: str, client_message_id: str | None) -> Turn:
        """One turn, now, with a fresh trace and budget (HTTP-free: `suikou ask` runs turns without the web app)."""
        return new_turn(
            messages,
            user_id=user_id,
            now=self.clock(),
            tz=tz,
            hub=self.hub,
            sessions=self.session,
            config=self.turn_config(),
            client_message_id=client_message_id,
            record_secret=self.record_secret,
        )


def turn_config_from(settings: Settings, *, reads_inline: bool = False) -> TurnConfig:
    return TurnConfig(
        default_limit=settings.default_limit,
        max_limit=settings.max_limit,
        write_min_confidence=settings.write_min_confidence,
        model_request_budget=settings.model_request_budget,
        turn_time_budget_s=settings.turn_time_budget_s,
        note_retry_window_s=settings.note_retry_window_minutes * 60,
        reads_inline=reads_inline,
        near_duplicates=settings.note_near_duplicates,
        work_hours=settings.work_hours,
        date_order=settings.date_order,
    )


def hub_from_settings(settings: Settings, env: Mapping[str, str] | None = None) -> ModelHub:
    """The hub; provider keys and URLs also come from the vendors' env vars (`env`, default os.environ)."""
    configured = {
        # Env-nested names arrive as OPENAI_COMPATIBLE -> "openai_compatible".
        name.lower().replace("_", "-"): ProviderConfig(**p.model_dump())
        for name, p in settings.providers.items()
    }
    return ModelHub(
        default=settings.model,
        base_url=settings.model_base_url,
        api_key=settings.model_api_key,
        timeout_s=settings.model_timeout_s,
        max_tokens_scale=settings.model_max_tokens_scale,
        breakers=Breakers(
            settings.provider_breaker_failures, settings.provider_breaker_window_s, settings.provider_breaker_cooldown_s
        ),
        per_node=settings.node_models,
        providers=resolve_providers(
            configured,
            os.environ if env is None else env,
            legacy_base_url=settings.model_base_url,
            legacy_key=settings.model_api_key,
        ),
    )


def load_holidays(path: Path) -> list[int]:
    """The years a holiday-cn file adds to the calendar (core.timeanchor.chinacal.add_schedule).
    A file that can't be read stops the start with a message naming it: a silent fallback would
    schedule workday repeats on guesses."""
    try:
        return chinacal.add_schedule(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        raise SystemExit(f"SUIKOU_HOLIDAYS_FILE {path}: {exc}") from exc


def build_state(settings: Settings, *, hub: ModelHub | None = None, clock: Clock | None = None) -> AppState:
    if settings.holidays_file is not None:
        load_holidays(settings.holidays_file)
    engine = make_engine(settings.database_url, **settings.engine_options())
    migrate(engine)
    secret = settings.record_secret.encode() if settings.record_secret else stored_secret(engine)
    return AppState(
        settings=settings,
        engine=engine,
        hub=hub or hub_from_settings(settings),
        pipeline=Pipeline(build_registry()),
        clock=clock or system_clock,
        key_cache=KeyCache(ttl_s=settings.auth_cache_seconds),
        record_secret=secret,
    )
