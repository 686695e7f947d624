"""The wide real-opinion corpus (tests/verify_wide): its record, its split, and the verifier on it.

The corpus is at least 100 public-domain opinions that other repositories carry as test assets;
manifest.json and SOURCES.md list each, and ``python -m tests.verify_wide.assemble DIR`` builds the folder from fetched mirrors.
The tests that need the files skip, with that reason, where the folder is absent.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections import Counter
from pathlib import Path

import pytest

from tests.support.verify_real_corpus import OPINIONS, requires_opinions
from tests.verify_wide import assemble as assemble_module
from tests.verify_wide.assemble import AssembleError, assemble_placed, load_manifest
from tests.verify_wide.convert import json_html
from tests.verify_wide.generate import _joined_sentences, generate
from tests.verify_wide.keyed import DRAFTS, score_keyed_part
from tests.verify_wide.score import (
    MISSING_REASON,
    PartScore,
    build_library,
    canonical_in_process,
    part_entries,
    score_drafts,
    score_part,
    wide_opinions_folder,
)
from tests.verify_wide.split import FIRST_SIX, drawn_heldout, heldout_names, recorded_heldout

WIDE = wide_opinions_folder()
requires_wide = pytest.mark.skipif(WIDE is None, reason=MISSING_REASON)
SOURCES = Path(__file__).parent / "verify_real" / "SOURCES.md"


def test_manifest_spans_the_courts_and_formats_the_corpus_must_have() -> None:
    entries = load_manifest()
    assert len(entries) >= 100
    assert len({e["name"] for e in entries}) == len(entries)
    assert len({e["court"] for e in entries}) >= 20
    levels = Counter(e["level"] for e in entries)
    assert levels["scotus"] and levels["circuit"] and levels["district"], levels
    assert len({e["state"] for e in entries if e["level"] == "state"}) >= 8
    formats = Counter(e["format"] for e in entries)
    assert {"court-pdf", "vendor-star", "cap-xml", "columbia", "plain-text"} <= set(formats), formats
    assert all(len(e["commit"]) == 40 and len(e["sha256"]) == 64 for e in entries)


def test_sources_lists_every_file_with_its_commit_and_sha256() -> None:
    listed = SOURCES.read_text()
    for entry in load_manifest():
        assert f"`{entry['name']}`" in listed, entry["name"]
        assert entry["sha256"] in listed and entry["commit"][:12] in listed, entry["name"]


def test_held_back_part_is_a_third_and_follows_from_the_manifest() -> None:
    entries = load_manifest()
    names = [e["name"] for e in entries]
    first = [e["name"] for e in entries if not e.get("tune_only") and "draw" not in e]
    recorded = recorded_heldout()
    assert recorded == drawn_heldout(entries)
    # the first draw still holds the same opinions, and the whole part is a third of every entry
    assert set(heldout_names(first)) <= set(recorded)
    assert 3 * len(recorded) >= len(names)
    assert not {e["name"] for e in entries if e.get("tune_only") and e.get("draw")}
    assert not FIRST_SIX & set(recorded)
    assert not {e["name"] for e in entries if e.get("tune_only")} & set(recorded)
    assert len(part_entries("tune")) + len(part_entries("heldout")) == len(names)


@requires_wide
def test_assembled_files_are_the_ones_listed() -> None:
    assert WIDE is not None
    listed = SOURCES.read_text()
    for entry in load_manifest():
        digest = hashlib.sha256((WIDE / entry["name"]).read_bytes()).hexdigest()
        assert digest in listed, f"{entry['name']}: {digest} is not the sha256 SOURCES.md lists"
        assert digest == entry["assembled_sha256"], entry["name"]


def test_placed_files_are_found_by_their_digest_under_any_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whoever places the corpus may keep the sources' own names and folders, or place the files
    already converted: each is found by its sha256, a source is converted, and what is found nowhere
    is named."""
    record = json.dumps({"html": "<p>Smith v. Jones</p><p>*12 The court held.</p>"}).encode()
    converted = json_html(record, "html")
    pdf = b"%PDF-1.4 placed as it is"

    def entry(name: str, source: bytes, assembled: bytes, convert: str) -> dict:
        digest = hashlib.sha256
        return {
            "name": name,
            "sha256": digest(source).hexdigest(),
            "convert": convert,
            "arg": "html",
            "assembled_sha256": digest(assembled).hexdigest(),
        }

    entries = [
        entry("smith-v-jones.txt", record, converted, "json_html"),
        entry("placed-converted.txt", b"{}", converted + b"\n", "json_html"),
        entry("a-pdf.pdf", pdf, pdf, "none"),
        entry("never-placed.txt", b"nowhere", b"nowhere", "none"),
    ]
    monkeypatch.setattr(assemble_module, "load_manifest", lambda: entries)
    placed = tmp_path / "shared" / "freelawproject+courtlistener" / "cl" / "tests"
    placed.mkdir(parents=True)
    (placed / "record-123.json").write_bytes(record)
    (placed / "vector-pdf.pdf").write_bytes(pdf)
    (tmp_path / "shared" / "already.txt").write_bytes(converted + b"\n")
    out = tmp_path / "corpus"

    assert assemble_placed(out, [tmp_path / "shared"]) == ["never-placed.txt"]
    assert (out / "smith-v-jones.txt").read_bytes() == converted
    assert (out / "placed-converted.txt").read_bytes() == converted + b"\n"
    assert (out / "a-pdf.pdf").read_bytes() == pdf
    assert not (out / "never-placed.txt").exists()

    entries[0]["assembled_sha256"] = hashlib.sha256(b"other bytes").hexdigest()
    (out / "smith-v-jones.txt").unlink()
    with pytest.raises(AssembleError, match=r"smith-v-jones\.txt"):
        assemble_placed(out, [tmp_path / "shared"])


@requires_wide
def test_generator_gives_thousands_of_items_the_same_every_run() -> None:
    assert WIDE is not None
    entries = load_manifest()
    first, second = generate(WIDE, entries), generate(WIDE, entries)
    assert [d.text for d in first] == [d.text for d in second]
    items = [i for d in first for i in d.items or []]
    assert len(items) >= 2000
    kinds = Counter(i.category for i in items)
    for category in (
        *("true-quote", "true-short", "true-id", "true-supra", "true-signal", "true-parallel", "true-docket"),
        *("word", "quote-page", "page", "volume", "party", "year", "pin-range", "supra-range", "neutral"),
        "pin-range-unpaged",
        *("docket", "docket-word", "sanctioned"),
    ):
        assert kinds[category] > 0, category


@requires_opinions
def test_the_mutation_set_over_the_six_opinions_every_checkout_has_meets_the_targets(tmp_path: Path) -> None:
    """The six real opinions are placed wherever the tests run, the wide corpus not always: the generated
    drafts over those six alone still meet the targets (all six are in the tune part)."""
    assert OPINIONS is not None
    logging.getLogger("eyecite").setLevel(logging.ERROR)
    entries = [e for e in load_manifest() if e["name"] in FIRST_SIX]
    drafts = generate(OPINIONS, entries)
    score = score_drafts(build_library(tmp_path, OPINIONS, entries), drafts, "six", len(entries))
    rates = score.rates()
    assert len(entries) == 6 and rates["true"] >= 50 and rates["held_fabricated"] >= 20, rates
    assert rates["no_verdict"] == 0
    assert rates["fabricated_verified"] == 0.0
    assert rates["held_contradicted"] >= 0.99
    assert rates["true_contradicted"] <= 0.01
    assert rates["true_unverifiable"] <= 0.05


@pytest.fixture(scope="module")
def scores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, PartScore]:
    assert WIDE is not None
    logging.getLogger("eyecite").setLevel(logging.ERROR)
    return {part: score_part(tmp_path_factory.mktemp(part), WIDE, part) for part in ("tune", "heldout")}


@requires_wide
@pytest.mark.parametrize("part", ["tune", "heldout"])
def test_every_item_gets_the_same_verdict_again_in_the_same_run(
    scores: dict[str, PartScore], part: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert WIDE is not None
    score = scores[part]
    with capsys.disabled():
        print(f"\nverify_wide {score.line()}")
    assert len(score.verdicts) >= 800
    assert score_part(tmp_path, WIDE, part).canonical() == score.canonical()


@requires_wide
@pytest.mark.parametrize("part", ["tune", "heldout"])
def test_wide_corpus_meets_the_targets(scores: dict[str, PartScore], part: str) -> None:
    assert WIDE is not None
    rates = scores[part].rates()
    seeds = {canonical_in_process(WIDE, part, seed) for seed in ("0", "1", "2")}
    assert seeds == {scores[part].canonical()}, "verdicts differ between interpreters (hash seed)"
    assert rates["no_verdict"] == 0
    assert rates["fabricated_verified"] == 0.0
    assert rates["held_contradicted"] >= 0.99
    assert rates["true_contradicted"] <= 0.01
    assert rates["true_unverifiable"] <= 0.05


def test_hand_written_drafts_have_keys_and_a_third_are_held_back() -> None:
    tune = sorted((DRAFTS / "tune").glob("*.answers.json"))
    heldout = sorted((DRAFTS / "heldout").glob("*.answers.json"))
    assert tune and 3 * len(heldout) >= len(tune) + len(heldout)
    for answers in tune + heldout:
        assert answers.with_name(answers.name.replace(".answers.json", ".md")).is_file()


@requires_wide
@pytest.mark.parametrize("part", ["tune", "heldout"])
def test_hand_written_drafts_give_every_keyed_item_a_verdict(
    part: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert WIDE is not None
    score = score_keyed_part(tmp_path, WIDE, part)
    with capsys.disabled():
        print(f"\nverify_wide {score.line()}")
    truths = Counter(item.truth for item, _, _ in score.verdicts)
    assert truths["true"] >= 15 and truths["fabricated"] >= 10
    assert score_keyed_part(tmp_path / "again", WIDE, part).canonical() == score.canonical()


@requires_wide
@pytest.mark.parametrize(
    "part",
    [
        "tune",  # met: 0 fabricated verified, 0 true contradicted or unverifiable
        pytest.param(
            "heldout",
            marks=pytest.mark.xfail(
                strict=True, reason="the verifier's rules do not yet meet the targets on the held-back draft"
            ),
        ),
    ],
)
def test_hand_written_drafts_meet_the_targets(part: str, tmp_path: Path) -> None:
    assert WIDE is not None
    rates = score_keyed_part(tmp_path, WIDE, part).rates()
    assert rates["fabricated_verified"] == 0.0
    assert rates["true_contradicted"] <= 0.01
    assert rates["true_unverifiable"] <= 0.05
    assert rates["no_verdict"] == 0


def test_generator_never_quotes_a_caption_in_capitals() -> None:
    """A slip deciding several dockets repeats its caption over each; a brief quotes the court's
    prose, never those lines, so the generator's true quotations are prose only."""
    text = (
        "No. 92-1121\nTHOMAS PUGLIESE,\nPlaintiff, Appellee,\nv.\n"
        "GOLDEN INVESTMENT CORP. and ARMAND ROBERTS,\nDefendants, Appellants.\n"
        "We affirm the district court judgment and remand for reconsideration of the fee application.\n"
    )
    assert _joined_sentences(text) == [
        "We affirm the district court judgment and remand for reconsideration of the fee application."
    ]
