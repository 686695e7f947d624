"""Config inputs that parse as TOML but would crash a command later if let through, and a fuzzed loader.

Whatever the file holds, ``load_config`` returns a Config or raises ConfigError naming the
file (and the key or line); a Config it returns holds only URLs httpx can send to and
finite numbers in range.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workspace.config import Config, ConfigError, load_config

GOOD = """
[[backends]]
name = "drafter"
kind = "llamacpp"
url = "http://127.0.0.1:8080"
roles = ["drafter"]
"""


def write(tmp_path: Path, text: str | bytes) -> Path:
    file = tmp_path / "config.toml"
    file.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return file


@pytest.mark.parametrize(
    ("url", "says"),
    [
        (r"http://127.0.0.1:8080\n", "U+000A"),
        (r"http://127.0.0.1:8080\u0000", "U+0000"),
        (r"http://127.0.0.1:8080\t/x", "U+0009"),
        (r"http://drafter\u2028box:8080", "U+2028"),
        ("http://127.0.0.1:0", "port"),
        ("http://127.0.0.1:99999", "port"),
        ("http://127.0.0.1:80a", "port"),
        ("http://300.1.1.1:8080", "not a valid IPv4"),
        ("http://[::1:8080", "IPv6"),
        ("http://bad_host!:8080", "not a valid host name"),
        ("http://user:secret@127.0.0.1:8080", "credentials"),
        ("http://127.0.0.1:8080/?model=x", "query"),
        ("ftp://127.0.0.1:8080", "scheme"),
        ("http:// 127.0.0.1:8080", "spaces"),
    ],
)
def test_a_url_that_cannot_be_sent_to_is_refused_at_load(tmp_path: Path, url: str, says: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, GOOD.replace("http://127.0.0.1:8080", url)))
    assert info.value.key == "backends[0].url" and says in info.value.message
    assert str(tmp_path / "config.toml") in info.value.message


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080",
        "http://[fd00::12]:8080",
        "http://chassis2.local:11434",
        "https://bücher.example",
    ],
)
def test_ordinary_urls_still_load(tmp_path: Path, url: str) -> None:
    config = load_config(write(tmp_path, GOOD.replace("http://127.0.0.1:8080", url)))
    assert config.backends[0].url == url


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ("temperature = nan", "backends[0].sampling.temperature"),
        ("temperature = inf", "backends[0].sampling.temperature"),
        ("temperature = -0.5", "backends[0].sampling.temperature"),
        ("top_p = 1.5", "backends[0].sampling.top_p"),
        ("min_p = -inf", "backends[0].sampling.min_p"),
        ("repeat_penalty = 0.0", "backends[0].sampling.repeat_penalty"),
        ("max_tokens = 0", "backends[0].sampling.max_tokens"),
        ("top_k = -3", "backends[0].sampling.top_k"),
        ("seed = 99999999999999", "backends[0].sampling.seed"),
    ],
)
def test_sampling_numbers_are_finite_and_in_range(tmp_path: Path, line: str, key: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, GOOD + f"[backends.sampling]\n{line}\n"))
    assert info.value.key == key


@pytest.mark.parametrize("value", ["nan", "-1.0", "inf"])
def test_speed_floor_is_finite_and_not_negative(tmp_path: Path, value: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, GOOD + f"min_decode_tok_s = {value}\n"))
    assert info.value.key == "backends[0].min_decode_tok_s"


def test_refresh_of_nan_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, GOOD + "[dashboard]\nrefresh_s = nan\n"))
    assert info.value.key == "dashboard.refresh_s"


def test_a_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, b"\xef\xbb\xbf" + GOOD.encode()))
    assert config.backends[0].name == "drafter"


def test_deep_nesting_names_the_file_and_the_line(tmp_path: Path) -> None:
    text = GOOD + "\n\n[dashboard]\nrefresh_s = " + "[" * 5000 + "]" * 5000 + "\n"
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text))
    message = info.value.message
    assert "line 10" in message and "too deeply" in message and str(tmp_path) in message


def test_brackets_inside_strings_and_comments_are_not_nesting(tmp_path: Path) -> None:
    text = GOOD.replace('name = "drafter"', 'name = "' + "[" * 100 + '" # ' + "{" * 100)
    config = load_config(write(tmp_path, text))
    assert config.backends[0].name == "[" * 100


def test_invalid_utf8_names_the_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"not UTF-8 text \(line 3\)"):
        load_config(write(tmp_path, b"\n\nname = '\xff'\n"))


def test_private_networks_are_checked(tmp_path: Path) -> None:
    ok = load_config(write(tmp_path, '[policy]\nprivate_networks = ["100.64.0.0/10", "fd7a:115c::/48"]\n'))
    assert ok.policy.private_networks == ("100.64.0.0/10", "fd7a:115c::/48")
    for bad in ('["0.0.0.0/0"]', '["not a network"]', "[7]"):
        with pytest.raises(ConfigError) as info:
            load_config(write(tmp_path, f"[policy]\nprivate_networks = {bad}\n"))
        assert info.value.key.startswith("policy.private_networks")


@pytest.mark.parametrize("command", [["doctor"], ["bench", "--runs", "1"], ["config"]])
def test_commands_given_a_url_with_a_newline_say_so_without_a_traceback(
    tmp_path: Path, command: list[str]
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(GOOD.replace("8080", r"8080\n"))
    env = {**os.environ, "CHAMBERS_HOME": str(home), "PYTHONPATH": str(Path(__file__).parent.parent)}
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli.main", *command], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr and "InvalidURL" not in done.stderr
    assert "backends[0].url" in done.stderr + done.stdout and "U+000A" in done.stderr + done.stdout


# --- fuzzed ---------------------------------------------------------------------------------

hostile_text = st.text(st.characters(codec="utf-8"), max_size=40)
BASES = [
    "http://127.0.0.1:8080",
    "http://[::1]:11434",
    "https://drafter.office.test",
    "http://10.0.0.5:9400/metrics",
]


@st.composite
def urls(draw: st.DrawFn) -> str:
    """A working address with one character put in somewhere (most of them still load), or junk."""
    if draw(st.integers(0, 9)) == 0:
        return draw(hostile_text)
    base = draw(st.sampled_from(BASES))
    at = draw(st.integers(0, len(base)))
    return base[:at] + draw(st.characters(codec="ascii") | st.characters(codec="utf-8")) + base[at:]


number = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(0, 2),
    st.integers(0, 100),
)
leaf = st.one_of(hostile_text, number, st.booleans())
value = st.recursive(leaf, lambda inner: st.lists(inner, max_size=3), max_leaves=6)
sampling = st.dictionaries(
    st.sampled_from(["temperature", "top_p", "top_k", "min_p", "repeat_penalty", "seed", "max_tokens"]),
    st.floats(0.01, 1) | st.integers(1, 100) | number,
    max_size=2,
)
backend = st.fixed_dictionaries(
    {"name": st.text(max_size=8), "kind": st.sampled_from(["llamacpp", "ollama"]), "url": urls()},
    optional={
        "sampling": sampling,
        "min_decode_tok_s": st.floats(0, 100) | number,
        "model": st.text(max_size=8),
    },
)
document = st.fixed_dictionaries(
    {},
    optional={
        "backends": st.lists(backend, min_size=1, max_size=2, unique_by=lambda b: b["name"]),
        "policy": st.fixed_dictionaries(
            {},
            optional={
                "local_only": st.booleans(),
                "private_networks": st.lists(
                    st.sampled_from(["100.64.0.0/10", "fd7a::/48"]) | hostile_text, max_size=2
                ),
            },
        ),
        "telemetry": st.lists(st.fixed_dictionaries({"kind": st.just("dcgm"), "url": urls()}), max_size=1),
        "dashboard": st.fixed_dictionaries({}, optional={"refresh_s": st.floats(0.5, 60) | number}),
    },
)


def check_loaded(config: Config) -> None:
    """What every command relies on once the loader said yes."""
    urls = [b.url for b in config.backends] + [t.url for t in config.telemetry if t.url]
    for url in urls:
        parsed = httpx.URL(url + "/v1/chat/completions")  # InvalidURL if the loader let one through
        assert parsed.host and parsed.scheme in ("http", "https")
    for b in config.backends:
        numbers = [b.min_decode_tok_s, *b.sampling.as_dict().values()]
        assert all(math.isfinite(n) for n in numbers)
    assert math.isfinite(config.dashboard.refresh_s)


def load_or_refuse(tmp_path: Path, data: bytes) -> Config | None:
    try:
        return load_config(write(tmp_path, data))
    except ConfigError as exc:
        assert exc.file == str(tmp_path / "config.toml")
        return None


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(document)
def test_fuzzed_documents_load_cleanly_or_are_refused_by_key(tmp_path: Path, doc: dict[str, Any]) -> None:
    try:
        data = tomli_w.dumps(doc).encode("utf-8")
    except (TypeError, ValueError):
        return  # not writable as TOML at all (mixed arrays in old tomli-w): nothing to load
    config = load_or_refuse(tmp_path, data)
    if config is not None:
        check_loaded(config)


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(st.binary(max_size=300) | st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_any_bytes_load_or_give_a_config_error(tmp_path: Path, data: bytes) -> None:
    config = load_or_refuse(tmp_path, data)
    if config is not None:
        check_loaded(config)


@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(st.text(st.sampled_from("[]{}\"'#=\n a1,"), max_size=400))
def test_bracket_soup_never_escapes_as_a_parser_crash(tmp_path: Path, text: str) -> None:
    load_or_refuse(tmp_path, ("x = " + text).encode())
