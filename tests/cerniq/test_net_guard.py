"""The SSRF guard (cerniq.net_guard): which addresses are public, IPv4 hidden in IPv6, host
spellings that resolve to loopback, pinned resolution inside a send, the audit hook under
it all, and the setting that lifts it. Names resolve through tests/fake_dns.py."""

from __future__ import annotations

import contextlib
import contextvars
import ipaddress
import socket
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest
import requests
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from cerniq import net_guard, reasons
from cerniq.net_guard import DestinationRefused, is_public
from tests.cerniq.test_settings import PRODUCTION_ENV, ROOT, inherited
from tests.fake_dns import fake_dns

IPv4, IPv6 = ipaddress.IPv4Address, ipaddress.IPv6Address
PUBLIC = "93.184.215.14"

# IPv4 ranges that are not the public Internet (IANA special-purpose registry).
NOT_GLOBAL = [
    ipaddress.ip_network(n)
    for n in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",  # shared (carrier-grade NAT)
        "127.0.0.0/8",
        "169.254.0.0/16",  # link-local, cloud metadata
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "192.88.99.0/24",  # the old 6to4 relay anycast
        "192.168.0.0/16",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4",  # multicast
        "240.0.0.0/4",  # reserved
        "255.255.255.255/32",
    )
]
not_global_v4 = st.sampled_from(NOT_GLOBAL).flatmap(
    lambda net: st.integers(int(net.network_address), int(net.broadcast_address)).map(IPv4)
)
public_v4 = (
    st.integers(int(IPv4("1.0.0.0")), int(IPv4("223.255.255.255")))  # unicast
    .map(IPv4)
    .filter(lambda ip: not any(ip in net for net in NOT_GLOBAL) and ip.is_global)
)
# Under a loaded CI machine: no deadline per example, no health check on generation speed.
relaxed = hypothesis_settings(
    deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)


def mapped(v4: IPv4) -> IPv6:
    return IPv6(f"::ffff:{v4}")


def compatible(v4: IPv4) -> IPv6:
    return IPv6(int(v4))


def nat64(v4: IPv4) -> IPv6:
    return IPv6(int(IPv6("64:ff9b::")) | int(v4))


def nat64_local(v4: IPv4) -> IPv6:
    return IPv6(int(IPv6("64:ff9b:1::")) | int(v4))


def sixtofour(v4: IPv4) -> IPv6:
    return IPv6((0x2002 << 112) | (int(v4) << 80) | 1)


def teredo(server: IPv4, client: IPv4) -> IPv6:
    obfuscated = ~int(client) & 0xFFFFFFFF  # the client's address travels inverted
    return IPv6((0x20010000 << 96) | (int(server) << 64) | (0x8000 << 48) | obfuscated)


FORMS = [mapped, compatible, nat64, nat64_local, sixtofour]


def host_spellings(v4: IPv4) -> list[str]:
    """URL hosts that name `v4`: dotted, one integer, hex, octal, and the IPv6 wrappers."""
    a, b, c, d = v4.packed
    return [
        str(v4),
        str(int(v4)),
        f"0x{a:x}.0x{b:x}.0x{c:x}.0x{d:x}",
        f"0{a:o}.0{b:o}.0{c:o}.0{d:o}",
        *(f"[{form(v4)}]" for form in FORMS),
    ]


@relaxed
@given(v4=not_global_v4, other=public_v4)
def test_an_ipv4_address_off_the_public_internet_is_refused_in_every_ipv6_form(v4, other):
    assert not is_public(v4)
    for form in FORMS:
        assert not is_public(form(v4)), form.__name__
    assert not is_public(teredo(v4, other)), "a Teredo server off the Internet"
    assert not is_public(teredo(other, v4)), "a Teredo client off the Internet"


@relaxed
@given(v4=public_v4, other=public_v4)
def test_a_public_ipv4_address_is_accepted_in_the_forms_that_reach_it(v4, other):
    assert is_public(v4)
    for form in (mapped, compatible, nat64, sixtofour):
        assert is_public(form(v4)), form.__name__
    assert is_public(teredo(v4, other))
    # The local-use NAT64 prefix (RFC 8215) is some network's own translator.
    assert not is_public(nat64_local(v4))


@hypothesis_settings(relaxed, max_examples=60)
@given(v4=not_global_v4)
def test_every_url_spelling_of_a_private_address_is_refused_when_resolved(v4):
    for host in host_spellings(v4):
        parsed = urlsplit(f"http://{host}:8080/hook").hostname
        with pytest.raises(DestinationRefused):
            net_guard.vet(parsed)


@hypothesis_settings(relaxed, max_examples=60)
@given(v4=public_v4)
def test_every_url_spelling_of_a_public_address_resolves_to_it(v4):
    for host in host_spellings(v4)[:4] + [f"[{mapped(v4)}]"]:
        addresses = net_guard.vet(urlsplit(f"https://{host}/hook").hostname)
        assert {ipaddress.ip_address(a) for a in addresses} <= {v4, mapped(v4)}


@pytest.mark.parametrize(
    "host",
    [
        "::127.0.0.1",
        "64:ff9b::7f00:1",
        "64:ff9b:1::a00:1",
        "2002:7f00:1::1",
        "2001:0:4136:e378:8000:63bf:80ff:fffe",  # Teredo, client 127.0.0.1
        "::ffff:169.254.169.254",
        "::1",
        "::",
        "fe80::1%lo",
        "fec0::1",  # site-local: the standard library calls it global
        "fd00::1",
        "ff0e::1",
        "100::1",  # discard-only
        "2001:db8::1",  # documentation
    ],
)
def test_ipv6_addresses_that_lead_home_are_refused(host):
    assert not is_public(host)


def test_ordinary_public_ipv6_addresses_are_accepted():
    assert is_public("2a00:1450:4001:80e::200e")
    assert is_public(IPv6("2606:4700:4700::1111"))


@pytest.mark.parametrize("url", ["http://2130706433/", "http://0x7f.1/", "http://0177.1/"])
def test_integer_and_hex_hosts_resolve_to_loopback_and_are_refused(url):
    with pytest.raises(DestinationRefused) as refused:
        net_guard.vet(urlsplit(url).hostname)
    assert refused.value.host == urlsplit(url).hostname


def test_a_name_is_accepted_only_when_every_address_it_resolves_to_is_public():
    names = {
        "hooks.example.com": [PUBLIC, "2606:4700:4700::1111"],
        "split.example.com": [PUBLIC, "10.0.0.7"],  # one answer inside: refused
        "intranet.example.com": ["10.0.0.7"],
    }
    with fake_dns(names):
        assert net_guard.vet("Hooks.Example.com") == (PUBLIC, "2606:4700:4700::1111")
        for host in ("split.example.com", "intranet.example.com", "nowhere.example.com"):
            with pytest.raises(DestinationRefused) as refused:
                net_guard.vet(host)
            # One message whether the name is private or unknown: nothing is told about
            # which internal names exist.
            assert refused.value.message == (
                f"{host} does not resolve to a public Internet address: the server does not "
                "connect to it."
            )


def test_inside_a_guarded_send_a_name_resolves_only_to_its_vetted_addresses(settings):
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = False
    with fake_dns({"hooks.example.com": [PUBLIC]}) as dns:
        with net_guard.guarded("hooks.example.com") as guard:
            dns.names["hooks.example.com"] = ["127.0.0.1"]  # the DNS answer changes
            found = socket.getaddrinfo("hooks.example.com", 443, socket.AF_INET)
            assert {info[4] for info in found} == {(PUBLIC, 443)}
            with pytest.raises(socket.gaierror):  # no vetted IPv6 answer
                socket.getaddrinfo("hooks.example.com", 80, socket.AF_INET6)
        assert dns.asked == ["hooks.example.com"]  # checked once, never asked again
        assert guard.refused == []
        # Outside the guard the resolver is the system's again.
        assert socket.getaddrinfo("hooks.example.com", 443)[0][4][0] == "127.0.0.1"


def test_a_name_first_seen_inside_the_guard_is_vetted_then(settings):
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = False
    names = {"api.example.com": [PUBLIC], "internal.example.com": ["10.1.2.3"]}
    with fake_dns(names), net_guard.guarded() as guard:
        assert socket.getaddrinfo("api.example.com", 443)[0][4][0] == PUBLIC
        with pytest.raises(DestinationRefused):
            socket.getaddrinfo("internal.example.com", 443)
        with pytest.raises(DestinationRefused):
            socket.getaddrinfo("127.0.0.1", 80)
    assert guard.refused == ["internal.example.com", "127.0.0.1"]
    assert "internal.example.com" in reasons.render(guard.refusal)


@pytest.fixture
def listener():
    """A TCP socket on 127.0.0.1 that counts the connections it accepts."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.3)
    accepted: list[object] = []

    def accept() -> None:
        with contextlib.suppress(OSError):  # the timeout: nobody came
            accepted.append(server.accept())

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1], accepted, thread
    server.close()


def test_a_socket_that_skips_the_resolver_still_cannot_reach_a_private_address(settings, listener):
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = False
    port, accepted, thread = listener
    with net_guard.guarded() as guard:
        with socket.socket() as raw, pytest.raises(DestinationRefused):
            raw.connect(("127.0.0.1", port))
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        with udp, pytest.raises(DestinationRefused):
            udp.sendto(b"<14>hello", ("127.0.0.1", 514))
    thread.join()
    assert accepted == []
    assert guard.refused == ["127.0.0.1", "127.0.0.1"]
    with socket.create_connection(("127.0.0.1", port), timeout=1):
        pass  # outside the guard nothing changes


def test_a_worker_thread_started_with_the_senders_context_is_guarded_too(settings, listener):
    """apprise runs a service with a deadline on a worker thread, passing the caller's
    context (contextvars.copy_context): the guard goes with it."""
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = False
    port, accepted, thread = listener

    def connect() -> None:
        with socket.socket() as raw:
            raw.connect(("127.0.0.1", port))

    with net_guard.guarded(), ThreadPoolExecutor(1) as pool:
        future = pool.submit(contextvars.copy_context().run, connect)
        with pytest.raises(DestinationRefused):
            future.result(timeout=5)
    thread.join()
    assert accepted == []


def test_requests_inside_the_guard_connects_only_to_the_vetted_address(settings, monkeypatch):
    """DNS rebinding: the name answers a public address to the check and 127.0.0.1 to
    everyone after. The POST connects to the address that was checked, or nowhere."""
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = False
    connects: list[tuple] = []

    def connect(sock: socket.socket, address: tuple) -> None:
        connects.append(address[:2])
        raise ConnectionRefusedError("no network in tests")

    monkeypatch.setattr(socket.socket, "connect", connect)
    with fake_dns({"hooks.example.com": [PUBLIC]}) as dns:
        dns.rebind("hooks.example.com", ["127.0.0.1"])  # after answering the check
        with net_guard.guarded("hooks.example.com"), pytest.raises(requests.ConnectionError):
            requests.post("http://hooks.example.com/in", timeout=1)
    assert dns.names["hooks.example.com"] == ["127.0.0.1"]
    assert connects == [(PUBLIC, 80)]


def test_a_host_refused_up_front_connects_nothing(settings):
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = False
    entered = False
    with pytest.raises(DestinationRefused), net_guard.guarded("169.254.169.254"):
        entered = True
    assert not entered


def test_the_setting_lifts_the_guard_without_resolving(settings):
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = True
    with fake_dns() as dns:
        net_guard.check_host("receiver.local")
        with net_guard.guarded("127.0.0.1") as guard:
            assert socket.getaddrinfo("127.0.0.1", 80)[0][4][0] == "127.0.0.1"
    assert dns.asked == [] and guard.refused == []


def allow_local_in_production(**env: str) -> str:
    """OUTBOUND_ALLOW_LOCAL_TARGETS as production settings read it in a fresh interpreter,
    with `env` and neither of this run's guard variables."""
    base = {k: v for k, v in inherited().items() if not k.startswith("OUTBOUND_")}
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import cerniq.settings as s; print(s.OUTBOUND_ALLOW_LOCAL_TARGETS)",
        ],
        cwd=ROOT,
        env={**base, **PRODUCTION_ENV, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_production_refuses_by_default_and_the_old_variable_still_opens_it():
    assert allow_local_in_production() == "False"
    assert allow_local_in_production(OUTBOUND_WEBHOOKS_ALLOW_LOCAL="true") == "True"
    assert allow_local_in_production(OUTBOUND_ALLOW_LOCAL_TARGETS="true") == "True"


def test_check_deploy_warns_when_production_allows_local_targets(settings):
    from cerniq.checks import check_outbound_targets

    settings.DEBUG, settings.OUTBOUND_ALLOW_LOCAL_TARGETS = False, True
    (warning,) = check_outbound_targets()
    assert warning.id == "cerniq.W031"
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = False
    assert check_outbound_targets() == []
    settings.DEBUG, settings.OUTBOUND_ALLOW_LOCAL_TARGETS = True, True  # development: quiet
    assert check_outbound_targets() == []
