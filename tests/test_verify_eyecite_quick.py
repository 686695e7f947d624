"""Lean eyecite (only the reporters a text needs) finds exactly what eyecite in full finds.

The lean build runs in fresh processes (it must be set up before eyecite is first imported): the
first builds the cached groups, the second reads them and works lean. Their citations are compared
with eyecite's in this process on real text: the corpus drafts, a Supreme Court slip opinion
(eyecite's own test asset, hundreds of citations), and forms that test the grouping (laws,
journals, spaced reporters, a reporter with a custom regex).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from eyecite import get_citations

from tests.support.verify_real_corpus import OPINIONS

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "verify_real"
FORMS = (
    "See 42 U.S.C. § 1983; Mass. Gen. Laws ch. 1, §§ 2-3; 28 U.S.C. §§ 1331-32. "
    "Smith v. Jones, 100 N. Y. S. 2d 12 (App. Div. 1950); Roe v. Doe, 12 S.W.2d 34 (Tex. 1929); "
    "Note, 1 Harv. L. Rev. 1, 5 (1887); 5 Cal. 4th 1, 3; 12 Johns. 34; 2 Cranch 64, 66; "
    "Matter of Soram, 25 I&N Dec. 378, 381 (BIA 2010); 2019 WL 4639462; Id. at 5; Roe, supra, at 35."
)

PROBE = """
import json, sys
from pathlib import Path
from drafting.verify import eyecite_quick
eyecite_quick.quick_start(Path(sys.argv[1]))
texts = json.loads(Path(sys.argv[2]).read_text())
def described(find):
    return [[[type(c).__name__, list(c.span()), c.matched_text(), sorted(getattr(c, "all_editions", []) and
             [e.short_name for e in c.all_editions]), dict(c.groups or {}),
             {k: v for k, v in vars(c.metadata).items() if isinstance(v, (str, type(None)))}]
            for c in find(t)] for t in texts]
found = described(eyecite_quick.get_citations)
lean = eyecite_quick._Settings.lean is not None
import eyecite
plain = described(eyecite.get_citations)  # someone calling eyecite directly in the same process
after = described(eyecite_quick.get_citations)
print(json.dumps({"lean": lean, "found": found, "plain": plain, "after": after}))
"""


def _described(texts: list[str]) -> list[Any]:
    return [
        [
            [
                type(c).__name__,
                list(c.span()),
                c.matched_text(),
                sorted(e.short_name for e in getattr(c, "all_editions", None) or []),
                dict(c.groups or {}),
                {k: v for k, v in vars(c.metadata).items() if isinstance(v, (str, type(None)))},
            ]
            for c in get_citations(t)
        ]
        for t in texts
    ]


def _probe(cache: Path, texts_file: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(cache), str(texts_file)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def test_lean_eyecite_finds_what_full_eyecite_finds(tmp_path: Path) -> None:
    drafts = sorted(REAL.glob("*/*.md"))
    assert len(drafts) >= 5
    opinions = [OPINIONS / "fisher-v-university-of-texas.txt"] if OPINIONS else []
    texts = [d.read_text(encoding="utf-8") for d in [*drafts, *opinions]] + [FORMS]
    texts_file = tmp_path / "texts.json"
    texts_file.write_text(json.dumps(texts))
    cache = tmp_path / "cache"

    first = _probe(cache, texts_file)
    assert not first["lean"]  # nothing cached yet: eyecite in full, and the groups written
    assert len(list(cache.glob("eyecite-groups-*.json"))) == 1
    second = _probe(cache, texts_file)
    assert second["lean"]

    expected = json.loads(json.dumps(_described(texts)))
    assert sum(len(found) for found in expected) > (200 if OPINIONS else 100)  # real matter in it
    assert first["found"] == expected
    assert second["found"] == expected
    assert second["plain"] == expected  # eyecite called directly in a lean process is eyecite in full
    assert second["after"] == expected


def test_a_damaged_cache_falls_back_to_full_eyecite(tmp_path: Path) -> None:
    texts_file = tmp_path / "texts.json"
    texts_file.write_text(json.dumps([FORMS]))
    cache = tmp_path / "cache"
    _probe(cache, texts_file)
    (groups,) = cache.glob("eyecite-groups-*.json")
    groups.write_text('{"format": 1, "groups": [')  # cut short, as by a full disk
    damaged = _probe(cache, texts_file)
    assert not damaged["lean"]
    assert damaged["found"] == json.loads(json.dumps(_described([FORMS])))
    assert _probe(cache, texts_file)["lean"]  # rewritten whole by the run that found it damaged


def test_the_same_text_gives_the_same_citations_in_every_process() -> None:
    """eyecite runs its extractors in set order (objects hashed by address): a short form read as
    one in one process and not in the next. Fresh processes, as reruns of `chambers verify` are."""
    import os
    import subprocess
    import sys

    code = (
        "from drafting.verify.extract_citations import extract_citations\n"
        "text = 'Fincher v. Commissioner, 105 T.C. 126, 126 (1995). Id. at 126. See Fincher, 105 T.C. at 126.'\n"
        "print([(i.text, i.fields.get('form')) for i in extract_citations(text) if i.kind == 'case'])\n"
    )
    seen = set()
    for seed in ("1", "2", "3", "4"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        )
        seen.add(done.stdout)
    assert seen == {"[('105 T.C. 126', 'full'), ('105 T.C. at 126', 'short')]\n"}, seen


def test_the_installed_eyecite_holds_what_the_adapter_relies_on() -> None:
    import types

    import eyecite.helpers
    import eyecite.tokenizers

    from drafting.verify.eyecite_quick import contract_problem

    assert contract_problem(eyecite.tokenizers, eyecite.helpers) is None
    # an eyecite whose build took its sources as arguments, or built nothing at import, is named
    changed = types.ModuleType("eyecite.tokenizers")
    vars(changed).update(vars(eyecite.tokenizers))
    changed._populate_reporter_extractors = lambda sources: None  # type: ignore[attr-defined]
    assert "_populate_reporter_extractors" in (contract_problem(changed, eyecite.helpers) or "")
    del changed.EXTRACTORS
    vars(changed)["_populate_reporter_extractors"] = eyecite.tokenizers._populate_reporter_extractors
    assert "EXTRACTORS" in (contract_problem(changed, eyecite.helpers) or "")


def test_an_eyecite_unfit_for_the_adapter_is_used_in_full(tmp_path: Path) -> None:
    """What the first run records for an eyecite that lacks a part the adapter relies on: every
    later process then uses eyecite in full, and finds what eyecite finds."""
    from drafting.verify.eyecite_quick import FORMAT, installed_key

    texts_file = tmp_path / "texts.json"
    texts_file.write_text(json.dumps([FORMS]))
    cache = tmp_path / "cache"
    cache.mkdir()
    record = {"format": FORMAT, "lean": False, "reason": "eyecite.tokenizers has no EXTRACTORS collection"}
    (cache / f"eyecite-groups-{installed_key()}.json").write_text(json.dumps(record))
    unfit = _probe(cache, texts_file)
    assert not unfit["lean"]
    assert unfit["found"] == json.loads(json.dumps(_described([FORMS])))
    assert json.loads((cache / f"eyecite-groups-{installed_key()}.json").read_text()) == record  # kept


UNUSED_LXML_PROBE = """
import json, sys
from pathlib import Path
from drafting.verify import eyecite_quick
eyecite_quick.quick_start(Path(sys.argv[1]))
found = [c.matched_text() for c in eyecite_quick.get_citations(sys.argv[2])]
lean, loaded = eyecite_quick._Settings.lean is not None, "lxml.etree" in sys.modules
from eyecite import clean_text, utils
cleaned = clean_text("<p>Roe v. Doe, <i>12 S.W.2d 34</i></p>", ["html", "all_whitespace"])
balanced = [utils.is_balanced_html("<b>x</b>"), utils.is_balanced_html("<b>x")]
import lxml.etree
real = type(lxml.etree.fromstring("<a/>")).__name__
print(json.dumps({"lean": lean, "loaded": loaded, "found": found, "cleaned": cleaned, "balanced": balanced,
                  "real": real}))
"""


def test_lean_eyecite_leaves_lxml_unloaded_until_something_in_it_is_used(tmp_path: Path) -> None:
    """eyecite imports lxml for HTML; a lean process finding citations in plain text never loads it, and
    eyecite's HTML cleaning and markup check, used later in that process, work as in full eyecite."""
    from eyecite import clean_text, utils

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cache = tmp_path / "cache"
    argv = [sys.executable, "-c", UNUSED_LXML_PROBE, str(cache), FORMS]
    subprocess.run(argv, env=env, capture_output=True, check=True)  # the first run writes the groups
    done = json.loads(subprocess.run(argv, env=env, capture_output=True, text=True, check=True).stdout)
    assert done["lean"] and not done["loaded"]
    assert done["found"] == [c.matched_text() for c in get_citations(FORMS)]
    assert done["cleaned"] == clean_text("<p>Roe v. Doe, <i>12 S.W.2d 34</i></p>", ["html", "all_whitespace"])
    assert (
        done["balanced"]
        == [utils.is_balanced_html("<b>x</b>"), utils.is_balanced_html("<b>x")]
        == [True, False]
    )
    assert done["real"] == "_Element"


def test_the_court_lookup_over_a_table_answers_as_eyecites_own_on_every_court() -> None:
    import courts_db
    import eyecite.helpers

    from drafting.verify.eyecite_quick import court_by_paren

    own = eyecite.helpers.get_court_by_paren
    table = court_by_paren(courts_db.courts)
    asked = {"", " ", "(", "9th Cir.", "S.D.N.Y.", "N.J. Super. Ct. App. Div.", "Tex. App.", "Ga.", "Ill."}
    for court in courts_db.courts:
        string = court["citation_string"]
        asked.update(
            {string, string.upper(), string.replace(" ", ""), string[: len(string) // 2], string + "."}
        )
    assert len(asked) > 2000
    differing = [paren for paren in sorted(asked) if table(paren) != own(paren)]
    assert not differing, differing[:10]
