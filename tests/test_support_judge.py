"""The support role's judgement: its span held to the passage, on a scripted and on the real server."""

from __future__ import annotations

import asyncio

import pytest

from drafting.support.judge import MODEL_JUDGEMENT, NO_EVIDENCE, judge_pairs, server_slots
from drafting.support.prompt import LABELS
from tests.support.scripted_server import scripted_server
from workspace.config import Backend, Config, Policy, Sampling

PASSAGE = (
    "web postings are available for an indefinite period of time. if immaterial changes to an internet post "
    "were to result in a retriggering of the statute of limitations on each occasion, the legislative purpose "
    "of favoring a short statute of limitations for defamation would be defeated."
)
CLAIM = "Minor edits to a web post do not restart the limitations period for defamation."


def _config(url: str, max_tokens: int = 160) -> Config:
    backend = Backend(
        name="reviewer",
        kind="llamacpp",
        url=url,
        roles=("reviewer",),
        sampling=Sampling(temperature=0.0, seed=1, max_tokens=max_tokens),
    )
    return Config(file="test-config.toml", policy=Policy(), boards=(), backends=(backend,))


def _judge(url: str, pairs, **kw):
    config = _config(url)
    return asyncio.run(judge_pairs(pairs, config.backends[0], config, **kw))


def test_an_invented_span_is_discarded_as_no_evidence():
    invented = {
        "label": "contradicts",
        "missing": "",
        "span": "the statute of limitations restarts on every edit",
    }
    with scripted_server(invented) as (url, script):
        (judgement,) = _judge(url, [(CLAIM, PASSAGE)])
    assert judgement.label == NO_EVIDENCE and judgement.span == "" and not judgement.warns
    assert judgement.answered == "contradicts"  # what the model said is kept beside the discard
    sent = script.requests[0]
    assert sent["response_format"]["json_schema"]["schema"]["properties"]["label"]["enum"] == list(LABELS)
    assert CLAIM in sent["messages"][1]["content"] and PASSAGE in sent["messages"][1]["content"]


def test_a_verbatim_span_is_kept_with_its_offset_and_the_warning_is_a_model_judgement():
    span = (
        "the legislative purpose of favoring a short statute of limitations for defamation would be defeated"
    )
    answers = [
        {"label": "contradicts", "missing": "", "span": span},
        {
            "label": "partly",
            "missing": "the brief says minor edits; the court says immaterial changes",
            "span": span,
        },
    ]
    with scripted_server(*answers) as (url, _):
        seen: list[tuple[int, int]] = []
        first, second = _judge(
            url, [(CLAIM, PASSAGE), (CLAIM, PASSAGE)], slots=1, on_done=lambda d, n: seen.append((d, n))
        )
    assert first.label == "contradicts" and first.warns and first.source == MODEL_JUDGEMENT
    assert PASSAGE[first.span_start : first.span_start + len(span)] == span
    assert second.label == "partly" and "immaterial" in second.missing and not second.warns
    assert seen == [(1, 2), (2, 2)]


def test_the_real_server_answers_every_pair_in_parallel_slots(llama_server):
    """Mechanics only: the tiny test model's labels are not a measure of accuracy."""
    pairs = [
        (CLAIM, PASSAGE),
        ("The court dismissed the counterclaim.", PASSAGE),
        (CLAIM, ""),
    ]
    config = _config(llama_server.url)
    assert asyncio.run(server_slots(config.backends[0], config)) == 2  # the test server runs -np 2
    seen: list[tuple[int, int]] = []
    judgements = _judge(llama_server.url, pairs, on_done=lambda d, n: seen.append((d, n)))
    assert [n for _, n in seen] == [3] * 3 and seen[-1] == (3, 3)
    assert judgements[2].label == NO_EVIDENCE and judgements[2].error == "no passage to judge"
    for judgement, (_, passage) in zip(judgements, pairs, strict=True):
        assert judgement.label in (*LABELS, NO_EVIDENCE)
        if judgement.label != NO_EVIDENCE:  # a kept judgement always carries a span found in its passage
            assert judgement.span and passage[judgement.span_start :].startswith(judgement.span)
        else:
            assert judgement.span == "" and not judgement.warns


def test_a_backend_declares_the_support_role_and_the_reviewer_judges_where_none_does(tmp_path):
    from drafting.support.judge import support_backend
    from workspace.config import ConfigError, load_config

    file = tmp_path / "config.toml"
    file.write_text(
        '[[backends]]\nname = "small"\nkind = "llamacpp"\nurl = "http://127.0.0.1:8081"\nroles = ["drafter"]\n\n'
        '[[backends]]\nname = "big"\nkind = "llamacpp"\nurl = "http://127.0.0.1:8082"\nroles = ["reviewer", "support"]\n',
        encoding="utf-8",
    )
    config = load_config(file)
    assert support_backend(config).name == "big" and config.backend_for_role("support").name == "big"
    moved = file.read_text().replace('roles = ["drafter"]', 'roles = ["drafter", "support"]')
    file.write_text(moved.replace('["reviewer", "support"]', '["reviewer"]'), encoding="utf-8")
    assert support_backend(load_config(file)).name == "small"
    file.write_text(moved, encoding="utf-8")  # two backends for one role is the config's error, by key
    with pytest.raises(ConfigError, match=r"backends\[1\]\.roles.*'support'"):
        load_config(file)
    reviewer_only = moved.replace('["drafter", "support"]', '["drafter"]').replace(
        '["reviewer", "support"]', '["reviewer"]'
    )
    file.write_text(reviewer_only, encoding="utf-8")
    assert support_backend(load_config(file)).name == "big"  # no backend declares it: the reviewer's
