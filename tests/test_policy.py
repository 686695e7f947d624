"""The local-only policy: address classes and refusals that name backend, role and address."""

from __future__ import annotations

import pytest

from backends.errors import PolicyRefusal
from backends.policy import AddressClass, check_backend, classify_ip
from tests.conftest import make_backend
from workspace.config import Policy


@pytest.mark.parametrize(
    ("ip", "klass"),
    [
        ("127.0.0.1", AddressClass.LOOPBACK),
        ("::1", AddressClass.LOOPBACK),
        ("10.1.2.3", AddressClass.PRIVATE),
        ("192.168.1.20", AddressClass.PRIVATE),
        ("172.16.0.5", AddressClass.PRIVATE),
        ("fd00::1", AddressClass.PRIVATE),
        ("169.254.10.1", AddressClass.LINK_LOCAL),
        ("fe80::1%eth0", AddressClass.LINK_LOCAL),
        ("8.8.8.8", AddressClass.PUBLIC),
        ("::ffff:8.8.8.8", AddressClass.PUBLIC),
        ("2606:4700::1111", AddressClass.PUBLIC),
    ],
)
def test_classify(ip: str, klass: AddressClass) -> None:
    assert classify_ip(ip) is klass


def test_public_address_refused_naming_backend_role_and_address() -> None:
    backend = make_backend("http://8.8.8.8:8080", name="cloudy")
    with pytest.raises(PolicyRefusal) as info:
        check_backend(backend, Policy(), role="drafter")
    message = info.value.message
    assert "cloudy" in message and "drafter" in message and "8.8.8.8" in message
    assert "allow_remote" in message


def test_public_address_allowed_with_a_reason() -> None:
    backend = make_backend("http://8.8.8.8:8080", allow_remote=True, remote_reason="firm VPN endpoint")
    assert check_backend(backend, Policy(), role="drafter") is AddressClass.PUBLIC


def test_loopback_name_and_office_address_allowed() -> None:
    assert check_backend(make_backend("http://localhost:8080"), Policy()) is AddressClass.LOOPBACK
    assert check_backend(make_backend("http://192.168.1.20:11434"), Policy()) is AddressClass.PRIVATE


def test_unresolvable_host_is_refused_not_guessed() -> None:
    backend = make_backend("http://no-such-host.invalid:8080", name="ghost")
    with pytest.raises(PolicyRefusal) as info:
        check_backend(backend, Policy(), role="reviewer")
    assert "ghost" in info.value.message and "does not resolve" in info.value.message
