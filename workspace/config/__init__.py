"""The attorney's config: read with tomllib, written with tomli-w, checked strictly.

Every error names the file, the key (``backends[2].roles[0]``) and what was
expected, because the person reading it is not a programmer and must be able to
fix the file by hand. Unknown keys are errors too: a misspelt ``allow_remote``
must never silently become "not allowed" or, worse, the other way round.

``model`` declares each table's keys once; ``schema`` reads, checks and writes
them from that declaration; ``files`` reads the file itself.
"""

from workspace.config.errors import ConfigError, ConfigMissing, NoBackendForRole
from workspace.config.files import config_to_toml, load_config, parse_config, starter_config_text
from workspace.config.model import (
    DEFAULT_MIN_DECODE_TOK_S,
    DEFAULT_REFRESH_S,
    INT32_MAX,
    KINDS,
    LORA_KINDS,
    MAX_GPU_INDEX,
    MIN_REFRESH_S,
    ROLES,
    TELEMETRY_KINDS,
    Backend,
    Board,
    Config,
    DashboardSettings,
    ExportSettings,
    LoraRef,
    Policy,
    Sampling,
    TelemetrySourceConfig,
    UiSettings,
)

__all__ = [
    "DEFAULT_MIN_DECODE_TOK_S",
    "DEFAULT_REFRESH_S",
    "INT32_MAX",
    "KINDS",
    "LORA_KINDS",
    "MAX_GPU_INDEX",
    "MIN_REFRESH_S",
    "ROLES",
    "TELEMETRY_KINDS",
    "Backend",
    "Board",
    "Config",
    "ConfigError",
    "ConfigMissing",
    "DashboardSettings",
    "ExportSettings",
    "LoraRef",
    "NoBackendForRole",
    "Policy",
    "Sampling",
    "TelemetrySourceConfig",
    "UiSettings",
    "config_to_toml",
    "load_config",
    "parse_config",
    "starter_config_text",
]
