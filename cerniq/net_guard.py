"""May the server call this host now? The one owner of that rule (the SSRF guard).

Tenant admins and API keys give the server places to call: outgoing webhook endpoints
(cerniq.outbound) and alert channels (cerniq.alert_channels, through apprise). Unchecked,
a tenant could make our workers call the deployment's own network (a cloud metadata
service at 169.254.169.254, the database, the admin) and learn from the answer, or from
how the call failed, what listens there.

The rule: a host may be called only when every address it resolves to is public (not
private, loopback, link-local, shared 100.64/10, reserved, multicast, unspecified, site
local). An IPv6 address that carries an IPv4 one (mapped ::ffff:a.b.c.d, compatible
::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo 2001::/32) is judged by the IPv4
address(es) it carries: the standard library calls ::127.0.0.1 global. The local-use NAT64
prefix 64:ff9b:1::/48 is refused whatever it carries.

- `check_host` (when a URL is saved) resolves the name and refuses non-public answers.
- `guarded` (around every send) vets the hosts first (refused: nothing is connected) and,
  while it is open in this thread (a context variable, so apprise's worker threads see it
  too), makes every name resolution return only vetted addresses, the ones checked: a DNS
  answer that changes between the check and the connect is never used. A name not vetted
  yet (a redirect, a plugin's own API host) is vetted when it is resolved. An audit hook
  refuses any socket connect or sendto to a non-public address inside it, for a library
  that reaches a socket without resolving through us.
- `settings.OUTBOUND_ALLOW_LOCAL_TARGETS` (development, tests) lifts the rule.
"""

from __future__ import annotations

import contextvars
import ipaddress
import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from cerniq import platform_reasons, reasons

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def _networks(*cidrs: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(cidr) for cidr in cidrs)


# Not the public Internet, whatever a Python release's `is_global` table says (3.11 calls
# 192.0.0.8 and fec0::1 global): the IANA special-purpose registries, the few globally
# reachable exceptions (anycast relays nobody posts alerts to) refused with their block.
_NOT_GLOBAL = _networks(
    "0.0.0.0/8",
    "10.0.0.0/8",
    "100.64.0.0/10",  # shared address space (carrier-grade NAT)
    "127.0.0.0/8",
    "169.254.0.0/16",  # link-local: cloud metadata services live here
    "172.16.0.0/12",
    "192.0.0.0/24",
    "192.0.2.0/24",
    "192.88.99.0/24",
    "192.168.0.0/16",
    "198.18.0.0/15",
    "198.51.100.0/24",
    "203.0.113.0/24",
    "224.0.0.0/4",
    "240.0.0.0/4",
    "::/127",
    "100::/64",
    "2001::/23",  # IETF protocol assignments (Teredo, inside it, is judged by what it carries)
    "2001:db8::/32",
    "3fff::/20",
    "5f00::/16",
    "fc00::/7",
    "fe80::/10",
    "fec0::/10",
    "ff00::/8",
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
# For a network's own translator (RFC 8215), where the IPv4 address may sit at any of
# several offsets: refused outright, as newer Pythons call it private.
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_SOCKET_EVENTS = frozenset({"socket.connect", "socket.sendto", "socket.sendmsg"})

# The resolver as it was before `_install` wrapped it (tests fake names one level lower,
# at `_socket.getaddrinfo`, which this calls).
_system_getaddrinfo = socket.getaddrinfo


class DestinationRefused(OSError):
    """The host leads (or may lead) somewhere other than the public Internet. An OSError,
    so an HTTP or SMTP library inside `guarded` treats it as a failed connection."""

    def __init__(self, host: str) -> None:
        super().__init__(f"refused: {host} does not resolve to a public Internet address")
        self.host = host

    @property
    def reason(self) -> str:
        """The stored form (cerniq.reasons), shown in the reader's language."""
        return reasons.code(platform_reasons.DESTINATION_REFUSED, host=self.host)

    @property
    def message(self) -> str:
        return reasons.render(self.reason)


def allow_local() -> bool:
    return bool(settings.OUTBOUND_ALLOW_LOCAL_TARGETS)


def carried_ipv4(ip: ipaddress.IPv6Address) -> tuple[ipaddress.IPv4Address, ...]:
    """The IPv4 addresses an IPv6 address stands for, if it is one of the forms that embed
    them; empty for an ordinary IPv6 address."""
    if ip.ipv4_mapped is not None:
        return (ip.ipv4_mapped,)
    if ip.teredo is not None:
        return ip.teredo  # (server, client), the client's bits already un-obfuscated
    if ip.sixtofour is not None:
        return (ip.sixtofour,)
    if ip in _NAT64 or ip in _NAT64_LOCAL or ip in _IPV4_COMPATIBLE:
        return (ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF),)
    return ()


def _is_public_ip(ip: IPAddress) -> bool:
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.scope_id or ip in _NAT64_LOCAL:
            return False  # fe80::1%eth0: a link's own; 64:ff9b:1::/48: see above
        carried = carried_ipv4(ip)
        if carried:
            return all(_is_public_ip(v4) for v4 in carried)
    if any(ip in network for network in _NOT_GLOBAL if network.version == ip.version):
        return False
    # And whatever this Python's tables add (is_global is True for multicast: named).
    blocked = (
        ip.is_multicast
        or ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_reserved
        or ip.is_unspecified
    )
    return ip.is_global and not blocked


def is_public(address: str | IPAddress) -> bool:
    """True for an ordinary public unicast address; False for anything else, including
    text that is not an IP address."""
    if not isinstance(address, str):
        return _is_public_ip(address)
    try:
        return _is_public_ip(ipaddress.ip_address(address.strip("[]")))
    except ValueError:
        return False


def _key(host: str | bytes) -> str:
    name = host.decode("ascii", "replace") if isinstance(host, bytes) else host
    return name.strip().strip("[]").lower()


def vet(host: str, port: int | None = None) -> tuple[str, ...]:
    """The addresses `host` resolves to, when all are public; else DestinationRefused.
    Integer and hex forms (2130706433, 0x7f.1) resolve like any name, and are judged by
    what they resolve to. A name that does not resolve is refused the same way (one
    message: whether an internal name exists is not told)."""
    name = _key(host)
    if not name:
        raise DestinationRefused(host)
    try:
        found = _system_getaddrinfo(name, port, 0, socket.SOCK_STREAM)
    except (OSError, UnicodeError, ValueError):
        raise DestinationRefused(host) from None
    addresses = tuple(dict.fromkeys(str(info[4][0]) for info in found))
    if not addresses or not all(is_public(address) for address in addresses):
        raise DestinationRefused(host)
    return addresses


def check_host(host: str, port: int | None = None) -> None:
    """When a URL is saved: DestinationRefused unless `host` may be called (always may with
    OUTBOUND_ALLOW_LOCAL_TARGETS, without resolving: a development receiver may be down)."""
    if not allow_local():
        vet(host, port)


@dataclass
class Guard:
    """The hosts vetted for one send and what was refused during it."""

    pins: dict[str, tuple[str, ...]] = field(default_factory=dict)
    refused: list[str] = field(default_factory=list)

    @property
    def refusal(self) -> str:
        """The stored reason of the first refusal during the send, "" when none."""
        return DestinationRefused(self.refused[0]).reason if self.refused else ""

    def addresses(self, host: str | bytes, port: Any = None) -> tuple[str, ...]:
        name = _key(host)
        if name not in self.pins:
            try:
                self.pins[name] = vet(name, port if isinstance(port, int) else None)
            except DestinationRefused:
                self.refused.append(name)
                raise
        return self.pins[name]


_ACTIVE: contextvars.ContextVar[Guard | None] = contextvars.ContextVar(
    "cerniq_net_guard", default=None
)
_installed = False
_install_lock = threading.Lock()


@contextmanager
def guarded(*hosts: str) -> Iterator[Guard]:
    """Vet `hosts` (DestinationRefused before anything is connected), then run the block
    with resolution pinned to vetted addresses and connects to non-public ones refused.
    With OUTBOUND_ALLOW_LOCAL_TARGETS nothing is checked."""
    guard = Guard()
    if allow_local():
        yield guard
        return
    _install()
    for host in hosts:
        guard.addresses(host)
    token = _ACTIVE.set(guard)
    try:
        yield guard
    finally:
        _ACTIVE.reset(token)


def _guarded_getaddrinfo(
    host: Any, port: Any, family: int = 0, type: int = 0, proto: int = 0, flags: int = 0
) -> list:
    guard = _ACTIVE.get()
    if guard is None or host is None:
        return _system_getaddrinfo(host, port, family, type, proto, flags)
    answers: list = []
    for address in guard.addresses(host, port):
        try:  # a numeric address: no DNS query, only the answer's shape for the caller
            answers += _system_getaddrinfo(
                address, port, family, type, proto, flags | socket.AI_NUMERICHOST
            )
        except socket.gaierror:
            continue  # an IPv6 answer to an IPv4-only question
    if not answers:
        raise socket.gaierror(socket.EAI_NONAME, f"no vetted address of {host} fits")
    return answers


def _audit(event: str, args: tuple) -> None:
    """The net under it all: inside `guarded`, no socket reaches a non-public address."""
    if event not in _SOCKET_EVENTS:
        return
    guard = _ACTIVE.get()
    if guard is None:
        return
    sock, address = args[0], args[1]
    if getattr(sock, "family", None) not in (socket.AF_INET, socket.AF_INET6):
        return
    if not isinstance(address, tuple) or not address:
        return  # sendmsg on a connected socket: its connect was checked
    host = str(address[0])
    if not is_public(host):
        guard.refused.append(_key(host))
        raise DestinationRefused(host)


def _install() -> None:
    """Wrap the process's resolver and add the audit hook, once. Outside `guarded` both
    only pass through (one context variable read)."""
    global _installed
    if _installed:
        return
    with _install_lock:
        if not _installed:
            socket.getaddrinfo = _guarded_getaddrinfo
            sys.addaudithook(_audit)
            _installed = True
