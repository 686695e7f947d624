"""The verifier's reading of an authorities library, kept between runs (drafting/verify/index_cache.py),
on the real opinions of tests/verify_real: the same reports with it cold, warm and without it, never
a copy of the client's record, a new reading when the library changes, and a kept file that cannot
be read is read anew."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from drafting.verify import index_cache, library_reading, sources, verify_draft
from evidence.index.store import IndexedPage
from evidence.ingest import ingest_matter
from tests.support.verify_real_corpus import RealCorpus, build_real_corpus, requires_opinions

pytestmark = requires_opinions

DRAFTS = sorted((Path(__file__).parent / "verify_real" / "tune").glob("*.md"))
PETRO = "petro-lubricant-v-adelman.txt"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> RealCorpus:
    return build_real_corpus(tmp_path_factory.mktemp("index-cache"))


@pytest.fixture
def kept(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "cache"
    index_cache.keep_in(folder)
    yield folder / "verify"
    index_cache.keep_in(None)


def _reports(corpus: RealCorpus) -> list[str]:
    return [verify_draft(corpus.database_file, d, corpus.matter, corpus.library).to_json() for d in DRAFTS]


def _never(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("read anew although an unchanged reading was kept")


def test_a_kept_reading_gives_the_reports_of_a_reading_made_anew(
    corpus: RealCorpus, kept: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert DRAFTS, "the tune drafts of tests/verify_real"
    index_cache.keep_in(None)
    anew = _reports(corpus)
    index_cache.keep_in(kept.parent)
    cold = _reports(corpus)
    # the library's pages and its index; never the client's record
    assert sorted(p.name.split("-")[0] for p in kept.glob("*.json")) == ["library", "pages"]
    record_text = "\n".join(p.norm for p in sources.load_sources(corpus.database_file, corpus.matter).pages)
    assert record_text[:200] and all(record_text[:200] not in p.read_text() for p in kept.glob("*.json"))
    library_documents = set(sources.load_sources(corpus.database_file, corpus.library).documents)
    read: list[int] = []
    page_reading = sources._page_reading

    def counted(row: IndexedPage) -> sources.PageReading:
        read.append(row.document_id)
        return page_reading(row)

    monkeypatch.setattr(library_reading, "index_opinions", _never)
    monkeypatch.setattr(sources, "_page_reading", counted)
    warm = _reports(corpus)
    assert read and not set(read) & library_documents  # the record's pages are read, the library's kept
    assert anew == cold == warm


def test_a_library_ingested_again_with_another_opinion_is_read_anew(tmp_path: Path, kept: Path) -> None:
    (tmp_path / "corpus").mkdir()
    corpus = build_real_corpus(tmp_path / "corpus")
    library_folder = tmp_path / "corpus" / "opinions"
    aside = tmp_path / PETRO
    shutil.move(library_folder / PETRO, aside)
    ingest_matter(corpus.database_file, corpus.library, tessdata=None)
    draft = tmp_path / "draft.md"
    draft.write_text(
        "The claim is barred. Petro-Lubricant Testing Labs., Inc. v. Adelman, 148 A.3d 441 (N.J. 2016).\n"
    )

    def verdicts() -> list[str]:
        report = verify_draft(corpus.database_file, draft, corpus.matter, corpus.library)
        return [f.verdict for f in report.flags if f.kind == "case"]

    assert verdicts() == ["unverifiable"]  # not in the library, and that reading is kept
    readings = len(list(kept.glob("library-*.json")))
    shutil.move(aside, library_folder / PETRO)
    ingest_matter(corpus.database_file, corpus.library, tessdata=None)
    assert verdicts() == ["verified"]
    assert len(list(kept.glob("library-*.json"))) == readings + 1


def test_a_kept_reading_that_cannot_be_read_is_read_anew(corpus: RealCorpus, kept: Path) -> None:
    first = _reports(corpus)
    for path in kept.glob("*.json"):
        path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])  # cut short, as by a full disk
    assert _reports(corpus) == first
    for path in kept.glob("*.json"):
        assert json.loads(path.read_bytes())["format"] == index_cache.FORMAT  # and written whole again


def test_authorities_add_and_list_keep_the_reading_the_next_verify_uses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui.cli.main import main

    home = tmp_path / "home"
    (home / "data").mkdir(parents=True)
    corpus = build_real_corpus(home / "data")
    monkeypatch.setenv("CHAMBERS_HOME", str(home))
    monkeypatch.setenv("CHAMBERS_CACHE_DIR", str(tmp_path / "cache"))
    petro = home / "data" / "opinions" / PETRO
    assert main(["authorities", "add", str(petro), "--library", corpus.library]) == 0
    assert list((tmp_path / "cache" / "verify").glob("library-*.json"))
    monkeypatch.setattr(library_reading, "index_opinions", _never)
    draft = tmp_path / "draft.md"
    draft.write_text(
        "The claim is barred. Petro-Lubricant Testing Labs., Inc. v. Adelman, 148 A.3d 441 (N.J. 2016).\n"
    )
    assert main(["verify", str(draft), "--matter", corpus.matter, "--authorities", corpus.library]) == 0
    assert main(["authorities", "list", "--library", corpus.library]) in (0, 1)  # 1: a file not indexed
