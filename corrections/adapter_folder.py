"""Where trained adapters live, apart from the registry so that every start can find them cheaply.

``chambers`` clears a killed training run's half-written adapter at each start; naming the folder
must not import the registry, its store and the corrections model with it.
"""

from __future__ import annotations

from pathlib import Path


def adapters_dir(data_dir: Path) -> Path:
    return data_dir / "adapters"
