"""Name resolution faked at the socket boundary: `_socket.getaddrinfo`, which the standard
library's `socket.getaddrinfo` calls (and, under it, cerniq.net_guard's resolver). Names
answer from a table a test may change between lookups (a DNS rebinding attacker); numeric
hosts (127.0.0.1, 2130706433, 0x7f.1, ::1) are parsed as the system parses them; any other
name is not found. No DNS query leaves the machine."""

from __future__ import annotations

import _socket
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_system = _socket.getaddrinfo


class FakeDNS:
    def __init__(self, names: dict[str, list[str]]) -> None:
        self.names = {name.lower(): list(addresses) for name, addresses in names.items()}
        self.asked: list[str] = []  # names looked up (numeric hosts are not)
        self._next: dict[str, list[str]] = {}

    def rebind(self, name: str, addresses: list[str]) -> None:
        """Answer `name` as now once more, then with `addresses` (DNS rebinding)."""
        self._next[name.lower()] = list(addresses)

    def getaddrinfo(
        self, host: Any, port: Any, family: int = 0, type: int = 0, proto: int = 0, flags: int = 0
    ) -> list:
        numeric = flags | socket.AI_NUMERICHOST
        try:
            _system(host, None, 0, 0, 0, socket.AI_NUMERICHOST)
        except socket.gaierror:
            pass  # a name
        else:
            return _system(host, port, family, type, proto, numeric)
        name = (host.decode() if isinstance(host, bytes) else str(host)).lower()
        self.asked.append(name)
        if name not in self.names:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        answers: list = []
        for address in self.names[name]:
            answers += _system(address, port, family, type, proto, numeric)
        if name in self._next:
            self.names[name] = self._next.pop(name)
        return answers


@contextmanager
def fake_dns(names: dict[str, list[str]] | None = None) -> Iterator[FakeDNS]:
    fake = FakeDNS(names or {})
    _socket.getaddrinfo = fake.getaddrinfo
    try:
        yield fake
    finally:
        _socket.getaddrinfo = _system
