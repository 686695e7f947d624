"""A scripted OpenAI-compatible server on loopback that gives fixed answers.

It replaces a model's judgement, not the transport: the pipeline talks to it
over real HTTP and a real SSE stream exactly as it talks to llama-server
(same ``/props``, same chunk framing, ``[DONE]``, ``timings`` on the last
chunk, as captured from llama.cpp's ``tools/server``). It exists because some branches depend on what a
model decides, which the tiny test model cannot be made to decide on demand:
the gate saying "no", a reviewer finding nothing, a reviewer quoting a span
that is not in the draft. Every request it receives is kept, so a test can
check exactly what was sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.fakes import chunk, fake_server, send_json, send_sse

BUILD = "b9999-scripted"


@dataclass
class Script:
    """The answers to give, in order (the last is repeated), and the requests received."""

    answers: list[str]
    requests: list[dict[str, Any]] = field(default_factory=list)

    def next_answer(self) -> str:
        index = min(len(self.requests) - 1, len(self.answers) - 1)
        return self.answers[index]


@contextmanager
def scripted_server(*answers: Any) -> Iterator[tuple[str, Script]]:
    """Serve ``answers`` (strings as they are, anything else as JSON); yields (url, script)."""
    script = Script([a if isinstance(a, str) else json.dumps(a) for a in answers])

    def props(handler: BaseHTTPRequestHandler) -> None:
        send_json(
            handler,
            200,
            {
                "build_info": BUILD,
                "model_alias": "scripted",
                "default_generation_settings": {"n_ctx": 4096},
                "total_slots": 1,
            },
        )

    def chat(handler: BaseHTTPRequestHandler) -> None:
        script.requests.append(json.loads(handler.body))  # type: ignore[attr-defined]
        text = script.next_answer()
        timings = {
            "prompt_n": 10,
            "prompt_ms": 1.0,
            "predicted_n": 5,
            "predicted_ms": 1.0,
            "predicted_per_second": 5000.0,
        }
        events = [chunk(text[i : i + 40]) for i in range(0, len(text), 40)]
        events.append(chunk(finish="stop", timings=timings, system_fingerprint=BUILD))
        events.append("data: [DONE]\n\n")
        send_sse(handler, events)

    with fake_server({("GET", "/props"): props, ("POST", "/v1/chat/completions"): chat}) as url:
        yield url, script
