"""The fleet's config keys: [[telemetry]] sources and [dashboard] refresh_s."""

from __future__ import annotations

import pytest

from workspace.config import ConfigError, DashboardSettings, parse_config


def test_telemetry_sources_and_refresh_are_read() -> None:
    config = parse_config(
        {
            "telemetry": [
                {"kind": "nvml", "host": "chassis1"},
                {"kind": "dcgm", "host": "chassis2", "url": "http://10.0.0.2:9400/metrics"},
                {"kind": "recorded", "host": "lab", "path": "lab.json"},
            ],
            "dashboard": {"refresh_s": 2},
        },
        "c.toml",
    )
    assert [(t.kind, t.host) for t in config.telemetry] == [
        ("nvml", "chassis1"),
        ("dcgm", "chassis2"),
        ("recorded", "lab"),
    ]
    assert config.dashboard.refresh_s == 2.0
    assert parse_config({}, "c.toml").dashboard == DashboardSettings(refresh_s=1.0)


@pytest.mark.parametrize(
    ("data", "key", "words"),
    [
        ({"telemetry": [{"kind": "snmp"}]}, "telemetry[0].kind", "expected one of nvml, dcgm, recorded"),
        ({"telemetry": [{"kind": "dcgm"}]}, "telemetry[0]", "either url"),
        ({"telemetry": [{"kind": "nvml", "path": "x"}]}, "telemetry[0]", "neither url nor path"),
        ({"telemetry": [{"kind": "nvml", "hots": "x"}]}, "telemetry[0].hots", "unknown key"),
        ({"telemetry": [{"kind": "nvml"}, {"kind": "nvml"}]}, "telemetry[1]", "duplicate telemetry host"),
        ({"dashboard": {"refresh_s": 0.1}}, "dashboard.refresh_s", "between 0.5 and 60"),
    ],
)
def test_bad_fleet_keys_name_file_and_key(data: dict, key: str, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(data, "office.toml")
    assert f"office.toml: `{key}`" in info.value.message and words in info.value.message


def test_demo_config_carries_the_recorded_installation_through_toml() -> None:
    import tomllib

    from backends.fleet.mission import MISSION_BOARDS
    from tui.demo import demo_config
    from workspace.config import config_to_toml

    config = demo_config("http://127.0.0.1:9", "demo.toml")
    again = parse_config(tomllib.loads(config_to_toml(config)), "demo.toml")
    assert again.boards == MISSION_BOARDS and again.telemetry == config.telemetry
    assert [t.kind for t in again.telemetry] == ["recorded", "dcgm"]
    assert again.backends[0].board == "board-a"
