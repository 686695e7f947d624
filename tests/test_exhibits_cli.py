"""``chambers exhibits stamp|bind|redact|log``: each dry run writes nothing; the real runs write and log."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.exhibits_files import pdftotext, pymupdf_text, squeeze, text_pdf
from tui.cli.main import main

SSN = "123-45-6789"


@pytest.fixture
def sources(tmp_path: Path, isolated_home: Path) -> Path:
    folder = tmp_path / "sources"
    text_pdf(folder / "letter.pdf", [f"Dear counsel, my SSN is {SSN}.", "Regards."])
    text_pdf(folder / "invoice.pdf", ["Invoice 7 for services."])
    assert main(["matter", "new", "acme", "--sources", str(folder)]) == 0
    return folder


def files_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def test_stamp_dry_run_then_real_then_collision(
    sources: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "vol1"
    args = [
        "exhibits",
        "stamp",
        "acme",
        str(sources / "letter.pdf"),
        str(sources / "invoice.pdf"),
        "--prefix",
        "ACME",
        "--out",
        str(out),
    ]
    assert main([*args, "--dry-run"]) == 0
    shown = capsys.readouterr().out
    assert "ACME-000001..ACME-000003" in shown and "Dry run" in shown and "letter.pdf" in shown
    assert files_under(out) == []
    assert main(args) == 0
    assert "ACME-000003" in pymupdf_text(out / "invoice.pdf")
    assert (
        main(
            [
                "exhibits",
                "stamp",
                "acme",
                str(sources / "invoice.pdf"),
                "--prefix",
                "ACME",
                "--start",
                "2",
                "--out",
                str(tmp_path / "vol2"),
                "--dry-run",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "Bates numbers already issued" in err and "continue at ACME-000004" in err
    assert (
        main(
            [
                "exhibits",
                "stamp",
                "acme",
                str(sources / "invoice.pdf"),
                "--prefix",
                "ACME",
                "--width",
                "3",
                "--start",
                "999",
                "--out",
                str(tmp_path / "vol3"),
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "exhibits",
                "stamp",
                "acme",
                str(sources / "letter.pdf"),
                "--prefix",
                "ACME",
                "--width",
                "3",
                "--out",
                str(tmp_path / "vol4"),
            ]
        )
        == 2
    )
    assert "Bates width too small" in capsys.readouterr().err and files_under(tmp_path / "vol4") == []
    assert main(["exhibits", "log", "acme", "--csv", str(tmp_path / "log.csv"), "--dry-run"]) == 0
    shown = capsys.readouterr().out
    assert (
        "ACME-000001..ACME-000002" in shown
        and "ACME-999..ACME-999" in shown
        and not (tmp_path / "log.csv").exists()
    )
    assert main(["exhibits", "log", "acme", "--csv", str(tmp_path / "log.csv")]) == 0
    assert (tmp_path / "log.csv").read_text().count("\n") == 4
    assert main(["exhibits", "log", "acme", "--bates", "ACME-000002"]) == 0
    assert "letter.pdf page 2" in capsys.readouterr().out
    assert main(["exhibits", "log", "acme", "--bates", "ACME-000500"]) == 1


def test_bind_and_redact_dry_runs_then_real(
    sources: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    binder = tmp_path / "binder" / "exhibits.pdf"
    bind = [
        "exhibits",
        "bind",
        "acme",
        "--exhibit",
        str(sources / "letter.pdf"),
        "Letter of March 2",
        "--exhibit",
        str(sources / "invoice.pdf"),
        "Invoice 7",
        "--out",
        str(binder),
        "--prefix",
        "PX",
    ]
    assert main([*bind, "--dry-run"]) == 0
    assert "Exhibit 2: Invoice 7" in capsys.readouterr().out and not binder.exists()
    assert main(bind) == 0
    assert "EXHIBIT 2" in pymupdf_text(binder) and binder.with_name("exhibits.exhibit-list.csv").exists()
    out = tmp_path / "redacted"
    redact = [
        "exhibits",
        "redact",
        "acme",
        str(sources / "letter.pdf"),
        "--pattern",
        "ssn",
        "--out",
        str(out),
    ]
    assert main([*redact, "--dry-run"]) == 0
    shown = capsys.readouterr().out
    assert "pattern ssn" in shown and SSN not in shown and files_under(out) == []
    assert main(redact) == 0
    assert "verified with PyMuPDF + pdftotext" in capsys.readouterr().out
    for text in (pymupdf_text(out / "letter.pdf"), pdftotext(out / "letter.pdf")):
        assert squeeze(SSN) not in squeeze(text)
    assert (
        main(["exhibits", "redact", "acme", str(sources / "letter.pdf"), "--out", str(tmp_path / "x")]) == 2
    )
    assert "Nothing to redact" in capsys.readouterr().err


@pytest.mark.parametrize("prefix", ["VOL2", "abc10-", "A1"])
def test_a_prefix_ending_in_a_digit_is_refused_with_what_to_use(
    sources: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], prefix: str
) -> None:
    out = tmp_path / "vol1"
    args = ["exhibits", "stamp", "acme", str(sources / "letter.pdf"), "--prefix", prefix, "--out", str(out)]
    assert main(args) == 2
    err = capsys.readouterr().err
    written = prefix.rstrip("-").upper()
    assert "Bates prefix not usable" in err and f"'{written}' ends in a digit" in err
    assert f"--prefix {written}X" in err and files_under(out) == []
