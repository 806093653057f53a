"""Which pages may reach the service: the `Host` a request names and the origin it comes from.

Keyless mode serves whoever reaches the port, and any web page the user opens can make the
browser reach it (docs/fdr/0022-host-and-origin.md):

- DNS rebinding: a page on evil.example whose name is then pointed at 127.0.0.1 is, to the
  browser, same-origin with this server: it reads and writes everything. Its requests still say
  `Host: evil.example`, so only the names on the list are served (421), on every route.
- Cross-site writes: any page may send a "simple" request (a body-less or text/plain POST, a
  form) without asking first. A state-changing request whose `Origin` is neither this server's own
  nor listed is refused (403) before anything reads it; without `Origin`, `Sec-Fetch-Site` decides.

A request with neither header (curl, the SDKs, a server-side client) is not a page's: it passes.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from app.errors import ApiError, Forbidden, MisdirectedRequest
from app.settings import Settings

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARD_ADDRESSES = frozenset({"", "0.0.0.0", "::"})  # bound to every address: names none of them
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
# Sent by every current browser; `same-site` is another port or subdomain: another origin too.
FOREIGN_FETCH_SITES = frozenset({"cross-site", "same-site"})
DEFAULT_PORTS = {"http": 80, "https": 443}
NULL_ORIGIN = "null"  # sandboxed frames, file:// pages, a redirect from another origin

# A name or IPv4 address, or an IPv6 address in brackets; then an optional port. Nothing else
# (no userinfo, no path): a Host that does not parse is not one of ours.
_AUTHORITY = r"(?:\[(?P<v6>[0-9a-f:.]+)\]|(?P<name>[a-z0-9_.-]+))(?::(?P<port>[0-9]{1,5}))?"
_HOST = re.compile(_AUTHORITY)
_ORIGIN = re.compile(rf"(?P<scheme>https?)://{_AUTHORITY}")
_NAME = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*")


@dataclass(frozen=True)
class Authority:
    name: str  # lower case; an IPv6 address without its brackets
    port: int | None


@dataclass(frozen=True)
class Origin:
    scheme: str
    host: Authority

    @property
    def port(self) -> int:
        return self.host.port or DEFAULT_PORTS[self.scheme]

    def serialized(self) -> str:
        """As a browser writes it: lower case, the scheme's default port left out."""
        port = "" if self.port == DEFAULT_PORTS[self.scheme] else f":{self.port}"
        return f"{self.scheme}://{_bracketed(self.host.name)}{port}"

    def is_of(self, host: Authority) -> bool:
        """Same origin as a request to `host`. Its scheme is not compared: behind a TLS proxy the
        server cannot see it, and the port (or its absence) already tells the two apart."""
        return self.host.name == host.name and self.port == (host.port or DEFAULT_PORTS[self.scheme])


def _authority(match: re.Match[str] | None) -> Authority | None:
    if match is None:
        return None
    port = match["port"]
    if match["v6"] is not None:
        try:
            name = str(ipaddress.IPv6Address(match["v6"]))
        except ValueError:
            return None
    else:
        name = match["name"]
    return Authority(name, int(port) if port else None)


def parse_host(value: str) -> Authority | None:
    return _authority(_HOST.fullmatch(value.strip().lower()))


def parse_origin(value: str) -> Origin | None:
    match = _ORIGIN.fullmatch(value.strip().lower())
    host = _authority(match)
    return Origin(match["scheme"], host) if match and host else None


def _bracketed(name: str) -> str:
    return f"[{name}]" if ":" in name else name


def _items(value: str) -> list[str]:
    return [item.strip().lower() for item in value.split(",") if item.strip()]


@dataclass(frozen=True)
class Policy:
    """The hosts served and the other origins trusted to write."""

    names: frozenset[str]
    suffixes: tuple[str, ...] = ()  # ".example.com" for "*.example.com"
    any_host: bool = False
    origins: frozenset[str] = frozenset()

    def serves(self, host: Authority) -> bool:
        return self.any_host or host.name in self.names or host.name.endswith(self.suffixes)

    def foreign(self, headers: Headers, host: Authority) -> str | None:
        """Why a request comes from a page on another origin, or None when it does not."""
        value = headers.get("origin")
        if value is not None:
            if value.strip().lower() == NULL_ORIGIN:
                trusted = NULL_ORIGIN in self.origins
            else:
                origin = parse_origin(value)
                trusted = origin is not None and (origin.is_of(host) or origin.serialized() in self.origins)
            return None if trusted else f"Origin {value[:100]!r} is not this server's origin"
        site = headers.get("sec-fetch-site", "").lower()
        return f"the browser says Sec-Fetch-Site: {site}, and sent no Origin" if site in FOREIGN_FETCH_SITES else None

    def refusal(self, method: str, headers: Headers) -> ApiError | None:
        values = headers.getlist("host")
        host = parse_host(values[0]) if len(values) == 1 else None
        if host is None or not self.serves(host):
            shown = ", ".join(values)[:100]
            return MisdirectedRequest(
                f"This server does not answer to Host {shown!r}: a page whose name merely points here (DNS "
                "rebinding) gets nothing. If the name is this server's, add it to SUIKOU_ALLOWED_HOSTS."
            )
        if method not in SAFE_METHODS and (why := self.foreign(headers, host)):
            return Forbidden(
                f"Cross-origin request refused: {why}. Pages on other origins cannot change anything here; "
                "to trust one, add its origin to SUIKOU_ALLOWED_ORIGINS.",
                code="cross_origin_request",
            )
        return None


def _host_entry(entry: str) -> tuple[str, str]:
    """('name', host) or ('suffix', '.domain') or ('any', '*'), from one SUIKOU_ALLOWED_HOSTS entry."""
    if entry == "*":
        return "any", entry
    if entry.startswith("*.") and _NAME.fullmatch(entry[2:]):
        return "suffix", entry[1:]
    if _NAME.fullmatch(entry):
        return "name", entry
    try:
        return "name", str(ipaddress.IPv6Address(entry.removeprefix("[").removesuffix("]")))
    except ValueError:
        raise ValueError(
            f"SUIKOU_ALLOWED_HOSTS: {entry!r} is not a host name, an IP address, '*.domain' or '*' "
            "(list names without a port: the port is not checked)"
        ) from None


def _origin_entry(entry: str) -> str:
    if entry == NULL_ORIGIN:
        return entry
    origin = parse_origin(entry)
    if origin is None:
        raise ValueError(
            f"SUIKOU_ALLOWED_ORIGINS: {entry!r} is not an origin such as 'https://app.example.com' (a scheme, "
            "a host and an optional port, no path) or 'null'"
        )
    return origin.serialized()


def policy_for(settings: Settings) -> Policy:
    """The loopback names, the bound host (unless it is every address), and the listed ones.
    A malformed list stops the app from starting, with the entry in the message."""
    bound = settings.host.strip().lower().removeprefix("[").removesuffix("]")
    entries = [*LOOPBACK_NAMES, *([] if bound in WILDCARD_ADDRESSES else [bound]), *_items(settings.allowed_hosts)]
    kinds: dict[str, set[str]] = {"name": set(), "suffix": set(), "any": set()}
    for entry in entries:
        kind, value = _host_entry(entry)
        kinds[kind].add(value)
    return Policy(
        names=frozenset(kinds["name"]),
        suffixes=tuple(sorted(kinds["suffix"])),
        any_host=bool(kinds["any"]),
        origins=frozenset(_origin_entry(entry) for entry in _items(settings.allowed_origins)),
    )


def mcp_transport_security(policy: Policy) -> TransportSecuritySettings:
    """The same list in the MCP SDK's terms (exact `host` or `host:*`), for its own check on /mcp:
    a second lock behind the guard. The SDK has no subdomain or any-host pattern, so with one of
    those listed its check is off and the guard alone decides."""
    if policy.any_host or policy.suffixes:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    hosts = sorted(_bracketed(name) for name in policy.names)
    own = [f"{scheme}://{host}{port}" for host in hosts for scheme in DEFAULT_PORTS for port in ("", ":*")]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[pattern for host in hosts for pattern in (host, f"{host}:*")],
        allowed_origins=sorted(policy.origins) + own,
    )


class RequestGuard:
    """ASGI, in front of routing: a Host not served is a 421; a write from a page elsewhere a 403."""

    def __init__(self, app: ASGIApp, policy: Policy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and (refusal := self.policy.refusal(scope["method"], Headers(scope=scope))):
            await refusal.response()(scope, receive, send)
            return
        await self.app(scope, receive, send)
