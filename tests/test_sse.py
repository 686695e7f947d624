"""The SSE parser on the framings real servers produce, split at awkward places."""

from __future__ import annotations

import pytest

from backends.sse import SSEParser


def parse_in_pieces(stream: str, size: int) -> list[str]:
    parser = SSEParser()
    out: list[str] = []
    for i in range(0, len(stream), size):
        out += parser.feed(stream[i : i + size])
    return out


LLAMA_STREAM = 'data: {"a":1}\n\n: ping\n\ndata: {"b":2}\n\n:\n\ndata: [DONE]\n\n'


@pytest.mark.parametrize("size", [1, 2, 3, 7, 1000])
def test_llama_server_framing_with_pings(size: int) -> None:
    assert parse_in_pieces(LLAMA_STREAM, size) == ['{"a":1}', '{"b":2}', "[DONE]"]


@pytest.mark.parametrize("size", [1, 2, 5, 1000])
def test_crlf_and_cr_line_ends_even_when_split(size: int) -> None:
    stream = 'data: {"a":1}\r\n\r\ndata: {"b":2}\r\rdata:x\n\n'
    assert parse_in_pieces(stream, size) == ['{"a":1}', '{"b":2}', "x"]


def test_multi_line_data_is_joined_with_newlines() -> None:
    assert parse_in_pieces("data: one\ndata: two\n\n", 4) == ["one\ntwo"]


def test_unicode_line_separators_stay_inside_the_data() -> None:
    text = 'data: {"c":"a\u2028b\u0085c"}\n\n'
    assert parse_in_pieces(text, 3) == ['{"c":"a\u2028b\u0085c"}']


def test_other_fields_and_unfinished_events_are_not_dispatched() -> None:
    parser = SSEParser()
    assert parser.feed("event: message\nid: 7\ndata: half") == []
    assert parser.feed("\n") == []
    assert parser.feed("\n") == ["half"]
