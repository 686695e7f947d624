"""Claim and passage pairs, and the locator, on the real opinions and the real record corpus."""

from __future__ import annotations

import itertools
import re

import pytest

from drafting.support.pairs import pair_citations
from drafting.verify.sources import load_sources
from drafting.verify.text import normalize_for_match
from drafting.verify.verifier import extract, load_library
from tests.support.support_keyed_set import key_items, keyed_draft, score_locator
from tests.support.verify_real_corpus import build_real_corpus, requires_opinions

pytestmark = requires_opinions


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    real = build_real_corpus(tmp_path_factory.mktemp("support"))
    library = load_library(real.database_file, real.library)
    record = load_sources(real.database_file, real.matter)
    return library, record


def _pairs(draft, library, record):
    items = extract(draft, record.prefixes, library.opinions)
    return pair_citations(draft, items, library.opinions, record)


def test_keyed_set_locator_finds_the_cited_page_and_flags_the_wrong_one(corpus):
    library, record = corpus
    items = key_items()
    draft = keyed_draft(items)
    pairs = _pairs(draft, library, record)
    score = score_locator(items, pairs)
    print("\n".join(score.lines()))
    assert score.rate(score.best_on_cited, "supports") >= 0.95, score.misses
    assert score.rate(score.warned, "supports") <= 0.05, score.misses
    assert score.rate(score.warned, "wrong-page") >= 0.90, score.misses
    assert score.rate(score.warned, "does not address") <= 0.10  # no page is closer for a point never reached
    for item, pair in zip(items, pairs, strict=True):
        # the claim is the sentence before the citation, at its offsets in the draft
        assert draft[pair.claim_start : pair.claim_end] == pair.claim
        assert pair.claim.rstrip(".") == item["claim"]
        assert pair.sha256 and pair.source.endswith((".txt", ".pdf"))
    wrong = next(p for i, p in zip(items, pairs, strict=True) if i["id"] == "petro-396-wrong-page")
    assert wrong.warning == "the closest passage to this sentence is on page 396; you cite 400"


def test_passage_is_the_pin_page_with_a_paragraph_either_side(corpus):
    library, record = corpus
    draft = (
        "Web postings are available for an indefinite period of time. "
        "See Petro-Lubricant Testing Labs., Inc. v. Adelman, 447 N.J. Super. 391, 400 (App. Div. 2016).\n"
    )
    (pair,) = _pairs(draft, library, record)
    opinion = library.opinions["447 N.J.Super. 391"]
    assert pair.pin == "400"
    assert pair.pages == ["399", "400", "401"]  # the pin page, and the paragraph before and after it
    assert opinion.reading.text[pair.passage_start : pair.passage_end].startswith(pair.passage[:200])
    assert "web postings are available for an indefinite period of time" in pair.passage
    assert pair.best_page == "400" and not pair.warning


def test_string_cite_members_share_the_claim_and_record_cites_get_their_pages(corpus):
    library, record = corpus
    draft = (
        "The single publication rule applies to internet posts. See Petro-Lubricant Testing Labs., Inc. v. "
        "Adelman, 447 N.J. Super. 391, 399 (App. Div. 2016); Gift Surplus, LLC v. State ex rel. Cooper, "
        "2022-NCSC-1, ¶ 21.\n\nA metal serving cart struck his left knee (ABC0000002). Ms. Ramos said the cart "
        "was not locked. Ramos Dep. 12:4-5.\n"
    )
    pairs = _pairs(draft, library, record)
    assert [p.kind for p in pairs] == ["case", "case", "bates", "deposition"]
    first, second, bates, deposition = pairs
    assert first.claim == second.claim == "The single publication rule applies to internet posts."
    assert (first.member, second.member) == (0, 1)
    assert second.pin == "¶ 21" and "¶ 21" in second.pages
    assert bates.claim == "A metal serving cart struck his left knee"
    assert "metal serving cart" in bates.passage and bates.pages == ["ABC0000002"]
    assert deposition.claim == "Ms. Ramos said the cart was not locked."
    lines = deposition.passage.splitlines()
    assert lines[0].startswith("12:1 ") and lines[-1].startswith("12:10 ")  # 4-5 with five lines either side
    assert any("not locked when it rolled into" in line for line in lines)


def test_pairs_are_stored_with_the_run_and_a_wrong_judgement_is_marked(corpus, tmp_path):
    from drafting.support.store import mark_wrong, marks_of, pairs_of, save_pairs

    library, record = corpus
    draft = "The rule applies to internet posts. See Petro-Lubricant Testing Labs., Inc. v. Adelman, 447 N.J. Super. 391, 399 (App. Div. 2016).\n"
    pairs = [p.to_json() for p in _pairs(draft, library, record)]
    db = record.database_file
    save_pairs(db, record.name, "sha-1", [{**pairs[0], "claim": "an earlier run"}], run_id="r1")
    save_pairs(db, record.name, "sha-1", pairs, run_id="r2")
    stored = pairs_of(db, record.name, "sha-1")
    assert stored == pairs  # the latest run's, with the claim's and the passage's offsets
    assert stored[0]["claim_start"] == 0 and stored[0]["passage_end"] > stored[0]["passage_start"]
    mark_wrong(
        db, record.name, "sha-1", stored[0], {"label": "contradicts", "span": ""}, "it does support it"
    )
    (mark,) = marks_of(db, record.name)
    assert mark.judgement["label"] == "contradicts" and mark.note == "it does support it"
    assert mark.pair["cite"] == stored[0]["cite"]


def test_marked_judgements_go_out_with_the_correction_pairs_as_support_training_rows(
    corpus, isolated_home, tmp_path, capsys
):
    import json

    from drafting.support.prompt import messages
    from drafting.support.store import mark_wrong
    from tests.support.corrections_data import store
    from tui.cli.main import main

    library, record = corpus
    draft = "Web postings stay up indefinitely. See Petro-Lubricant Testing Labs., Inc. v. Adelman, 447 N.J. Super. 391, 400 (App. Div. 2016).\n"
    (pair,) = [p.to_json() for p in _pairs(draft, library, record)]
    judgement = {
        "label": "no evidence given",
        "answered": "contradicts",
        "answered_span": "invented",
        "span": "",
    }
    db = isolated_home / "data" / "chambers.sqlite3"
    store(db)  # one correction pair of the drafter's, exported as before
    mark_wrong(db, "harbor-point", "sha-t", pair, judgement, "the page says it")
    mark_wrong(db, "other-matter", "sha-u", pair, {**judgement, "answered": "supports"}, "not on this page")
    pairs_out, support_out = tmp_path / "kto.jsonl", tmp_path / "support.jsonl"

    assert main(["corrections", "export", "--format", "kto", "--out", str(pairs_out)]) == 0
    said = capsys.readouterr().out
    assert "2 support judgements you marked wrong are not in this export: add --support-out" in said
    assert not support_out.exists()

    argv = [
        "corrections",
        "export",
        "--format",
        "kto",
        "--out",
        str(pairs_out),
        "--support-out",
        str(support_out),
    ]
    assert main([*argv, "--matter", "harbor-point"]) == 0
    said = capsys.readouterr().out
    assert "Exported 1 of 2 support judgements you marked wrong as kto rows" in said
    assert "matter is not harbor-point" in said
    (row,) = [json.loads(line) for line in support_out.read_text(encoding="utf-8").splitlines()]
    assert row["prompt"] == messages(pair["claim"], pair["passage"])  # exactly what the role is sent
    assert row["label"] is False  # he said it is wrong, and no more: an undesirable example
    (answer,) = row["completion"]
    assert answer["role"] == "assistant"
    assert json.loads(answer["content"]) == {"label": "contradicts", "missing": "", "span": "invented"}
    assert [json.loads(line)["label"] for line in pairs_out.read_text().splitlines()] == [False, True]

    assert (
        main(
            [
                "corrections",
                "export",
                "--format",
                "pairs",
                "--out",
                str(tmp_path / "p.jsonl"),
                "--support-out",
                str(tmp_path / "full.jsonl"),
            ]
        )
        == 0
    )
    full = [json.loads(line) for line in (tmp_path / "full.jsonl").read_text().splitlines()]
    assert [(r["matter"], r["note"], r["cite"]) for r in full] == [
        ("harbor-point", "the page says it", pair["cite"]),
        ("other-matter", "not on this page", pair["cite"]),
    ]
    assert (
        full[0]["pages"] == pair["pages"]
        and full[0]["sha256"] == pair["sha256"]
        and full[0]["role"] == "support"
    )


def test_a_mark_holds_no_right_answer_so_sft_and_dpo_are_refused_before_anything_is_written(
    isolated_home, tmp_path, capsys
):
    from tests.support.corrections_data import store
    from tui.cli.main import main

    store(isolated_home / "data" / "chambers.sqlite3")
    out, support_out = tmp_path / "sft.jsonl", tmp_path / "support.jsonl"
    assert (
        main(
            ["corrections", "export", "--format", "sft", "--out", str(out), "--support-out", str(support_out)]
        )
        != 0
    )
    err = capsys.readouterr().err
    assert "No right answer to train on" in err and "--format kto" in err and "Traceback" not in err
    assert not out.exists() and not support_out.exists()


def test_the_verify_stage_keeps_the_pairs_with_the_run_and_lists_the_locator_warning(corpus):
    from drafting.flags import flags_in_run
    from drafting.runs import COMPLETED, Run, StageRecord
    from drafting.stages.verify import STAGE

    _library, record = corpus
    item = next(i for i in key_items() if i["id"] == "petro-396-wrong-page")
    draft = f"{item['claim']}. See {item['cite']}.\n"

    def stage(seq: int, name: str, output: str, result: dict) -> StageRecord:
        return StageRecord(
            seq, 1, seq, name, None, None, None, None, None, [], output, result, COMPLETED, "now"
        )

    run = Run(1, "now", record.name, "memo", "", "drafter", ["draft", "verify"], COMPLETED)
    run.stages.append(stage(1, "draft", draft, {}))
    result = STAGE.compute(record.database_file, run, None)
    (pair,) = result.support
    assert pair["warning"] == "the closest passage to this sentence is on page 396; you cite 400"
    assert draft[pair["claim_start"] : pair["claim_end"]] == pair["claim"]
    stored = result.as_dict()
    assert STAGE.result_from(stored).support == result.support  # kept with the run's stage record
    run.stages.append(stage(2, "verify", "", stored))
    support = [f for f in flags_in_run(run) if f.source == "support"]
    assert [(f.kind, f.severity, f.blocking) for f in support] == [("locator", "warn", False)]
    assert support[0].support is not None and support[0].support["best_page"] == "396"


def test_each_passage_names_the_file_page_it_begins_on(corpus):
    """So the flag dialog's r opens that page: a PDF opinion's page, a Bates page's own."""
    library, record = corpus
    items = key_items()
    pairs = _pairs(keyed_draft(items), library, record)
    by_file = {o.file: o for o in library.opinions.values()}
    multi_page = 0
    for pair in pairs:
        opinion = by_file[pair.source]
        (page,) = [p for p in opinion.pages if p.page_no == pair.source_page]
        start = normalize_for_match(" ".join(pair.passage.split()[:3]))
        # the reading leaves out paragraph numbers (a "¶ 15" between two words), as the page's text does not
        printed = normalize_for_match(re.sub(r"¶\s*\d+\s*", "", page.text))
        assert start in printed, (pair.cite, pair.source_page)
        multi_page += len(opinion.pages) > 1 and pair.source_page > 1
    assert multi_page  # not every passage is on a file's first page
    (bates,) = _pairs("The cart struck his knee (ABC0000002).\n", library, record)
    assert bates.source_page == record.bates[("ABC", 2)].page_no


def test_a_paragraph_is_a_few_sentences_not_a_page_of_the_lower_cased_reading(corpus):
    from drafting.support.paragraphs import MAX_CHARS, paragraphs_of

    library, _ = corpus
    opinion = library.opinions["447 N.J.Super. 391"]
    paragraphs = paragraphs_of(opinion, "447 N.J.Super. 391")
    pages = {p.page for p in paragraphs}
    assert len(paragraphs) >= 4 * len(pages)  # several to a page, though the reading has no capitals
    assert max(len(p.text) for p in paragraphs) <= MAX_CHARS + 1
    # nothing is lost or doubled: the paragraphs tile the reading, spaces between them aside
    text = opinion.reading.text
    for before, after in itertools.pairwise(paragraphs):
        assert text[before.end : after.start].strip() == ""
