"""The names his pairs were stored under, mapped to the one name each model is shown and trained under.

The stats, the corrections screen and training all ask this before reading pairs, so a model stored
under its file path by an older server and under its short name by the demo is one model everywhere.
"""

from __future__ import annotations

from pathlib import Path

from workspace.config import Config


def stored_model_names(config: Config | None, database_file: Path) -> dict[str, str]:
    """``{stored name: shown name}`` for the models of the pairs in ``database_file`` (see
    ``backends.fleet.model_names``); empty before the first pair."""
    from backends.fleet.model_names import one_name_per_model
    from corrections.store import models_and_tasks

    if not database_file.exists():
        return {}
    models, _ = models_and_tasks(database_file)
    return one_name_per_model(config, models)
