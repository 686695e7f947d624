"""The context builder: which primary pages a model is given for a task, and the exact messages.

The attorney must be able to see, literally, what is in every context window
and where each piece came from. So the builder returns the
messages themselves, each chunk with its provenance (file, page, Bates,
sha256, primary), and ``save_context`` stores exactly that for the run.

The budget comes from the backend's context size (``n_ctx`` from llama-server
``/props``) and is counted with the server's own tokenizer (``/tokenize``);
both arrive as plain functions, because this room does not import
``backends``. Without a counter the builder estimates, and says so in
``counted_by``: an estimate is never presented as a count.

It refuses any chunk that is not primary: a page whose file is now a
registered chambers output is left out and listed in ``refused``, and
``render_messages`` raises if handed one.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from evidence.errors import NonPrimaryChunk
from evidence.provenance import registered_output
from evidence.search import SearchFilters, search_db
from evidence.store import add_context, open_index, page_text, require_matter

TokenCounter = Callable[[str], int]
CHARS_PER_TOKEN_ESTIMATE = 3  # deliberately pessimistic (English runs ~4): an estimate must not overflow
MESSAGE_OVERHEAD_TOKENS = 16  # chat-template tokens per message (role markers), added to every count
SYSTEM_PROMPT = (
    "You are drafting for an attorney. Use only the numbered sources below; they are the client's "
    "primary documents. Cite every fact with its source label and Bates number, e.g. [S2, HPP-000014]. "
    "Quote exactly. If the sources do not support a statement, say so instead of writing it. Never invent "
    "a citation, a date, a Bates number or a quotation."
)
SOURCES_MESSAGE = 1  # the user message, after the system prompt
SOURCES_HEAD = "SOURCES\n\n"


@dataclass(frozen=True)
class Provenance:
    path: str
    part: str
    page_no: int
    bates: str | None
    sha256: str
    primary: bool
    page_id: int
    doc_date: str | None = None


@dataclass(frozen=True)
class ContextChunk:
    label: str  # "S1", "S2": how the messages cite it
    text: str
    provenance: Provenance

    def rendered(self) -> str:
        p = self.provenance
        where = Path(p.path).name + (f" ({p.part})" if p.part else "")
        head = (
            f"[{self.label}] file: {where} | page {p.page_no} | Bates {p.bates or 'none'} | "
            f"sha256 {p.sha256[:16]} | {'primary' if p.primary else 'NOT PRIMARY'}"
        )
        return f"{head}\n{self.text.strip()}\n"


@dataclass
class ContextBundle:
    matter: str
    task: str
    messages: list[dict[str, str]]
    chunks: list[ContextChunk]
    n_ctx: int
    budget: int  # tokens the messages may use (n_ctx less the room kept for the answer)
    tokens: int  # what the messages use, as counted_by says
    counted_by: str
    left_out: int = 0  # relevant pages that did not fit
    refused: list[str] = field(default_factory=list)  # pages left out because they are not primary


def render_messages(task: str, chunks: Sequence[ContextChunk]) -> list[dict[str, str]]:
    """The exact messages for a task and its chunks; raises NonPrimaryChunk for any non-primary chunk."""
    for chunk in chunks:
        if not chunk.provenance.primary:
            p = chunk.provenance
            raise NonPrimaryChunk(
                f"{p.path} page {p.page_no} is not a primary source and was refused. Only the client's own "
                "documents may go to a model as evidence; run `chambers evidence audit` to see why."
            )
    sources = "\n".join(chunk.rendered() for chunk in chunks) or "(no sources matched this task)\n"
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": f"{SOURCES_HEAD}{sources}\nTASK\n\n{task.strip()}"},
    ]


def source_spans(chunks: Sequence[ContextChunk]) -> list[tuple[int, int, int]]:
    """Where ``render_messages`` puts each chunk: (message index, start, end) of its rendered text.

    The sources come before the task in the user message, so the spans are the same whatever the task.
    """
    spans = []
    at = len(SOURCES_HEAD)
    for chunk in chunks:
        end = at + len(chunk.rendered())
        spans.append((SOURCES_MESSAGE, at, end))
        at = end + 1  # the newline that joins two chunks
    return spans


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN_ESTIMATE)


def build_context(
    db_path: Path,
    matter_name: str,
    task: str,
    *,
    n_ctx: int | Callable[[], int],
    count_tokens: TokenCounter | None = None,
    counter_name: str = "llama-server /tokenize",
    query: str | None = None,
    filters: SearchFilters | None = None,
    reserve_for_answer: int = 1024,
    candidates: int = 60,
) -> ContextBundle:
    """Pick the best-matching primary pages that fit the budget, and render the messages."""
    window = n_ctx() if callable(n_ctx) else n_ctx
    count: TokenCounter
    if count_tokens is None:
        count, counted_by = (
            estimate_tokens,
            f"estimate (1 token per {CHARS_PER_TOKEN_ESTIMATE} characters; not counted)",
        )
    else:
        count, counted_by = count_tokens, counter_name

    def cost(messages: list[dict[str, str]]) -> int:
        return sum(count(m["content"]) + MESSAGE_OVERHEAD_TOKENS for m in messages)

    budget = window - reserve_for_answer
    with open_index(db_path) as db:
        matter = require_matter(db, matter_name)
        hits = search_db(db, matter.id, query or task, filters=filters, limit=candidates, any_term=True)
        base = cost(render_messages(task, []))
        room = budget - base
        chosen: list[ContextChunk] = []
        refused: list[str] = []
        left_out = 0
        for hit in hits:
            text = page_text(db, hit.page_id)
            primary = registered_output(db, hit.sha256) is None
            prov = Provenance(
                hit.path, hit.part, hit.page_no, hit.bates, hit.sha256, primary, hit.page_id, hit.doc_date
            )
            if not primary:
                refused.append(f"{hit.path} page {hit.page_no}: the file is a registered chambers output")
                continue
            chunk = ContextChunk(f"S{len(chosen) + 1}", text, prov)
            need = count(chunk.rendered() + "\n")
            if need <= room:
                chosen.append(chunk)
                room -= need
            else:
                left_out += 1
    messages = render_messages(task, chosen)
    tokens = cost(messages)
    while tokens > budget and chosen:  # pieces counted apart can differ from the whole by a token or two
        chosen.pop()
        left_out += 1
        messages = render_messages(task, chosen)
        tokens = cost(messages)
    return ContextBundle(
        matter.name, task, messages, chosen, window, budget, tokens, counted_by, left_out, refused
    )


def save_context(db_path: Path, bundle: ContextBundle) -> int:
    """Store exactly what a model is given, and where each piece came from; returns its id."""
    messages = json.dumps(bundle.messages, ensure_ascii=False)
    chunks = json.dumps([{"label": c.label, **asdict(c.provenance)} for c in bundle.chunks])
    with open_index(db_path) as db:
        matter = require_matter(db, bundle.matter)
        window = (bundle.n_ctx, bundle.budget, bundle.tokens)
        return add_context(db, matter.id, bundle.task, window, bundle.counted_by, messages, chunks)
