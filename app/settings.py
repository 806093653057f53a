"""Configuration: environment variables or `.env`, prefix `SUIKOU_`. One cached instance."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, BaseModel, Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DB_PATH = Path.home() / ".local" / "share" / "suikou" / "suikou.db"


class ProviderSettings(BaseModel):
    """One provider's overrides (docs/fdr/0020): unset fields come from the vendor's env vars / profile."""

    base_url: str | None = None
    api_key: str | None = None
    strict_tools: bool | None = None
    forced_tool_choice: bool | None = None
    output_mode: Literal["tool", "native", "prompted"] | None = None


LEASE_MARGIN_S = 5.0  # a claim's lease beyond the longest send: the claim's own statements, a slow start


class Settings(BaseSettings):
    # `__` nests: SUIKOU_PROVIDERS__DEEPSEEK__API_KEY=... sets providers["deepseek"].api_key.
    model_config = SettingsConfigDict(
        env_prefix="SUIKOU_", env_file=".env", extra="ignore", populate_by_name=True, env_nested_delimiter="__"
    )

    database_url: str = Field(default=f"sqlite:///{DEFAULT_DB_PATH}", description="SQLite file or PostgreSQL URL.")
    # PostgreSQL only (docs/fdr/0023): a database that is down or hangs costs a request seconds, then a 503.
    database_connect_timeout_s: int = Field(
        default=5,
        ge=2,
        description="PostgreSQL: how long one connection attempt may take, whole seconds (psycopg's floor is 2); "
        "once per address the host resolves to.",
    )
    database_statement_timeout_s: float = Field(
        default=10.0,
        ge=0,
        description="PostgreSQL: the server cancels a statement running longer (sent as the startup option "
        "statement_timeout; migrations run without it); 0 = not sent (PgBouncer in transaction mode).",
    )
    timezone: str = Field(default="Asia/Shanghai", description="Default user timezone.")
    holidays_file: Path | None = Field(
        default=None,
        description="A holiday-cn JSON file (one year's {year, days} or a list of them) adding the statutory "
        "holidays and 调休 of years the installed chinese-calendar doesn't publish yet (workday repeats, queries).",
    )

    model: str = Field(
        default="offline",
        description="'offline', 'provider:model' (deepseek:deepseek-chat, ollama:qwen2.5:7b, ...) "
        "or a bare model name at model_base_url.",
    )
    model_base_url: str | None = Field(default=None, description="OpenAI-compatible chat-completions base URL.")
    model_api_key: str | None = None
    model_timeout_s: float = 20.0
    model_request_budget: int = Field(
        default=5, ge=0, description="Provider requests one turn may make, validation retries included."
    )
    turn_time_budget_s: float = Field(default=60.0, gt=0, description="Wall time one turn may spend on providers.")
    model_max_tokens_scale: float = Field(
        default=1.0,
        ge=0,
        description="Multiplies each node's max_tokens (router 512, plan 384, chat 1024, ...; docs/fdr/0028): "
        "raise it for models that think before answering; 0 = send no max_tokens.",
    )
    provider_breaker_failures: int = Field(
        default=3,
        ge=0,
        description="Failures (errors, timeouts, unusable output) of one provider within the window after which "
        "nodes skip it and answer by their rules for the cool-down; 0 = never skip.",
    )
    provider_breaker_window_s: float = Field(default=60.0, gt=0, description="The window those failures count in.")
    provider_breaker_cooldown_s: float = Field(
        default=30.0, gt=0, description="How long a failing provider is skipped before one trial request."
    )
    node_models: dict[str, str] = Field(
        default_factory=dict,
        description='Per-node models, JSON: {"route": "deepseek:deepseek-chat", "reflect": "offline"}.',
    )
    providers: dict[str, ProviderSettings] = Field(
        default_factory=dict,
        description='Per-provider base URL, key and profile overrides, JSON ({"deepseek": {"api_key": "..."}}) '
        "or SUIKOU_PROVIDERS__<NAME>__<FIELD>.",
    )

    record_secret: str | None = Field(
        default=None,
        description="The key that signs the records answers carry (follow-ups, undo). Unset: made once and kept "
        "in the database; changing it makes records already in chat histories read as absent.",
    )

    auth_cache_seconds: float = Field(
        default=5.0, ge=0, description="How long who a key belongs to is remembered; a revoked key works that long."
    )

    served_model_id: str = Field(default="suikou", description="The model id clients see in /v1/models.")
    accept_any_model: bool = Field(default=True, description="Accept any `model` in requests (clients vary).")
    stage_display: Literal["reasoning", "think", "none"] = Field(
        default="reasoning",
        description="Where stage events go: `reasoning_content`, a <think> block opening `content`, or only "
        "the `suikou_event` field; a request's X-Suikou-Stages header or model suffix overrides it.",
    )

    default_limit: int = Field(default=5, ge=1)
    max_limit: int = Field(default=20, ge=1)
    write_min_confidence: float = Field(
        default=0.6,
        ge=0,
        le=1,
        validation_alias=AliasChoices("SUIKOU_WRITE_MIN_CONFIDENCE", "SUIKOU_QUICK_NOTE_MIN_CONFIDENCE"),
        description="The router's confidence an action that writes needs (unless it declares its own); "
        "below it Suikou asks and writes nothing. SUIKOU_QUICK_NOTE_MIN_CONFIDENCE is the old name.",
    )
    note_near_duplicates: Literal["ask", "allow"] = Field(
        default="ask",
        description="A note nearly the same as an open task (title, deadline within 24 h): ask before writing, "
        "or write it anyway.",
    )
    work_hours: str = Field(
        default="09:00-18:00",
        pattern=r"^([01][0-9]|2[0-3]):[0-5][0-9]-([01][0-9]|2[0-4]):[0-5][0-9]$",
        description="The working hours a day plan ('今天怎么安排') fills, HH:MM-HH:MM in the user's timezone.",
    )
    date_order: Literal["auto", "mdy", "dmy"] = Field(
        default="auto",
        description="How a numeric date no field can order is read ('1/2/2027'): 'auto' by its form (dotted "
        "day first, others month first; core/timeanchor/numdate.py), 'mdy' month first, 'dmy' day first.",
    )
    note_retry_window_minutes: float = Field(
        default=10, gt=0, description="A resend of the same conversation within this is a retry, not a new note."
    )
    max_message_chars: int = Field(default=20_000, ge=100)
    max_messages: int = Field(default=200, ge=1)
    max_body_bytes: int = Field(
        default=1024 * 1024, ge=1024, description="Largest request body; larger ones are refused with a 413."
    )
    max_import_bytes: int = Field(
        default=5 * 1024 * 1024,
        ge=1024,
        le=5 * 1024 * 1024,
        description="Largest file POST /import takes (at most 5 MB and 10,000 rows: one import is one transaction).",
    )
    public_url: str | None = Field(
        default=None,
        description="The address clients reach this server at (e.g. https://tasks.example.com behind a proxy): "
        "calendar subscribe links are made with it; unset, with the address the request came to.",
    )
    calendar_events: bool = Field(
        default=False,
        description="The calendar feed also gives each task with a deadline as an all-day event, for calendar "
        "apps that don't show tasks (VTODO); a feed's ?events= overrides it.",
    )
    max_chat_body_bytes: int = Field(
        default=16 * 1024 * 1024,
        ge=1024,
        description="Largest chat request body: clients resend whole histories, images included (ignored, but sent).",
    )

    # Limits and readiness (docs/fdr/0018-rate-limits.md). Empty / 0 = off: nothing runs per request.
    rate_limit: str = Field(
        default="", description="Requests per API key (chat and REST share it), e.g. '120/minute'; empty = off."
    )
    model_rate_limit: str = Field(
        default="", description="Chat requests per API key when a real model is configured, e.g. '20/minute'."
    )
    max_streams_per_key: int = Field(default=0, ge=0, description="Open streaming chat responses per key; 0 = off.")
    stream_lease_seconds: float = Field(
        default=120.0, gt=0, description="A stream's slot is renewed while it runs and expires this long after."
    )
    redis_url: str | None = Field(
        default=None, description="Share limits between processes, e.g. 'redis://127.0.0.1:6379/0'; unset = memory."
    )
    redis_prefix: str = Field(default="suikou:", description="Prefix of every Redis key Suikou writes.")
    readiness_timeout_s: float = Field(default=2.0, gt=0, description="How long /readyz waits for each check.")

    host: str = "127.0.0.1"
    port: int = 8000
    # Which pages may reach the service (app/guard.py, docs/fdr/0022-host-and-origin.md).
    allowed_hosts: str = Field(
        default="",
        description="Comma list of extra Host names served besides localhost, 127.0.0.1, ::1 and the bound "
        "host: names or IPs (no port), '*.example.com' for its subdomains, '*' for any.",
    )
    allowed_origins: str = Field(
        default="",
        description="Comma list of other origins whose pages may send writes ('https://app.example.com', "
        "'null'); a page's own origin always may.",
    )
    log_requests: bool = True
    workers: int = Field(default=1, ge=1, description="`suikou serve` worker processes (--workers).")
    shutdown_grace_s: float = Field(
        default=20.0,
        ge=0,
        description="On SIGTERM, how long the process may take to stop, the delay below included: open requests "
        "and streams finish within it. Keep it below the orchestrator's kill grace (Kubernetes: 30 s).",
    )
    shutdown_delay_s: float = Field(
        default=5.0,
        ge=0,
        description="On SIGTERM, how long to keep serving with /readyz answering 503 before the listener closes, "
        "so load balancers stop sending first (at most the grace less 1 s; SIGINT does not wait).",
    )

    # Reminders and webhooks (docs/fdr/0038).
    webhook_allow_private: bool = Field(
        default=False,
        description="Let webhooks point at private, loopback and link-local addresses (a receiver on your own "
        "network). Off: only public addresses, checked after DNS resolution, redirects not followed.",
    )
    webhook_timeout_s: float = Field(default=10.0, gt=0, le=60, description="How long one delivery may take.")
    deliveries: bool = Field(
        default=True,
        description="`suikou serve` fires reminders and sends webhook deliveries in the background (every worker "
        "process on PostgreSQL; one on SQLite). Off: run `suikou worker` instead.",
    )
    delivery_lease_s: float = Field(
        default=60.0,
        gt=0,
        description="How long a worker holds a delivery it took; one that dies mid-delivery leaves it to another "
        f"worker after this. At least webhook_timeout_s + {LEASE_MARGIN_S:g} s: a live worker's send never outlasts it.",
    )
    worker_poll_s: float = Field(
        default=1.0, gt=0, le=60, description="How often an idle worker looks for due reminders and deliveries."
    )
    reminder_late_window_s: float = Field(
        default=3600.0,
        ge=0,
        description="A reminder found due after the service was down is still sent (marked late) within this "
        "many seconds of its time; older ones are recorded as missed, not sent.",
    )

    metrics: bool = Field(
        default=True,
        description="Prometheus metrics at /metrics, behind the API keys once any key exists (docs/fdr/0017).",
    )
    tracing: bool | None = Field(
        default=None,
        description="OpenTelemetry traces, exported as the OTEL_* variables say. Unset: on when "
        "OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set.",
    )
    trace_content: bool = Field(
        default=False, description="Put message text and task titles (prompts, answers, query values) in spans."
    )

    @model_validator(mode="after")
    def _lease_covers_a_send(self) -> Settings:
        # A lease that can run out mid-send lets a second worker send the same delivery.
        if self.delivery_lease_s < self.webhook_timeout_s + LEASE_MARGIN_S:
            raise ValueError(
                f"delivery_lease_s ({self.delivery_lease_s:g}) must be at least webhook_timeout_s "
                f"({self.webhook_timeout_s:g}) + {LEASE_MARGIN_S:g}"
            )
        return self

    def engine_options(self) -> dict[str, float]:
        """`core.db.make_engine`'s timeouts from these settings."""
        return {
            "connect_timeout_s": self.database_connect_timeout_s,
            "statement_timeout_s": self.database_statement_timeout_s,
        }


@lru_cache
def get_settings() -> Settings:
    return Settings()
