"""The two-pass redline: exact reconstruction, counts that agree with a whole-text word diff, and briefs
full of "Id." lines that align as they should."""

from __future__ import annotations

import random
from difflib import SequenceMatcher

from corrections.align import align
from corrections.redline import DELETE, EQUAL, INSERT, redline, redline_markup, split_units


def _sides(line: object) -> tuple[str, str]:
    segments = line.segments  # type: ignore[attr-defined]
    return (
        "".join(s.text for s in segments if s.kind in (EQUAL, DELETE)),
        "".join(s.text for s in segments if s.kind in (EQUAL, INSERT)),
    )


def test_units_join_back_to_the_text() -> None:
    text = "One.\n\n\nTwo\nstill two.\n  \nThree"
    assert split_units(text) == ["One.\n\n\n", "Two\nstill two.\n  \n", "Three"]
    assert "".join(split_units(text)) == text


def test_word_redline_of_an_edit() -> None:
    line = redline("The freezer was finished late.", "The blast freezer was completed late.")
    assert redline_markup(line) == "The{+ blast+} freezer was[- finished-]{+ completed+} late."
    assert (line.words_added, line.words_removed, line.draft_words, line.final_words) == (2, 1, 5, 6)
    assert line.edit_ratio == 3 / 11


def test_unchanged_text_has_ratio_zero_and_no_sub_pairs() -> None:
    line = redline("A.\n\nB.", "A.\n\nB.")
    assert line.unchanged and line.edit_ratio == 0 and line.paragraph_pairs == ()
    assert redline("", "").edit_ratio == 0.0
    assert redline("", "All new.").edit_ratio == 1.0


def test_each_side_is_rebuilt_from_the_segments() -> None:
    rng = random.Random(7)
    words = ["the", "court", "held", "that", "a", "party", "who", "delays", "must", "pay", "Id.", "at", "4"]
    draft = "\n\n".join(" ".join(rng.choice(words) for _ in range(30)) for _ in range(40))
    paragraphs = draft.split("\n\n")
    for k in range(0, 40, 7):
        paragraphs[k] = paragraphs[k].replace("court", "tribunal", 1) + " Added sentence."
    final = "\n\n".join(paragraphs)
    line = redline(draft, final)
    old, new = _sides(line)
    assert new == final
    assert old.split() == draft.split()  # whitespace between words travels with the word after it


def test_changed_words_agree_with_a_whole_text_word_diff() -> None:
    rng = random.Random(3)
    vocab = [f"w{i}" for i in range(300)]
    paragraphs = [" ".join(rng.choice(vocab) for _ in range(60)) for _ in range(60)]
    edited = list(paragraphs)
    for k in rng.sample(range(60), 6):
        tokens = edited[k].split()
        for _ in range(5):
            tokens[rng.randrange(len(tokens))] = rng.choice(["new", "words", "here"])
        edited[k] = " ".join(tokens)
    draft, final = "\n\n".join(paragraphs), "\n\n".join(edited)
    line = redline(draft, final)
    reference = SequenceMatcher(None, draft.split(), final.split(), autojunk=False)
    matched = sum(block.size for block in reference.get_matching_blocks())
    changed = len(draft.split()) + len(final.split()) - 2 * matched
    assert abs((line.words_added + line.words_removed) - changed) <= 0.1 * changed


def test_a_brief_full_of_id_lines_aligns_each_edit_in_place() -> None:
    paragraphs: list[str] = []
    for k in range(400):
        paragraphs += [f"Point {k}: the record shows delivery on day {k}.", "Id.", "Id.", ""]
    draft = "\n\n".join(paragraphs)
    edited = list(paragraphs)
    edited[4 * 150] = "Point 150: the record shows late delivery on day 150."
    edited[4 * 300 + 1] = "Id. at 12."
    line = redline(draft, "\n\n".join(edited))
    assert (line.words_added, line.words_removed) == (3, 0)
    assert [(p.draft, p.final) for p in line.paragraph_pairs] == [
        (
            "Point 150: the record shows delivery on day 150.",
            "Point 150: the record shows late delivery on day 150.",
        ),
        ("Id.", "Id. at 12."),
    ]


def test_alignment_rebuilds_the_final_side_and_matches_only_equal_lines() -> None:
    rng = random.Random(11)
    for _ in range(200):
        a = [
            rng.choice(["Id.", "Id. at 4.", "", "x", "y", f"u{rng.randrange(30)}"])
            for _ in range(rng.randrange(40))
        ]
        b = list(a)
        for _ in range(rng.randrange(6)):
            k = rng.randrange(len(b) + 1)
            b[k : k + rng.randrange(3)] = [rng.choice(["Id.", "new", "z"])] * rng.randrange(3)
        old: list[str] = []
        new: list[str] = []
        for tag, i1, i2, j1, j2 in align(a, b):
            if tag == "equal":
                assert a[i1:i2] == b[j1:j2]
            old += a[i1:i2]
            new += b[j1:j2]
        assert (old, new) == (a, b)
        codes = align(a, b)
        assert [c[1] for c in codes] == sorted(c[1] for c in codes) and (codes[-1][2] if codes else 0) == len(
            a
        )


def test_a_brief_with_every_paragraph_edited_counts_each_edit_exactly() -> None:
    # The paragraph pass finds no equal paragraph, so the whole text is one changed stretch for the word
    # pass: it must still find exactly the edits of each paragraph, no more.
    rng = random.Random(5)
    vocab = ["the", "court", "held", "that", "a", "party", "who", "delays", "must", "pay"]
    paragraphs = [" ".join(rng.choice(vocab) for _ in range(40)) for _ in range(30)]
    edited = [p.replace("court", "tribunal", 1) + " Expressly." for p in paragraphs]
    draft, final = "\n\n".join(paragraphs), "\n\n".join(edited)
    line = redline(draft, final)
    assert _sides(line) == (draft, final)
    expected = sum(
        len(a.split())
        + len(b.split())
        - 2
        * sum(
            m.size for m in SequenceMatcher(None, a.split(), b.split(), autojunk=False).get_matching_blocks()
        )
        for a, b in zip(paragraphs, edited, strict=True)
    )
    assert line.words_added + line.words_removed == expected
    assert len(line.paragraph_pairs) == 30
