"""Where a webhook may point: never into the service's own network (SSRF).

A URL is http(s) with a host and no credentials. Its host is resolved, and every address it
resolves to must be public: loopback, private, link-local, shared (CGNAT), multicast, reserved and
cloud metadata addresses are refused — unless the operator allows private targets
(``SUIKOU_WEBHOOK_ALLOW_PRIVATE``, e.g. a receiver on the same LAN). The check runs when a webhook
is created and again before every delivery, and the request then goes to the very address that was
checked (the URL's host is kept for ``Host`` and TLS), so a name that re-resolves to 127.0.0.1
after the check (DNS rebinding) reaches nothing. Redirects are never followed.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

import anyio.to_thread

__all__ = ["MAX_URL_CHARS", "Refused", "Target", "check_url", "resolve"]

MAX_URL_CHARS = 2000
# Cloud metadata endpoints (AWS/GCP/Azure/OpenStack, AWS over IPv6, Alibaba Cloud, AWS ECS).
_METADATA = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200", "169.254.170.2")
)

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class Refused(ValueError):
    """A URL a webhook may not use; the message says why, in words a client can act on."""


@dataclass(frozen=True)
class Target:
    """A checked URL: where to connect (``address``), and the URL as written."""

    url: str
    scheme: str
    host: str
    port: int
    address: str

    def pinned_url(self) -> str:
        """The URL with its host replaced by the checked address (the request goes there)."""
        parts = urlsplit(self.url)
        literal = f"[{self.address}]" if ":" in self.address else self.address
        return parts._replace(netloc=f"{literal}:{self.port}").geturl()

    @property
    def host_header(self) -> str:
        default = 443 if self.scheme == "https" else 80
        literal = f"[{self.host}]" if ":" in self.host else self.host
        return literal if self.port == default else f"{literal}:{self.port}"


def check_url(url: str) -> SplitResult:
    """The URL's parts, or :class:`Refused` for one no webhook may have (before any lookup)."""
    if len(url) > MAX_URL_CHARS:
        raise Refused(f"The URL is longer than {MAX_URL_CHARS} characters.")
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise Refused(f"The URL can't be read: {exc}.") from exc
    if parts.scheme not in ("http", "https"):
        raise Refused("The URL must start with https:// (or http://).")
    if not parts.hostname:
        raise Refused("The URL has no host.")
    if parts.username is not None or parts.password is not None:
        raise Refused("The URL must not carry a user name or password; put a secret in `secret`.")
    if port == 0:
        raise Refused("The URL's port must be 1-65535.")
    return parts


def allowed(address: IPAddress, *, allow_private: bool) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_unspecified:
        return False
    if allow_private:
        return True
    return address.is_global and not address.is_multicast and address not in _METADATA


async def resolve(url: str, *, allow_private: bool) -> Target:
    """Checks ``url`` and every address its host resolves to; the first allowed address to use."""
    parts = check_url(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        literal: IPAddress | None = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        addresses = [literal]
    else:
        try:
            infos = await anyio.to_thread.run_sync(lambda: socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except (OSError, UnicodeError) as exc:
            raise Refused(f"The host {host!r} can't be resolved.") from exc
        addresses = list(dict.fromkeys(ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos))
    refused = [a for a in addresses if not allowed(a, allow_private=allow_private)]
    if refused or not addresses:
        raise Refused(
            f"The host {host!r} resolves to a private, loopback, link-local or metadata address "
            f"({refused[0] if refused else 'none'}); webhooks only go to public addresses."
        )
    return Target(url.strip(), parts.scheme, host, port, str(addresses[0]))
