"""The verifier over the corpus (tests/verify_corpus): recall of planted fabrications and false blocks.

Prints both figures in the test output; the assertions hold the verifier's targets:
recall >= 99% (a fabrication is caught when it is flagged block or warn, never ok) and a
false-block rate <= 2% on correct statements. Each item's recorded verdict must also hold.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from drafting.verify import verify_draft
from tests.support.verify_fixtures import DemoMatter, build_demo_matter

CORPUS = Path(__file__).parent / "verify_corpus"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoMatter:
    return build_demo_matter(tmp_path_factory.mktemp("verify-demo"))


def test_recall_of_fabrications_and_false_blocks_meet_the_targets(
    demo: DemoMatter, capsys: pytest.CaptureFixture[str]
) -> None:
    fabricated = caught = blocked_fabrications = correct = false_blocks = 0
    mismatches = []
    for expected_file in sorted(CORPUS.glob("*.expected.json")):
        draft = expected_file.with_name(expected_file.name.replace(".expected.json", ".md"))
        report = verify_draft(demo.database_file, draft, demo.matter)
        seen: Counter[tuple[str, str]] = Counter()
        verdicts = {}
        for flag in sorted(report.flags, key=lambda f: f.start):
            verdicts[(flag.kind, flag.text, seen[(flag.kind, flag.text)])] = flag.severity
            seen[(flag.kind, flag.text)] += 1
        for kind, text, occurrence, truth, expected in json.loads(expected_file.read_text()):
            got = verdicts.get((kind, text, occurrence), "missing")
            if got != expected:
                mismatches.append((draft.name, kind, text, occurrence, expected, got))
            if truth == "fabricated":
                fabricated += 1
                caught += got in ("block", "warn")
                blocked_fabrications += got == "block"
            else:
                correct += 1
                false_blocks += got == "block"
    recall = caught / fabricated
    false_block_rate = false_blocks / correct
    with capsys.disabled():  # the figures show in every run's output, not only with -s
        print(
            f"\nverifier quality: recall {recall:.1%} ({caught}/{fabricated} fabrications flagged, "
            f"{blocked_fabrications} blocked); false-block rate {false_block_rate:.1%} ({false_blocks}/{correct} correct statements)"
        )
    assert fabricated >= 20 and correct >= 50
    assert recall >= 0.99
    assert false_block_rate <= 0.02
    assert not mismatches, mismatches


def test_the_same_draft_and_evidence_give_byte_identical_json(demo: DemoMatter) -> None:
    draft = CORPUS / "facts.md"
    first = verify_draft(demo.database_file, draft, demo.matter).to_json()
    second = verify_draft(demo.database_file, draft, demo.matter).to_json()
    assert first == second
    assert json.loads(first)["counts"]["block"] > 0
