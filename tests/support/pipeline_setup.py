"""What the pipeline tests share: the demo matter built once, configs with one backend per role, small options."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

from drafting.events import EventSink, PipelineEvent, ignore
from drafting.pipeline import Pipeline, PipelineOptions
from drafting.wiring import wire
from tests.support.verify_fixtures import build_demo_matter
from workspace.config import Backend, Config, Policy, Sampling

_BUILT: dict[str, Path] = {}
INSTRUCTIONS = (
    "Demand that Calder Refrigeration pay for the spoiled stock and the late installation of the walk-in "
    "freezer under the supply agreement, within 14 days."
)
# The tiny test model writes nonsense; the tests assert the mechanics, so answers stay short.
SAMPLING = {
    "router": Sampling(temperature=0.0, seed=1, max_tokens=300),
    "gate": Sampling(temperature=0.0, seed=1, max_tokens=200),
    "drafter": Sampling(temperature=0.0, seed=1, max_tokens=32),
    "reviewer": Sampling(temperature=0.0, seed=1, max_tokens=300),
}
OPTIONS = PipelineOptions(max_context_tokens=1100, reserve_tokens=200, max_findings=2, json_text_chars=40)


def demo_database(root: Path, into: Path) -> Path:
    """A private copy of the ingested demo matter (built once per session under ``root``)."""
    if "db" not in _BUILT:
        _BUILT["db"] = build_demo_matter(root).database_file
    into.parent.mkdir(parents=True, exist_ok=True)
    src, dst = sqlite3.connect(_BUILT["db"]), sqlite3.connect(into)
    src.backup(dst)
    src.close()
    dst.close()
    return into


def role_config(urls: dict[str, str], default: str) -> Config:
    """One backend per role, named after it; ``urls`` overrides the address of some roles."""
    roles = {
        "router": ("router",),
        "gate": ("gate",),
        "drafter": ("drafter", "heavy", "extractor"),
        "reviewer": ("reviewer",),
    }
    backends = tuple(
        Backend(name=name, kind="llamacpp", url=urls.get(name, default), roles=r, sampling=SAMPLING[name])
        for name, r in roles.items()
    )
    return Config(file="test-config.toml", policy=Policy(), boards=(), backends=backends)


def pipeline(
    config: Config, db: Path, events: list[PipelineEvent] | None = None, *, on_event: EventSink | None = None
) -> Pipeline:
    sink = on_event or (events.append if events is not None else ignore)
    return Pipeline(wire(config, db, options=replace(OPTIONS)), on_event=sink)
