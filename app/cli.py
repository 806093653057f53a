"""The `suikou` command line: serve, migrate, ask, doctor, explain, demo, import, export, mcp, apikey,
worker, webhook.

Start-up time matters here (`suikou ask` is a whole process per question), so each command
imports what it needs inside its function: `ask` loads neither the web app (FastAPI) nor alembic
(see `core.db.migrate`), and the key commands not even the chat pipeline.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, NoReturn
from zoneinfo import ZoneInfo

import typer

if TYPE_CHECKING:
    from sqlmodel import Session

    from app.settings import Settings
    from app.state import AppState
    from core.models import Task
    from exchange.importer import Summary

# Plain (click) help, not typer's rich panels: typer 0.29's panels label every flag `<bool>` as if it
# took a value (`--migrate <bool>`, even `--help <bool>`); click's own layout shows `--migrate` and
# `--reload / --no-reload`. It also spares --help importing rich.
cli = typer.Typer(
    help="Suikou: a conversational front door for your tasks.", no_args_is_help=True, rich_markup_mode=None
)
apikey_cli = typer.Typer(help="Manage API keys.", no_args_is_help=True, rich_markup_mode=None)
cli.add_typer(apikey_cli, name="apikey")
webhook_cli = typer.Typer(
    help="Manage a user's webhooks (where reminders and task changes go).", no_args_is_help=True, rich_markup_mode=None
)
cli.add_typer(webhook_cli, name="webhook")
UserOption = Annotated[str, typer.Option("--user", help="Whose webhooks (local: keyless mode's user).")]

NowOption = Annotated[str | None, typer.Option("--now", help="ISO time to treat as now (default: the clock).")]
TzOption = Annotated[str | None, typer.Option("--tz", help="User timezone (default: SUIKOU_TIMEZONE).")]
# import/export: the same choices as POST /import?source= and GET /tasks/export?format= (exchange/).
SourceName = Literal["ticktick", "todoist", "suikou"]
ExportFormat = Literal["json", "csv", "ics"]
ZoneOption = Annotated[
    str | None,
    typer.Option("--timezone", "--tz", help="Timezone of the file's local times (default: SUIKOU_TIMEZONE)."),
]


def _started() -> None:
    """Every command calls this once its imports are done (see `main`): what start-up created is
    frozen out of the garbage collector's sight (`gc.freeze`) and the collector is on again for
    the command's own work. A no-op when the collector was on (in-process callers of `cli`)."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def get_settings() -> Settings:
    """The service's settings (pydantic-settings loads only when a command runs, not for --help)."""
    from app.settings import get_settings as cached

    return cached()


def _is_loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _parse_now(value: str | None, tz: str) -> datetime:
    if value is None:
        return datetime.now(ZoneInfo(tz))
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=ZoneInfo(tz))


# The settings' defaults, as serve's --help states them (the help must not load the settings;
# tests/app/test_cli_serve.py checks these against app.settings.Settings).
SERVE_DEFAULTS = {"host": "127.0.0.1", "port": 8000, "workers": 1}


@cli.command()
def serve(
    host: Annotated[
        str | None, typer.Option(help=f"Bind address (default: SUIKOU_HOST, else {SERVE_DEFAULTS['host']}).")
    ] = None,
    port: Annotated[
        int | None, typer.Option(help=f"Port (default: SUIKOU_PORT, else {SERVE_DEFAULTS['port']}).")
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(min=1, help=f"Worker processes (default: SUIKOU_WORKERS, else {SERVE_DEFAULTS['workers']})."),
    ] = None,
    run_migrations: Annotated[
        bool, typer.Option("--migrate", help="Migrate the database first if it is behind (else: refuse).")
    ] = False,
    reload: Annotated[bool, typer.Option(help="Restart on code changes (development; one worker).")] = False,
) -> None:
    """Run the HTTP service and its playground page.

    The chat API is at http://HOST:PORT/v1, the playground at http://HOST:PORT/playground. With no
    API keys (keyless mode) it serves only on a loopback address, as user 'local'.
    """
    import logging

    import uvicorn

    from app.shutdown import phases as shutdown_phases

    settings = get_settings()
    host = host or settings.host
    workers = workers or settings.workers
    if reload and workers > 1:
        _refuse("--reload runs one process: drop --workers (or SUIKOU_WORKERS) or --reload.")
    with _engine(settings) as engine, _unreachable_is_one_line(settings):
        _schema_gate(engine, settings, run_migrations=run_migrations)
        keyed = _keys_exist(engine)
        if not _is_loopback(host) and not keyed:
            _refuse(
                f"Refusing to serve on {host}: no API keys exist, so anyone could act as the local user.\n"
                "Create one with `suikou apikey create --user NAME`, or bind to 127.0.0.1."
            )
    if workers > 1 and settings.metrics:
        _share_metrics_between_workers()
    # The app (built by the factory here or in each worker) serves the name it is bound to (app/guard.py).
    os.environ["SUIKOU_HOST"] = host
    from app.settings import get_settings as cached

    cached.cache_clear()
    # One JSON line per chat request on the "suikou.request" logger (route, node timings, model calls).
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    _started()
    port = port or settings.port
    for line in _serve_banner(host, port, keyed=keyed):
        typer.echo(line, err=True)
    # The factory (one app per worker) also chains the SIGTERM drain hook onto uvicorn's handler. The
    # workers read their settings again: the port they serve is part of a worker's stable name
    # (app/ratelimit.py), so --port reaches them as SUIKOU_PORT.
    with _environment(SUIKOU_PORT=str(port)):
        uvicorn.run(
            "app.main:serve_app",
            factory=True,
            host=host,
            port=port,
            workers=workers,
            reload=reload,
            # The delay before the listener closes comes out of the grace (app/shutdown.py).
            timeout_graceful_shutdown=shutdown_phases(settings.shutdown_grace_s, settings.shutdown_delay_s)[1],
            log_level="info",
        )


def _browser_url(host: str, port: int) -> str:
    """Where a browser on this machine reaches the server: a wildcard bind is reached on loopback."""
    shown = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
    if ":" in shown:
        shown = f"[{shown}]"  # an IPv6 literal in a URL
    return f"http://{shown}:{port}"


def _serve_banner(host: str, port: int, *, keyed: bool) -> list[str]:
    """Suikou's own start-up lines (before uvicorn's): where the playground is, and who may use it."""
    from app.playground import PAGE_PATHS
    from core.accounts import LOCAL_USER

    base = _browser_url(host, port)
    lines = [f"Suikou: playground at {base}{PAGE_PATHS[1]}, chat API at {base}/v1 (model 'suikou')"]
    if keyed:
        lines.append("API keys exist: every request needs 'Authorization: Bearer <key>' (the playground asks for it).")
    else:
        # Keyless mode serves on loopback only (serve refuses any other address without keys).
        lines.append(
            f"Keyless mode: no API keys exist, so anyone on this machine can use it as user {LOCAL_USER!r}"
            " (`suikou apikey create --user NAME` ends this)."
        )
    return lines


@contextmanager
def _environment(**values: str) -> Iterator[None]:
    """`values` in the environment (and in the settings read from now on) until the block ends."""
    from app.settings import get_settings as cached

    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    cached.cache_clear()
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        cached.cache_clear()


def _share_metrics_between_workers() -> None:
    """Each worker's /metrics must report every worker's totals: prometheus_client's multiprocess
    mode, with a directory the workers inherit (one is made if none is set), emptied before they start."""
    import tempfile

    from app.metrics import MULTIPROC_ENV, reset_multiprocess_dir

    path = os.environ.get(MULTIPROC_ENV) or tempfile.mkdtemp(prefix="suikou-metrics-")
    os.environ[MULTIPROC_ENV] = path
    reset_multiprocess_dir(path)


# What `serve` does with the schema it finds, without --migrate. A fresh embedded SQLite file is
# the single-user quick start: creating its tables is what the user wants. Anything else (a
# shared PostgreSQL, an existing file with data) changes only when asked: `suikou migrate` once,
# or `serve --migrate`.
_AUTO_MIGRATE = {("fresh", "sqlite")}


def _schema_gate(engine: Any, settings: Settings, *, run_migrations: bool) -> None:
    from core.db import SCHEMA_HEAD, migrate, schema_status

    status, revision = schema_status(engine)
    if status == "head":
        return
    where = _shown_url(settings.database_url)
    if status == "unknown":
        _refuse(f"{where} is at revision {revision}, newer than this Suikou ({SCHEMA_HEAD}): upgrade Suikou.")
    if not run_migrations and (status, engine.dialect.name) not in _AUTO_MIGRATE:
        _refuse(
            f"{where} is not migrated (at {revision or 'no recorded revision'}, need {SCHEMA_HEAD}).\n"
            "Run `suikou migrate` once (before starting replicas), or `suikou serve --migrate`."
        )
    migrate(engine)
    typer.echo(f"Migrated {where}: {revision or 'empty'} -> {SCHEMA_HEAD}", err=True)


@cli.command("migrate")
def migrate_command() -> None:
    """Bring the configured database to this release's schema (run once, before replicas start)."""
    from core.db import SCHEMA_HEAD, migrate, schema_status

    settings = get_settings()
    where = _shown_url(settings.database_url)
    with _engine(settings) as engine, _unreachable_is_one_line(settings):
        status, revision = schema_status(engine)
        if status == "unknown":
            _refuse(f"{where} is at revision {revision}, newer than this Suikou ({SCHEMA_HEAD}): upgrade Suikou.")
        if status == "head":
            typer.echo(f"{where} is already at {SCHEMA_HEAD}: nothing to do.")
            return
        migrate(engine)
    typer.echo(f"Migrated {where}: {revision or 'empty'} -> {SCHEMA_HEAD}")


@contextmanager
def _unreachable_is_one_line(settings: Settings) -> Iterator[None]:
    """A database that is down or does not answer is one line on stderr and exit 1, not a traceback
    (whatever else goes wrong still shows one)."""
    from core.db import is_outage, outage_summary

    try:
        yield
    except typer.Exit:
        raise
    except Exception as exc:
        if not is_outage(exc):
            raise
        typer.echo(f"Cannot reach the database {_shown_url(settings.database_url)}: {outage_summary(exc)}", err=True)
        raise typer.Exit(1) from None


def _refuse(message: str) -> NoReturn:
    typer.echo(message, err=True)
    raise typer.Exit(2)


def _shown_url(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


@contextmanager
def _engine(settings: Settings) -> Iterator[Any]:
    from core.db import make_engine

    engine = make_engine(settings.database_url, **settings.engine_options())
    try:
        yield engine
    finally:
        engine.dispose()


def _keys_exist(engine: Any) -> bool:
    from core.accounts import keys_configured
    from core.db import session_factory

    with session_factory(engine)() as session:
        return keys_configured(session)


@cli.command()
def ask(
    message: Annotated[str, typer.Argument(help="What you would type in a chat client.")],
    user: Annotated[str, typer.Option(help="Act as this user.")] = "local",
    now: NowOption = None,
    tz: TzOption = None,
) -> None:
    """Send one message through the whole pipeline; print the stages, then the answer."""
    # The turn runs as the chat endpoint runs it, without the web app: FastAPI and the wire
    # format are not imported (a tenth of a second of every `ask`).
    import asyncio

    from core import carry
    from core.accounts import ensure_user
    from core.turn import ChatText

    settings = get_settings()
    zone = tz or settings.timezone
    fixed = _parse_now(now, zone)
    with _service(settings, clock=lambda: fixed) as state:
        with state.session() as session:
            user_id = ensure_user(session, user).id
            session.commit()
        assert user_id is not None
        turn = state.new_turn([ChatText("user", message)], user_id=user_id, tz=zone, client_message_id=None)
        turn.trace.sink = lambda event: typer.secho(event.as_line().rstrip(), fg="cyan", err=True)
        try:
            outcome = asyncio.run(state.pipeline.run(turn, request_extras={}))
        except Exception as exc:
            from app.turns import log_failure  # the server's failure line: how far the turn got

            log_failure(turn, exc)
            raise
    typer.echo(carry.strip(outcome.content))  # a person reads this; the carried record is for clients
    usage = turn.trace.usage
    typer.secho(
        f"(model requests: {usage.requests}, offline steps: {usage.offline_steps})", fg="bright_black", err=True
    )


@cli.command()
def doctor() -> None:
    """Check each node's provider with one tiny request; exit 1 when a node cannot answer."""
    import asyncio
    import time

    from app.state import hub_from_settings
    from core.llm import NODES, doctor_lines, probe_node

    _started()
    hub = hub_from_settings(get_settings())
    if all(hub.is_offline(node) for node in NODES):
        typer.echo("Every node is offline (SUIKOU_MODEL=offline): nothing to check.")
        return

    async def probe_all() -> list[Any]:
        try:
            return [await probe_node(hub, node, clock=time.monotonic) for node in NODES]
        finally:
            await hub.aclose()

    probes = asyncio.run(probe_all())
    for line in doctor_lines(probes):
        typer.echo(line)
    if not all(probe.ok for probe in probes):
        raise typer.Exit(1)


@cli.command()
def explain(
    sentence: Annotated[str | None, typer.Argument(help="The sentence to explain.")] = None,
    jsonl: Annotated[
        str | None, typer.Option("--jsonl", help="Read {sentence, now, tz} lines from a file ('-' = stdin).")
    ] = None,
    now: NowOption = None,
    tz: TzOption = None,
) -> None:
    """Print the action and the plan or note as JSON (no database writes)."""
    import asyncio
    import json

    from app.actions import build_registry
    from app.explain import explain as run_explain
    from app.state import hub_from_settings, turn_config_from
    from route.pipeline import Pipeline

    settings = get_settings()
    pipeline = Pipeline(build_registry())
    hub = hub_from_settings(settings)
    config = turn_config_from(settings)
    _started()

    async def one(text: str, when: str | None, zone: str) -> str:
        result = await run_explain(pipeline, hub, text, now=_parse_now(when, zone), tz=zone, config=config)
        return json.dumps(result, ensure_ascii=False)

    if jsonl is None:
        if sentence is None:
            raise typer.BadParameter("give a sentence or --jsonl FILE")
        zone = tz or settings.timezone
        typer.echo(asyncio.run(one(sentence, now, zone)))
        return

    async def many(lines: list[str]) -> None:
        for line in lines:
            if not line.strip():
                continue
            case = json.loads(line)
            zone = case.get("tz") or tz or settings.timezone
            print(await one(case["sentence"], case.get("now") or now, zone), flush=True)

    if jsonl == "-":
        lines = sys.stdin.readlines()
    else:
        with open(jsonl, encoding="utf-8") as handle:
            lines = handle.readlines()
    asyncio.run(many(lines))


@cli.command()
def demo(
    user: Annotated[str, typer.Option(help="Fill this user's task list.")] = "local",
    tz: TzOption = None,
) -> None:
    """Fill the local database with about thirty realistic tasks around today."""
    from app.demo import seed_demo
    from core.accounts import ensure_user

    settings = get_settings()
    zone = tz or settings.timezone
    with _database(settings) as sessions:
        with sessions() as session:
            user_id = ensure_user(session, user).id
            session.commit()
        assert user_id is not None
        added = seed_demo(sessions, user_id, now=datetime.now(ZoneInfo(zone)), tz=zone)
    if added:
        typer.echo(f"Added {added} demo tasks for user {user!r} in {settings.database_url}")
    else:
        typer.echo(f"User {user!r} already has tasks; nothing added.")


@cli.command("import")
def import_command(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, readable=True, help="The exported file.")],
    source: Annotated[
        SourceName,
        typer.Option(help="ticktick: its backup CSV; todoist: a project's CSV template; suikou: `suikou export`."),
    ],
    user: Annotated[
        str, typer.Option(help="Whose tasks they become, created if missing (local: keyless mode's user).")
    ] = "local",
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Read and count, write nothing.")] = False,
    timezone: ZoneOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Import a TickTick, Todoist or Suikou export as USER's tasks, in one change (one revert undoes it).

    Rows imported before are skipped, so the same file twice creates nothing new. A malformed file
    is `error: row N, column C: ...` and exit 1, with nothing written.
    """
    import json

    from core import writes
    from exchange import importer
    from exchange.rows import BadFile

    if not user.strip():
        _refuse("--user must name someone.")
    settings = get_settings()
    zone = _zone(timezone or settings.timezone)
    data = _read_bytes(file)
    now = datetime.now(UTC)
    try:
        parsed = importer.parse(data, source, tz=zone, now=now)
        with _database(settings) as sessions:
            by = writes.author(_importer_id(sessions, user, dry_run=dry_run), now, "import")
            summary = importer.run(sessions, by, parsed, source, tz=zone, dry_run=dry_run)
    except BadFile as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(json.dumps(summary.as_dict(), ensure_ascii=False) if as_json else _import_report(summary, user))


def _zone(name: str) -> str:
    """``name`` if it is an IANA timezone, else exit 2 saying so."""
    try:
        ZoneInfo(name)
    except (KeyError, ValueError):  # ZoneInfoNotFoundError is a KeyError
        _refuse(f"Unknown timezone {name!r} (an IANA name such as Asia/Shanghai).")
    return name


def _read_bytes(file: Path) -> bytes:
    try:
        return file.read_bytes()
    except OSError as exc:
        _refuse(f"Cannot read {file}: {exc.strerror or exc}")


def _importer_id(sessions: Callable[[], Session], user: str, *, dry_run: bool) -> int:
    """The user's id, the user created if missing; a dry run creates no one (a user who is not
    there yet has no tasks, so no row is a duplicate: id 0 matches none)."""
    if not dry_run:
        return _user_id(sessions, user)
    from core.accounts import get_user

    with sessions() as session:
        found = get_user(session, user.strip())
    return found.id if found is not None and found.id is not None else 0


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {n}" for name, n in counts.items())


def _import_report(summary: Summary, user: str) -> str:
    """The summary as a person reads it: created, skipped by reason, values not kept, how to undo."""
    verb = "Would import" if summary.dry_run else "Imported"
    tasks = "task" if summary.created == 1 else "tasks"
    skipped = f" ({summary.skipped} skipped: {_counts(summary.by_reason)})" if summary.skipped else ""
    lines = [f"{verb} {summary.created} {tasks} for {user}{skipped}."]
    if summary.not_kept:
        lines.append(f"Not kept (Suikou has no field for them yet): {_counts(summary.not_kept)}.")
    if summary.change_ids:
        lines.append(
            f"Undo: POST /changes/{summary.change_ids[0]}/revert (any of its changes takes the whole import back)."
        )
    return "\n".join(lines)


@cli.command()
def export(
    user: Annotated[str, typer.Option(help="Whose tasks (local: keyless mode's user).")] = "local",
    fmt: Annotated[
        ExportFormat,
        typer.Option("--format", help="json, csv or ics (iCalendar): `suikou import --source suikou` reads each back."),
    ] = "json",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", dir_okay=False, help="Write to this file (default: stdout).")
    ] = None,
    timezone: ZoneOption = None,
) -> None:
    """Write USER's tasks as JSON, CSV or iCalendar: open and completed, repetition and reminders included."""
    settings = get_settings()
    zone = _zone(timezone or settings.timezone)
    with _database(settings) as sessions:
        body = _render(_tasks_of(sessions, user), fmt, zone)
    if output is None:
        sys.stdout.buffer.write(body)
        sys.stdout.buffer.flush()
        return
    try:
        output.write_bytes(body)
    except OSError as exc:
        typer.echo(f"error: cannot write {output}: {exc.strerror or exc}", err=True)
        raise typer.Exit(1) from None


def _tasks_of(sessions: Callable[[], Session], user: str) -> list[Task]:
    """The user's tasks by id; an unknown user is an error (exit 1)."""
    from sqlmodel import col, select

    from core.accounts import get_user
    from core.models import Task

    with sessions() as session:
        found = get_user(session, user.strip())
        if found is None:
            typer.echo(f"error: no user {user!r}.", err=True)
            raise typer.Exit(1)
        return list(session.exec(select(Task).where(col(Task.user_id) == found.id).order_by(col(Task.id))))


def _render(tasks: list[Task], fmt: ExportFormat, zone: str) -> bytes:
    from exchange import ics, native

    if fmt == "ics":
        return ics.render(tasks, tz=zone)
    if fmt == "csv":
        return native.to_csv(tasks, tz=zone)
    return native.to_json(tasks, tz=zone, now=datetime.now(UTC))


@cli.command()
def mcp(
    user: Annotated[str, typer.Option(help="Act as this user (created if missing).")] = "local",
    tz: TzOption = None,
) -> None:
    """Serve the MCP tools over stdio, as USER (for Claude Desktop, Cursor, Cherry Studio)."""
    # stdout is the protocol: this command prints nothing (the SDK logs to stderr).
    from app.mcp_server import CALLER, make_mcp
    from core.accounts import ensure_user

    settings = get_settings()
    zone = tz or settings.timezone
    with _service(settings) as state:
        with state.session() as session:
            user_id = ensure_user(session, user).id
            session.commit()
        server = make_mcp(lambda: state, default_tz=zone)
        CALLER.set(user_id)  # before run: anyio.run copies this context into the server's tasks
        server.run("stdio")


def _keyless_mode_ends_warning(user: str) -> str:
    """What the operator must know when the first key ever is created: keyless mode is over."""
    from core.accounts import LOCAL_USER

    lines = [
        "Warning: this is the first API key, so keyless mode ends now.",
        "From now on every request needs 'Authorization: Bearer <key>' (without a valid key: 401), except"
        " /healthz, /readyz, the playground page (/ and /playground, which asks for the key) and the API"
        " reference (/docs, /openapi.json), none of which shows a task, and calendar subscribe links"
        " (/calendar/{token}.ics), which show their owner's tasks to whoever has the link's secret token (revoking"
        " the link closes it). Revoking keys later does not bring keyless mode back.",
    ]
    if user == LOCAL_USER:
        lines.append(
            f"This key maps to user {user!r}, the user keyless mode and `suikou demo` use:"
            f" the tasks of user {LOCAL_USER!r} are reachable with it."
        )
    else:
        lines.append(
            f"This key maps to user {user!r}. The tasks of user {LOCAL_USER!r} (keyless mode, `suikou demo`)"
            f" are not reachable with it; create a key with `--user {LOCAL_USER}` to keep them."
        )
    return "\n".join(lines)


@apikey_cli.command("create")
def apikey_create(
    user: Annotated[
        str,
        typer.Option(help="The user this key acts as; local is the user of keyless mode and `suikou demo`."),
    ] = "local",
) -> None:
    """Create a key; prints the key alone on stdout (it is shown only once).

    The first key ever ends keyless mode for every endpoint: a warning on stderr says so.
    """
    from core.accounts import create_api_key, keys_configured

    with _database(get_settings()) as sessions, sessions() as session:
        first = not keys_configured(session)
        key = create_api_key(session, user)
        session.commit()
    if first:
        typer.echo(_keyless_mode_ends_warning(user.strip()), err=True)
    typer.echo(key)


@apikey_cli.command("list")
def apikey_list() -> None:
    """List keys (prefix, user, state), never the keys themselves."""
    from core.accounts import list_api_keys

    with _database(get_settings()) as sessions, sessions() as session:
        for info in list_api_keys(session):
            status = "active" if info.active else f"revoked {info.revoked_at:%Y-%m-%d}"
            typer.echo(f"{info.id}\t{info.prefix}…\t{info.user_name}\t{status}")


@apikey_cli.command("revoke")
def apikey_revoke(key: Annotated[str, typer.Argument(help="Key id or display prefix.")]) -> None:
    """Revoke a key by id or prefix."""
    from core.accounts import revoke_api_key

    with _database(get_settings()) as sessions, sessions() as session:
        ok = revoke_api_key(session, int(key) if key.isdigit() else key)
        session.commit()
    if not ok:
        typer.echo(f"No active key {key!r}.", err=True)
        raise typer.Exit(1)
    typer.echo("revoked")


@cli.command()
def worker() -> None:
    """Fire reminders and send webhook deliveries until stopped (Ctrl-C, SIGTERM): for a `suikou serve`
    run with SUIKOU_DELIVERIES=false, or as more workers on PostgreSQL (claims are leased, so
    workers share the work)."""
    import asyncio
    import signal

    from app.deliveries import engine_for, sqlite_lock

    settings = get_settings()
    with _service(settings) as state:
        lock = sqlite_lock(settings.database_url)
        if lock is None:
            _refuse("Another process already delivers for this SQLite database (its lock file is held).")
        engine = engine_for(state)

        async def run() -> None:
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stop.set)
            typer.echo(f"Delivering for {_shown_url(settings.database_url)}; Ctrl-C stops.", err=True)
            await engine.run(stop)

        asyncio.run(run())


def _user_id(sessions: Callable[[], Session], user: str) -> int:
    from core.accounts import ensure_user

    with sessions() as session:
        user_id = ensure_user(session, user).id
        session.commit()
    assert user_id is not None
    return user_id


@webhook_cli.command("add")
def webhook_add(
    url: Annotated[str, typer.Argument(help="Where to POST (a public https URL).")],
    user: UserOption = "local",
    events: Annotated[str, typer.Option(help="Comma list of event types, or * for all.")] = "*",
    kind: Annotated[str, typer.Option(help="generic, feishu, wecom, dingtalk or ntfy.")] = "generic",
    secret: Annotated[str | None, typer.Option(help="Signing key / bot secret / ntfy token.")] = None,
    locale: Annotated[str, typer.Option(help="Bot messages in zh or en.")] = "zh",
    tz: TzOption = None,
) -> None:
    """Add a webhook; prints its id and, once, its secret."""
    import asyncio

    from webhooks import service

    settings = get_settings()
    with _database(settings) as sessions:
        user_id = _user_id(sessions, user)
        with sessions() as session:
            try:
                created = asyncio.run(
                    service.create(
                        session, user_id, url=url, events=[e.strip() for e in events.split(",") if e.strip()],
                        kind=kind, secret=secret, locale=locale, timezone=tz or settings.timezone,
                        now=datetime.now(ZoneInfo("UTC")), allow_private=settings.webhook_allow_private,
                    )
                )  # fmt: skip
            except service.Invalid as exc:
                _refuse(f"{exc.param}: {exc}")
    typer.echo(f"id\t{created.webhook.id}")
    if created.secret:
        typer.echo(f"secret\t{created.secret}")


@webhook_cli.command("list")
def webhook_list(user: UserOption = "local") -> None:
    """The user's webhooks: id, kind, events, URL (never the secret)."""
    import json as jsonlib

    from webhooks import service

    with _database(get_settings()) as sessions:
        user_id = _user_id(sessions, user)
        with sessions() as session:
            for hook in service.listed(session, user_id):
                typer.echo(f"{hook.id}\t{hook.kind}\t{','.join(jsonlib.loads(hook.events))}\t{hook.url}")


@webhook_cli.command("remove")
def webhook_remove(
    webhook_id: Annotated[int, typer.Argument(help="The webhook's id.")], user: UserOption = "local"
) -> None:
    """Remove a webhook (deliveries not yet sent are not sent)."""
    from webhooks import service

    with _database(get_settings()) as sessions:
        user_id = _user_id(sessions, user)
        with sessions() as session:
            if not service.delete(session, user_id, webhook_id):
                _refuse(f"No webhook {webhook_id} of user {user!r}.")
    typer.echo("removed")


@webhook_cli.command("deliveries")
def webhook_deliveries(
    webhook_id: Annotated[int, typer.Argument(help="The webhook's id.")],
    user: UserOption = "local",
    limit: Annotated[int, typer.Option(min=1, max=200)] = 20,
) -> None:
    """Its newest deliveries: id, event, status, attempts, last error."""
    from webhooks import service

    with _database(get_settings()) as sessions:
        user_id = _user_id(sessions, user)
        with sessions() as session:
            if service.get(session, user_id, webhook_id) is None:
                _refuse(f"No webhook {webhook_id} of user {user!r}.")
            for d, e in service.deliveries(session, user_id, webhook_id, limit=limit):
                typer.echo(f"{d.id}\t{e.type}\t{d.status}\t{d.attempts}\t{d.last_error or ''}")


@webhook_cli.command("redeliver")
def webhook_redeliver(
    webhook_id: Annotated[int, typer.Argument(help="The webhook's id.")],
    delivery_id: Annotated[str, typer.Argument(help="The delivery's id (dlv_…).")],
    user: UserOption = "local",
) -> None:
    """Send a delivery again (same delivery id, fresh attempts)."""
    from webhooks import service

    with _database(get_settings()) as sessions:
        user_id = _user_id(sessions, user)
        with sessions() as session:
            found = service.redeliver(session, user_id, webhook_id, delivery_id, now=datetime.now(ZoneInfo("UTC")))
    if found is None:
        _refuse(f"No delivery {delivery_id} of webhook {webhook_id}.")
    typer.echo("queued")


@contextmanager
def _service(settings: Settings, **kwargs: Any) -> Iterator[AppState]:
    """The service's state for one command; its database connections are closed when it ends."""
    from app.state import build_state

    state = build_state(settings, **kwargs)
    _started()
    try:
        yield state
    finally:
        state.engine.dispose()


@contextmanager
def _database(settings: Settings) -> Iterator[Callable[[], Session]]:
    """Sessions on the migrated database, for commands that need no chat pipeline; closed when it ends."""
    from core.db import make_engine, migrate, session_factory

    engine = make_engine(settings.database_url, **settings.engine_options())
    try:
        migrate(engine)
        _started()
        yield session_factory(engine)
    finally:
        engine.dispose()


def main() -> None:
    """The `suikou` script.

    The garbage collector is off until the command has imported what it needs (`_started`).
    Start-up creates some 130k tracked objects (modules, classes, schemas) that live until the
    process ends: the collector would walk them again and again while they are created, and
    once more at exit. Frozen, they cost neither: about 0.13 s of a cold `ask`, 0.1 s of the
    server's start.
    """
    gc.disable()
    cli()
