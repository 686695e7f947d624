"""The speed benchmark's own bookkeeping, on the real corpus and a scripted server over real HTTP.

The scripted server stands in for llama-server's answers only (the tiny model cannot be timed on
this shared machine within a test); what is checked is what the benchmark counts: every model call
the support check makes is in its audit trail with its span, the time outside calls is a share of
the run, and the replay sends the server exactly the requests the check sent.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from benchmarks.support_speed import brief, covered, pages_of, replay, run_check
from drafting.verify.sources import load_sources
from drafting.verify.verifier import load_library
from tests.support.scripted_server import scripted_server
from tests.support.support_keyed_set import key_items
from tests.support.verify_real_corpus import build_real_corpus, requires_opinions

pytestmark = requires_opinions


def test_the_time_outside_calls_counts_each_second_once():
    spans = [(0.0, 2.0), (1.0, 3.0), (5.0, 6.0), (9.0, 20.0)]
    assert covered(spans, 0.0, 10.0) == 2.0 + 1.0 + 1.0 + 1.0  # overlaps once; the last cut at the end


def test_the_brief_runs_to_twenty_pages_for_a_hundred_citations():
    assert 18 <= pages_of(brief(key_items(), 100)) <= 24


def test_the_check_is_timed_from_its_audit_trail_and_replayed_request_for_request(tmp_path):
    corpus = build_real_corpus(tmp_path)
    library = load_library(corpus.database_file, corpus.library)
    record = load_sources(corpus.database_file, corpus.matter)
    draft = brief(key_items(), 6)
    answer = {"label": "supports", "missing": "", "span": ""}
    with scripted_server(answer) as (url, script):
        check = run_check(corpus.database_file, corpus.matter, draft, library, record, url, 32)
        sent = list(script.requests)
        seconds, tokens = asyncio.run(replay(url, check.requests))
    assert check.calls == len(sent) == 6 and len(check.requests) == 6
    assert 0.0 <= check.outside_calls < check.wall
    assert check.tokens == 6 * 5 and tokens == 6 * 5  # the scripted server says 5 decoded a call
    # The replay is the check's requests, as they were sent; four at once, so in any order.
    assert sorted(map(_canonical, script.requests[6:])) == sorted(map(_canonical, sent))
    assert check.no_evidence == 6 and seconds > 0  # an empty span is no evidence, as the check shows it


def _canonical(request: Any) -> str:
    return json.dumps(request, sort_keys=True)
