"""``chambers verify --report``: the cite-check report as DOCX, PDF, HTML and JSON, on the real corpus."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import docx
import pymupdf
import pytest

from tests.support.support_keyed_set import key_items
from tests.support.verify_real_corpus import LIBRARY, MATTER, build_real_corpus, requires_opinions
from tui.cli.main import main
from workspace.paths import Paths

pytestmark = requires_opinions
PETRO_SHA = "773076c0cb9f04b93f3dee2b73b996fb6574b1e1f608f6a25eb8db6c7fb786cf"


@pytest.fixture
def home_db(tmp_path: Path) -> Path:
    """The real corpus, copied into the isolated CHAMBERS_HOME where the CLI looks for it."""
    (tmp_path / "corpus").mkdir()
    corpus = build_real_corpus(tmp_path / "corpus")
    paths = Paths.from_environment()
    paths.database_file.parent.mkdir(parents=True, exist_ok=True)
    src, dst = sqlite3.connect(corpus.database_file), sqlite3.connect(paths.database_file)
    src.backup(dst)
    src.close()
    dst.close()
    return paths.database_file


def _draft(tmp_path: Path) -> Path:
    wrong = next(i for i in key_items() if i["id"] == "petro-396-wrong-page")
    draft = tmp_path / "brief.md"
    draft.write_text(
        f"{wrong['claim']}. See {wrong['cite']}.\n\n"
        "A metal serving cart struck his left knee (ABC0000002).\n",
        encoding="utf-8",
    )
    return draft


def _verify(draft: Path, *extra: str) -> int:
    return main(["verify", str(draft), "--matter", MATTER, "--authorities", LIBRARY, *extra])


def test_the_report_is_written_as_docx_pdf_html_and_json(home_db, tmp_path, capsys):
    draft = _draft(tmp_path)
    for suffix in ("docx", "pdf", "html", "json"):
        _verify(draft, "--report", str(tmp_path / f"cite-check.{suffix}"))
    capsys.readouterr()
    data = json.loads((tmp_path / "cite-check.json").read_text())
    case, bates = data["entries"]
    assert case["kind"] == "case" and case["verdict"] == "verified" and case["pages"] == ["399", "400", "401"]
    assert case["locator"] == "the closest passage to this sentence is on page 396; you cite 400"
    assert case["judgement"] == "not judged (no support model was asked)"
    assert bates["cited"] == "ABC0000002" and "metal serving cart" in bates["passage"]
    assert ["petro-lubricant-v-adelman.txt", PETRO_SHA] in data["sources"]

    words = "\n".join(p.text for p in docx.Document(str(tmp_path / "cite-check.docx")).paragraphs)
    with pymupdf.open(tmp_path / "cite-check.pdf") as pdf:
        printed = " ".join(" ".join(page.get_text().split()) for page in pdf)
        assert pdf.page_count >= 1
    html = (tmp_path / "cite-check.html").read_text()
    for text in (words, printed, html):
        assert "Cite-check report" in text and "you cite 400" in text and PETRO_SHA in text
        assert "the minor changes" in text.lower() or "minor changes" in text  # the claim is shown
    assert "<table>" in html  # the verifier's audit table comes first


def test_a_report_in_an_unknown_format_is_refused_before_anything_runs(home_db, tmp_path, capsys):
    assert _verify(_draft(tmp_path), "--report", str(tmp_path / "cite-check.txt")) != 0
    err = capsys.readouterr().err
    assert "cite-check.txt" in err and ".docx, .pdf, .html or .json" in err
    assert not (tmp_path / "cite-check.txt").exists()


def test_support_judgements_go_into_the_stored_pairs_and_the_report(home_db, tmp_path):
    """The support role on a scripted server (a real HTTP stream): one verbatim span, one invented."""
    from drafting.support.check import citecheck_of, support_check, write_report
    from drafting.support.store import pairs_of
    from drafting.verify import load_matter_index, verify_with
    from tests.support.scripted_server import scripted_server
    from tests.test_support_judge import _config

    text = _draft(tmp_path).read_text(encoding="utf-8")
    index = load_matter_index(home_db, MATTER, LIBRARY)
    report = verify_with(home_db, text, "brief.md", index)
    bates_page = index.sources.bates[("ABC", 2)].text
    span = "metal serving cart struck the left knee"
    assert span in bates_page
    answers = [
        {"label": "does not address", "missing": "", "span": "an invented sentence that no page has"},
        {"label": "supports", "missing": "", "span": span},
    ]
    with scripted_server(*answers) as (url, script):
        pairs, judgements = support_check(home_db, text, report, index, _config(url))
    assert [j.label for j in judgements] == ["no evidence given", "supports"]
    assert len(script.requests) == 2
    stored = pairs_of(home_db, MATTER, report.draft_sha256)
    assert [s["judgement"]["label"] for s in stored] == ["no evidence given", "supports"]
    assert stored[0]["judgement"]["answered"] == "does not address"  # kept beside the discard
    out = tmp_path / "judged.json"
    write_report(out, report, citecheck_of(report, index, pairs, judgements))
    case, bates = json.loads(out.read_text())["entries"]
    assert case["judgement"] == "model judgement: no evidence given" and case["span"] == ""
    assert bates["judgement"] == "model judgement: supports" and bates["span"] == span
