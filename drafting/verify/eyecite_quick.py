"""eyecite with only the reporters a text can need: the quick start of a one-shot ``chambers verify``.

Importing eyecite builds a tokenizer for all of reporters-db (about 2,500 reporters, laws and
journals): most of the start-up of ``chambers verify``, though a draft cites a handful. So the
first run groups the sources once into JSON in the user cache folder, named after the installed
data files (an upgrade makes a new file): a line of the groups, then a line of each group's sources,
which a process decodes only for the groups its texts need. A group holds the sources that share a regex
with each other, with the strings a text must contain for any of its regexes to match: the strings
eyecite's own Aho-Corasick filter looks for. A later process imports eyecite with no sources and
builds, per text, the extractors of the groups whose strings the text contains (and of the few
regexes that need no string). Those are the extractors eyecite would run on that text, built by
eyecite's own code from the same data, so the citations found are the same.

Anyone else in the process who calls eyecite directly gets eyecite in full: its default tokenizer
is completed from the real reporters-db on its first use (at the cost lean eyecite saves).
``quick_start`` is called by the CLI's verify, a one-shot process.

eyecite offers no supported way to this: ``eyecite.find`` imports ``eyecite.tokenizers``, which
builds the extractors of every source and an ``AhocorasickTokenizer`` over them at import, before
any ``tokenizer=`` argument can be given (``HyperscanTokenizer(cache_dir=...)`` caches only its
compiled hyperscan database, after that same build). So this module is an adapter, the patch
upstream would take (a build over given sources, a tokenizer built on first use), applied from the
outside. It relies on these parts of eyecite's tokenizers module, and checks them (``contract_problem``)
on the first run, against the real modules, before any lean process relies on them:

- the build reads the module globals ``REPORTERS``, ``LAWS``, ``JOURNALS`` and ``RAW_REGEX_VARIABLES``
  (imported from reporters-db) and runs at import through ``_populate_reporter_extractors()``, which
  takes no argument and appends to the module's ``EXTRACTORS`` and ``EDITIONS_LOOKUP``;
- ``AhocorasickTokenizer()`` filters over the module's ``EXTRACTORS`` and ``default_tokenizer`` is one;
- ``eyecite.helpers`` reads ``courts`` from courts-db, and looks a parenthetical's court up in them
  through its module function ``get_court_by_paren``, which the adapter replaces with the same lookup
  over a table made once (``court_by_paren``; a test compares the two on every court).

An eyecite that breaks any of these is recorded in the cache as not fit for the adapter: every
process then uses eyecite in full, slower to start and finding the same citations.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import re
import sys
import types
from collections.abc import Callable
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from drafting.verify.eyecite_groups_file import check_sources, read_groups, write_groups
from drafting.verify.on_first_use import LXML, standing_in

FORMAT = 3
KINDS = ("reporters", "laws", "journals")
DATE_FORMAT = "%Y-%m-%dT%H:%M:%S"  # how reporters-db writes start and end
# the same form, which fromisoformat reads to the same datetime without strptime's import and parsing
_ISO_DATE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")
_WHITESPACE = re.compile(r"\s+")

log = logging.getLogger(__name__)


class _Settings:
    folder: Path | None = None  # where the groups are cached; None: plain eyecite
    lean: _LeanEyecite | None = None


def quick_start(cache_folder: Path) -> None:
    """Let this process use lean eyecite. Has no effect once eyecite has been imported the usual way."""
    if "eyecite" not in sys.modules:
        _Settings.folder = cache_folder


def get_citations(text: str) -> list[Any]:
    """``eyecite.get_citations(text)``, from a tokenizer of the sources the text can need when allowed."""
    # its "Unknown overlap case" notes (an Id. or a statute inside a case's span) are eyecite's own
    # bookkeeping, not the attorney's business, wherever a text is read: a draft or a library
    logging.getLogger("eyecite").setLevel(logging.ERROR)
    lean = _lean_eyecite()
    if lean is not None:
        return lean.get_citations(text)
    from eyecite import get_citations as eyecite_get_citations

    return eyecite_get_citations(text, tokenizer=_stable_default())


@lru_cache(maxsize=1)
def _stable_default() -> Any:
    from eyecite.tokenizers import default_tokenizer

    return in_stable_order(default_tokenizer)


def reporter_names() -> list[str]:
    """Every edition and variation name reporters-db knows ("F.3d", "F. 3d", "U. S."...)."""
    lean = _lean_eyecite()
    if lean is not None:
        return lean.reporter_names
    import reporters_db

    return list(set(reporters_db.EDITIONS) | set(reporters_db.VARIATIONS_ONLY))


def _lean_eyecite() -> _LeanEyecite | None:
    if _Settings.lean is not None or _Settings.folder is None:
        return _Settings.lean
    if "eyecite" in sys.modules:  # imported in full by someone else: use that
        _Settings.folder = None
        return None
    cache = _Settings.folder / f"eyecite-groups-{installed_key()}.json"
    try:
        data, sources = read_groups(cache)
        if data.get("format") != FORMAT:
            raise ValueError(f"format {data.get('format')}")
        if data.get("lean") is False:  # this eyecite does not hold what the adapter relies on
            _Settings.folder = None
            return None
        _Settings.lean = _LeanEyecite(data, sources)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        # first run (or a damaged file): eyecite in full for this process, and the groups for the next
        log.info("eyecite groups not read from %s (%s); building them", cache, exc)
        _Settings.folder = None
        import eyecite.helpers
        import eyecite.tokenizers

        problem = contract_problem(eyecite.tokenizers, eyecite.helpers)
        if problem is None:
            record = build_groups(eyecite.tokenizers)
        else:
            log.warning("eyecite starts in full in every process: %s", problem)
            record = {"format": FORMAT, "lean": False, "reason": problem}
        write_groups(cache, record)
    return _Settings.lean


def contract_problem(tokenizers: types.ModuleType, helpers: types.ModuleType) -> str | None:
    """What the installed eyecite lacks of the parts the adapter relies on (see the module's
    docstring), or None when it has them all. Read on eyecite imported in full."""
    import inspect

    import reporters_db

    build = getattr(tokenizers, "_populate_reporter_extractors", None)
    if not callable(build) or inspect.signature(build).parameters:
        return "eyecite.tokenizers has no _populate_reporter_extractors() taking no argument"
    for name in ("EXTRACTORS", "EDITIONS_LOOKUP"):
        if not hasattr(getattr(tokenizers, name, None), "clear"):
            return f"eyecite.tokenizers has no {name} collection"
    for kind in KINDS:
        if getattr(tokenizers, kind.upper(), None) is not getattr(reporters_db, kind.upper()):
            return f"eyecite.tokenizers does not build from reporters-db's {kind.upper()}"
    if not hasattr(tokenizers, "RAW_REGEX_VARIABLES"):
        return "eyecite.tokenizers does not read reporters-db's RAW_REGEX_VARIABLES"
    ahocorasick_tokenizer = getattr(tokenizers, "AhocorasickTokenizer", None)
    post_init = getattr(ahocorasick_tokenizer, "__post_init__", None)
    code = getattr(post_init, "__code__", None)
    if not isinstance(ahocorasick_tokenizer, type) or code is None or "EXTRACTORS" not in code.co_names:
        return "eyecite's AhocorasickTokenizer does not filter over the module's EXTRACTORS"
    if not isinstance(getattr(tokenizers, "default_tokenizer", None), ahocorasick_tokenizer):
        return "eyecite's default_tokenizer is not an AhocorasickTokenizer"
    if not isinstance(getattr(helpers, "courts", None), list):
        return "eyecite.helpers does not read courts-db's courts"
    return None


def installed_key() -> str:
    """Names the installed eyecite and reporters-db by their files, without importing them."""
    parts = [str(FORMAT)]
    for package, names in (("eyecite", ["tokenizers.py", "regexes.py"]), ("reporters_db", [])):
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise ModuleNotFoundError(f"{package} is not installed")
        folder = Path(next(iter(spec.submodule_search_locations)))
        files = [folder / n for n in names] or sorted((folder / "data").glob("*.json"))
        for file in files:
            stat = file.stat()
            parts.append(f"{file.name}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def _reporters_db_folder() -> Path:
    spec = importlib.util.find_spec("reporters_db")
    assert spec is not None and spec.submodule_search_locations  # checked by installed_key
    return Path(next(iter(spec.submodule_search_locations)))


def build_groups(tokenizers: types.ModuleType) -> dict[str, Any]:
    """Group the sources behind eyecite's full set of extractors (``tokenizers.EXTRACTORS``)."""
    data = _reporters_db_folder() / "data"
    raw = {kind: json.loads((data / f"{kind}.json").read_text(encoding="utf-8")) for kind in KINDS}
    ordinal: dict[tuple[str, str, int], int] = {}
    by_name: dict[tuple[str, str, str], list[tuple[str, str, int]]] = {}
    for kind in KINDS:
        for key, entries in raw[kind].items():
            for index, entry in enumerate(entries):
                ordinal[(kind, key, index)] = len(ordinal)
                by_name.setdefault((kind, key, entry["name"]), []).append((kind, key, index))
    parent: dict[tuple[str, str, int], tuple[str, str, int]] = {}

    def root(source: tuple[str, str, int]) -> tuple[str, str, int]:
        while parent.setdefault(source, source) != source:
            source = parent[source]
        return source

    clusters: list[tuple[tuple[str, str, int], list[str], bool]] = []
    for extractor in tokenizers.EXTRACTORS:
        editions = extractor.extra.get("exact_editions", []) + extractor.extra.get("variation_editions", [])
        if not editions:
            continue  # Id., supra, section signs...: eyecite builds these whatever the sources
        sources = {
            s for e in editions for s in by_name[(e.reporter.source, e.reporter.short_name, e.reporter.name)]
        }
        first, *others = sorted(sources, key=ordinal.__getitem__)
        for other in others:
            parent[root(other)] = root(first)
        # a regex matched regardless of case would slip past a case-sensitive look for its strings
        always = not extractor.strings or bool(extractor.flags & re.IGNORECASE)
        clusters.append((first, [_WHITESPACE.sub("", s) for s in extractor.strings], always))
    groups: dict[tuple[str, str, int], dict[str, Any]] = {}
    for first, strings, always in clusters:
        group = groups.setdefault(root(first), {"strings": set(), "always": False})
        group["strings"].update(strings)
        group["always"] = group["always"] or always
    members: dict[tuple[str, str, int], list[tuple[str, str, int]]] = {}
    for source in ordinal:
        if source in parent:
            members.setdefault(root(source), []).append(source)
    import courts_db
    import reporters_db

    return {
        "format": FORMAT,
        "lean": True,
        # what eyecite reads of courts-db (a court's id from a parenthetical's "9th Cir."), in its order
        "courts": [{"id": c["id"], "citation_string": c["citation_string"]} for c in courts_db.courts],
        "reporter_names": sorted(set(reporters_db.EDITIONS) | set(reporters_db.VARIATIONS_ONLY)),
        "regex_variables": json.loads((data / "regexes.json").read_text(encoding="utf-8")),
        "groups": [
            {
                "strings": sorted(group["strings"]),
                "always": group["always"],
                "sources": [[ordinal[s], s[0], s[1], raw[s[0]][s[1]][s[2]]] for s in members[top]],
            }
            for top, group in groups.items()
        ],
    }


class _LeanEyecite:
    def __init__(self, data: dict[str, Any], sources: list[str]) -> None:
        import ahocorasick

        self.groups: list[dict[str, Any]] = data["groups"]
        self.reporter_names: list[str] = data["reporter_names"]
        check_sources(self.groups, sources)  # now, before eyecite is imported
        self.sources = sources  # each decoded when a text first needs its group
        self.always = {i for i, g in enumerate(self.groups) if g["always"]}
        self.filter = ahocorasick.Automaton()
        owners: dict[str, list[int]] = {}
        for index, group in enumerate(self.groups):
            for string in group["strings"]:
                owners.setdefault(string, []).append(index)
        for string, indexes in owners.items():
            self.filter.add_word(string, indexes)
        self.filter.make_automaton()
        self.tokenizers = _import_without_sources(data["regex_variables"], data["courts"])
        self.built: set[int] = set()
        self.tokenizer: Any = None
        self.extractors: list[Any] = []  # the reporters' extractors of the groups built so far
        self.specials: list[Any] = []
        self.full: Any = None  # eyecite's complete tokenizer, once someone has asked for it
        self._complete_on_first_use(self.tokenizers.default_tokenizer)

    def get_citations(self, text: str) -> list[Any]:
        from eyecite import get_citations

        return get_citations(text, tokenizer=self.tokenizer_for(text))

    def tokenizer_for(self, text: str) -> Any:
        if self.full is not None:
            return self.full
        needed = set(self.always)
        for _, indexes in self.filter.iter(_WHITESPACE.sub("", text)):
            needed.update(indexes)
        if self.tokenizer is None or not needed <= self.built:
            self.tokenizer = self._add(needed - self.built)
            self.built |= needed
        return self.tokenizer

    def _add(self, groups: set[int]) -> Any:
        """A tokenizer with these groups' extractors added, built by eyecite's own code from their sources.

        No regex is shared between groups, so each group's extractors are built once and kept (with
        the regexes they have compiled) however many groups later texts add.
        """
        chosen = sorted((s for g in groups for s in json.loads(self.sources[g])), key=lambda s: s[0])
        subset: dict[str, dict[str, list[Any]]] = {kind: {} for kind in KINDS}
        for _, kind, key, entry in chosen:
            subset[kind].setdefault(key, []).append(_dated(entry))
        built = _extractors_over(self.tokenizers, subset)
        # Id., supra, section signs...: built with every set of sources, kept from the first build
        self.specials = self.specials or [e for e in built if "exact_editions" not in e.extra]
        self.extractors += [e for e in built if "exact_editions" in e.extra]
        self.tokenizers.EXTRACTORS[:] = self.extractors + self.specials  # what the tokenizer reads
        return in_stable_order(self.tokenizers.AhocorasickTokenizer())

    def _complete_on_first_use(self, default: Any) -> None:
        """Make eyecite's default tokenizer (built with no sources) the full one when first used."""

        def get_extractors(text: str) -> Any:
            if self.full is None:
                import reporters_db

                everything = {kind: getattr(reporters_db, kind.upper()) for kind in KINDS}
                self.tokenizers.EDITIONS_LOOKUP.clear()  # the lean builds' entries are all in it again
                _extractors_over(self.tokenizers, everything)
                self.full = in_stable_order(self.tokenizers.AhocorasickTokenizer())
            vars(default).update(vars(self.full))  # its extractors and filters
            del default.get_extractors  # this function: the class's own works from here on
            in_stable_order(default)
            return default.get_extractors(text)

        default.get_extractors = get_extractors


def in_stable_order(tokenizer: Any) -> Any:
    """The tokenizer, its candidate extractors run in the order they were built.

    eyecite gathers them in a set of objects hashed by address, so which of two extractors matching
    the same words wins ("105 T.C. at 126" as a short form, or not) changed from one process to the
    next; in build order, the same text gives the same citations on every run.
    """
    order = {id(e): i for i, e in enumerate(tokenizer.extractors)}
    unordered = tokenizer.get_extractors

    def get_extractors(text: str) -> list[Any]:
        return sorted(unordered(text), key=lambda e: order.get(id(e), len(order)))

    tokenizer.get_extractors = get_extractors
    return tokenizer


def _extractors_over(tokenizers: types.ModuleType, sources: dict[str, dict[str, list[Any]]]) -> list[Any]:
    """The extractors eyecite builds itself (``_populate_reporter_extractors``) over these sources."""
    for kind in KINDS:
        setattr(tokenizers, kind.upper(), sources[kind])  # what the build reads
    tokenizers.EXTRACTORS.clear()
    tokenizers._populate_reporter_extractors()
    return list(tokenizers.EXTRACTORS)


def _import_without_sources(
    regex_variables: dict[str, Any], courts: list[dict[str, str]]
) -> types.ModuleType:
    """Import eyecite over a stand-in reporters-db with no sources (its tokenizer is built at import),
    and a stand-in courts-db holding only the two fields of each court eyecite reads; lxml is imported
    only if something in it is used (see on_first_use)."""
    courts_stand_in = types.ModuleType("courts_db")
    courts_stand_in.courts = courts  # type: ignore[attr-defined]
    stand_in = types.ModuleType("reporters_db")
    stand_in.__path__ = [str(_reporters_db_folder())]  # reporters_db.utils is the real one
    for kind in KINDS:
        setattr(stand_in, kind.upper(), {})
    stand_in.RAW_REGEX_VARIABLES = regex_variables  # type: ignore[attr-defined]
    installed = {"reporters_db": stand_in, "courts_db": courts_stand_in}
    if "courts_db" in sys.modules:
        del installed["courts_db"]  # already loaded in full: eyecite reads the real one
    sys.modules.update(installed)
    try:
        with standing_in(LXML):  # for HTML, never given here
            import eyecite.helpers
            import eyecite.tokenizers
    finally:
        # anyone importing reporters-db or courts-db later gets the real one
        for name in [*installed, "reporters_db.utils"]:
            sys.modules.pop(name, None)
    if callable(getattr(eyecite.helpers, "get_court_by_paren", None)):
        eyecite.helpers.get_court_by_paren = court_by_paren(courts)  # type: ignore[assignment]
    return eyecite.tokenizers


def court_by_paren(courts: list[dict[str, Any]]) -> Callable[[str], str | None]:
    """eyecite's ``helpers.get_court_by_paren`` over a table of the courts made once.

    eyecite's own strips and lower-cases every court's citation string again for each parenthetical
    it reads ("9th Cir."), some 2,000 regex calls each: most of what reading a library's opinion heads
    costs. This one gives the same answer (the first exact match's id as a string, else the last
    court whose string starts with it, else None), from the same ``regex`` pattern."""
    import regex

    non_word = regex.compile(r"[^\w]")
    table = [(non_word.sub("", court["citation_string"]).lower(), court["id"]) for court in courts]

    def get_court_by_paren(paren_string: str) -> str | None:
        court_str = non_word.sub("", paren_string).lower()
        court_code = None
        if court_str:
            for string, court_id in table:
                if string == court_str:
                    return str(court_id)
                if string.startswith(court_str):
                    court_code = court_id
        return court_code

    return get_court_by_paren


def _dated(value: Any) -> Any:
    """A fresh copy of a reporters-db entry with its start and end as datetimes, as reporters-db reads them."""
    if isinstance(value, list):
        return [_dated(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: _dated(v) for k, v in value.items()}
    for k in ("start", "end"):
        stamp = out.get(k)
        if isinstance(stamp, str):
            iso = _ISO_DATE.fullmatch(stamp) is not None
            out[k] = datetime.fromisoformat(stamp) if iso else datetime.strptime(stamp, DATE_FORMAT)
    return out
