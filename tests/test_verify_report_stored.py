"""The verifier's report as a run stores it: written as JSON, read back typed, from this version or an older one.

A run keeps its verify stage's result as JSON in SQLite; the screen reads its flags back from there
(``Report.from_dict``), so what it shows of a stored run is what the verifier said when it ran.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drafting.flags import flags_from_marks
from drafting.stages import verify
from drafting.verify import record_override, verify_draft
from drafting.verify.check_table import CHECKS
from drafting.verify.model import KINDS, Report
from tests.support.verify_fixtures import LIBRARY, build_demo_matter

DRAFT = (
    "Calder was paid $52,000 (HPP-000004). The agreement is dated January 10, 2024 (HPP-000001). "
    "A clause fixing damages for each day of delay is enforceable. Northgate Foods, Inc. v. Arctic Coil Co., "
    "512 F.3d 210, 211 (9th Cir. 2008). See also Id. at 212.\n"
)


def test_a_report_read_back_from_its_json_is_the_same_report(tmp_path: Path) -> None:
    demo = build_demo_matter(tmp_path)
    draft = tmp_path / "draft.md"
    draft.write_text(DRAFT, encoding="utf-8")
    first = verify_draft(demo.database_file, draft, demo.matter, LIBRARY)
    block = first.blocking[0]
    record_override(demo.database_file, first, block.key, "The figure is the ledger's, produced next week.")
    report = verify_draft(demo.database_file, draft, demo.matter, LIBRARY)
    assert {f.kind for f in report.flags} >= {"amount", "bates", "date", "case", "id"}
    assert any(f.evidence for f in report.flags) and block.key in report.overrides

    again = Report.from_dict(json.loads(report.to_json()))

    assert again.to_json() == report.to_json()  # byte for byte: flags, evidence, overrides, counts
    assert again.flags == report.flags and again.overrides == report.overrides
    assert again.blocking == report.blocking and again.counts() == report.counts()


def test_a_run_stored_before_verdicts_loads_with_the_verdict_its_severity_stood_for() -> None:
    """The result's JSON as the first verifier wrote it: no verdict, no reason, four counts."""
    evidence = {
        "file": "03-invoice.pdf",
        "page": 1,
        "bates": "HPP-000004",
        "snippet": "$48,000",
        "score": None,
    }
    wrong = {
        "start": 16,
        "end": 23,
        "kind": "amount",
        "severity": "block",
        "text": "$52,000",
        "message": "No source mentions $52,000.00.",
        "evidence": [evidence],
        "normalized": "5200000",
    }
    dated = {
        "start": 58,
        "end": 74,
        "kind": "date",
        "severity": "ok",
        "text": "January 10, 2024",
        "message": "Dated so in HPP-000001.",
        "evidence": [],
        "normalized": "2024-01-10",
    }
    override = {"key": "", "reason": "from the ledger", "by": "ada", "at": "2026-11-30T17:23:00+00:00"}
    report = {
        "draft": "run-1-draft.md",
        "draft_sha256": "7" * 64,
        "matter": "harbor-point",
        "authorities": None,
        "counts": {"block": 0, "warn": 0, "ok": 1, "overridden": 1},
        "flags": [wrong | {"key": "k1", "override": override}, dated | {"key": "k2", "override": None}],
    }
    mark = {
        "start": 16,
        "end": 23,
        "source": "verifier",
        "severity": "block",
        "kind": "amount",
        "text": "$52,000",
        "message": "No source mentions $52,000.00.",
        "fix": "",
    }
    stored = {
        "report": report,
        "may_export_final": True,
        "why": "Overridden.",
        "marks": [mark],
        "unanchored": [],
    }

    result = verify.STAGE.result_from(json.loads(json.dumps(stored)))

    assert result.report is not None
    amount, date = result.report.flags
    assert (amount.verdict, date.verdict) == ("contradicted", "verified")
    assert amount.evidence[0].bates == "HPP-000004" and amount.evidence[0].score is None
    assert result.report.blocking == [] and result.counts["overridden"] == 1
    (view,) = flags_from_marks(result.marks, result.report)
    assert view.overridden == "from the ledger" and view.evidence == amount.evidence
    assert view.key == amount.key and view.heading == "CONTRADICTED"


def test_a_stored_report_naming_a_kind_the_verifier_does_not_know_is_refused_by_name() -> None:
    flag = {"start": 0, "end": 3, "kind": "rumour", "severity": "warn", "text": "so", "message": "?"}
    stored = {"draft": "d.md", "draft_sha256": "0" * 64, "matter": "m", "authorities": None, "flags": [flag]}
    with pytest.raises(ValueError, match="kind 'rumour'"):
        Report.from_dict(stored)


def test_every_kind_of_statement_has_its_check() -> None:
    assert set(CHECKS) == set(KINDS)
