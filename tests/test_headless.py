"""The core is headless: importing it must not import Textual."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CORE = [
    "workspace.paths",
    "workspace.config",
    "workspace.database",
    "workspace.audit",
    "backends.chat",
    "backends.adapters",
    "backends.policy",
    "backends.status",
    "backends.local_server",
    "backends.fleet.telemetry",
    "backends.fleet.nvml_source",
    "backends.fleet.recorded_source",
    "backends.fleet.dcgm_source",
    "backends.fleet.sources",
    "backends.fleet.topology_lint",
    "backends.fleet.servers",
    "backends.fleet.doctor",
    "backends.fleet.bench",
    "backends.fleet.store",
    "backends.fleet.mission",
    "evidence.matters",
    "evidence.ingest",
    "evidence.provenance",
    "evidence.report",
    "evidence.readers",
    "evidence.pdf",
    "evidence.bates",
    "evidence.walk",
    "evidence.ocr",
    "evidence.search",
    "evidence.context",
    "evidence.sample_matter",
    "evidence.production_log",
    "drafting.verify",
    "drafting.verify.verifier",
    "drafting.verify.report_html",
    "drafting.runs",
    "drafting.tasks",
    "drafting.review",
    "drafting.stages",
    "drafting.refusal",
    "drafting.events",
    "drafting.pipeline",
    "exhibits.numbering",
    "exhibits.registry",
    "exhibits.placement",
    "exhibits.stamp",
    "exhibits.binder",
    "exhibits.patterns",
    "exhibits.find",
    "exhibits.verify",
    "exhibits.redact",
    "exhibits.log",
    "exhibits.sources",
    "exhibits.jobs",
    "exhibits.pdfio",
    "corrections.redline",
    "corrections.capture",
    "corrections.store",
    "corrections.scrub",
    "corrections.export",
    "corrections.stats",
    "corrections.from_run",
    "corrections.align",
    "evidence.index.store",
    "exhibits.store",
    "drafting.store",
    "drafting.verify.store",
    "corrections.filters",
    "drafting.attempt",
    "drafting.context",
    "drafting.options",
    "drafting.stages.route",
    "drafting.stages.gate",
    "drafting.stages.draft",
    "drafting.stages.review",
    "drafting.stages.verify",
]


def test_core_does_not_import_textual() -> None:
    code = "import sys\n" + "".join(f"import {m}\n" for m in CORE) + "print('textual' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parents[1],
    )
    assert out.stdout.strip() == "False"


def test_importing_is_free_of_side_effects(tmp_path: Path) -> None:
    home = tmp_path / "home"
    code = "".join(f"import {m}\n" for m in [*CORE, "tui.app", "tui.cli.main"])
    subprocess.run(
        [sys.executable, "-c", code],
        check=True,
        cwd=Path(__file__).parents[1],
        env={"CHAMBERS_HOME": str(home), "PATH": "/usr/bin:/bin"},
    )
    assert not home.exists()
