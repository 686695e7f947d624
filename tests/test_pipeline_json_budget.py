"""A JSON stage's token budget always has room for the longest answer its schema allows.

An answer cut off by max_tokens is not JSON at all, and the pipeline then refuses the stage; so the
budget is checked against the longest instance of the very schema sent, one token per character.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from drafting.tasks import GATE, REVIEW, ROUTE
from tests.support.pipeline_setup import OPTIONS, pipeline, role_config


def longest(schema: dict[str, Any]) -> Any:
    """The longest value the schema's bounds allow (the subset of JSON Schema the stages use)."""
    if "enum" in schema:
        return max(schema["enum"], key=len)
    kind = schema["type"]
    if kind == "string":
        return "x" * schema["maxLength"]
    if kind == "array":
        return [longest(schema["items"])] * schema["maxItems"]
    assert kind == "object", f"a stage schema uses an unbounded type: {kind}"
    return {key: longest(sub) for key, sub in schema["properties"].items()}


@pytest.mark.parametrize("stage", [ROUTE, GATE, REVIEW])
@pytest.mark.parametrize("chars", [OPTIONS.json_text_chars, 240])
def test_every_json_stage_budget_fits_its_longest_answer(tmp_path, stage, chars):
    config = role_config({}, "http://127.0.0.1:1")
    pipe = pipeline(config, tmp_path / "unused.db")
    pipe.options.json_text_chars = chars
    backend = config.backends[0]
    answer = json.dumps(longest(pipe.json_schema(stage)))
    budget = pipe.json_sampling(backend, stage).max_tokens
    assert budget is not None and budget >= len(answer), (stage, chars, budget, len(answer))


def test_every_string_of_the_reviewers_answer_is_bounded_by_the_options(tmp_path):
    pipe = pipeline(role_config({}, "http://127.0.0.1:1"), tmp_path / "unused.db")
    item = pipe.json_schema(REVIEW)["properties"]["findings"]["items"]["properties"]
    lengths = {
        key: sub.get("maxLength")
        for key, sub in item.items()
        if sub["type"] == "string" and "enum" not in sub
    }
    assert lengths == dict.fromkeys(("quote", "problem", "fix"), OPTIONS.json_text_chars)
