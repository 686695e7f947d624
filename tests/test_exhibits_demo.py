"""The demo matter gets a stamped production and a binder, once, numbered on from its existing stamps."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from tui.cli.evidence import setup_demo_matter
from tui.cli.exhibits import setup_demo_exhibits
from workspace.paths import Paths


def test_demo_matter_gets_a_production_and_a_binder(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = Paths.from_environment()
    setup_demo_matter(paths)
    assert setup_demo_exhibits(paths) == 0
    shown = capsys.readouterr().out
    assert "deposition stamped HPP-000008..HPP-000009" in shown, (
        "numbers continue after the sample's HPP-000001..7"
    )
    out = paths.data_dir / "exhibits" / "harbor-point"
    stamped = out / "production-2" / "calder-deposition-excerpt.pdf"
    with pymupdf.open(stamped) as doc:
        assert "HPP-000009" in doc[1].get_text()
    with pymupdf.open(out / "binder" / "trial-exhibits.pdf") as doc:
        assert [t[1].split(":")[0] for t in doc.get_toc()] == [
            "Index of exhibits",
            "Exhibit 1",
            "Exhibit 2",
            "Exhibit 3",
        ]
    assert setup_demo_exhibits(paths) == 0, "a second run leaves the demo's exhibits as they are"
    assert "are in" in capsys.readouterr().out
