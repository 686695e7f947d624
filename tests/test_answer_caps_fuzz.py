"""Property tests of backends.answer_caps: however an answer is cut into pieces, the meter hands on
exactly the inflated body, and the depth it finds is the depth a plain reading of JSON gives."""

from __future__ import annotations

import itertools
import json
import zlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backends.answer_caps import AnswerRefused, Meter, _DepthGauge

# Strings that hold every character the depth reading must not be fooled by.
tricky = st.text(st.sampled_from('ab[]{}"\\\n'), max_size=6)
documents = st.recursive(
    st.none() | st.booleans() | st.integers() | tricky,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(tricky, inner, max_size=4),
    max_leaves=30,
)
cuts = st.lists(st.integers(min_value=0), max_size=8)


def depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    return 0


def pieces(data: bytes, at: list[int]) -> list[bytes]:
    points = [0, *sorted(c % (len(data) + 1) for c in at), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(points)]


@settings(max_examples=400)
@given(documents, cuts)
def test_the_gauge_finds_the_depth_of_any_json_however_it_is_cut(doc: Any, at: list[int]) -> None:
    text = json.dumps(doc, ensure_ascii=False).encode()
    deep = depth(doc)
    fits, over = _DepthGauge(deep), _DepthGauge(deep - 1)
    assert all(fits.feed(p) for p in pieces(text, at))
    assert not all(over.feed(p) for p in pieces(text, at)) or deep == 0


def gzip(data: bytes) -> bytes:
    z = zlib.compressobj(6, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    return z.compress(data) + z.flush()


def raw_deflate(data: bytes) -> bytes:
    z = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    return z.compress(data) + z.flush()


CODINGS = {"gzip": gzip, "deflate": zlib.compress, "": lambda d: d}


@settings(max_examples=300)
@given(st.binary(max_size=3000), st.sampled_from(sorted(CODINGS)), cuts)
def test_the_meter_hands_on_exactly_the_inflated_body(body: bytes, coding: str, at: list[int]) -> None:
    meter = Meter("http://127.0.0.1:1/x", coding, "application/octet-stream", cap=len(body) + 64)
    out = [q for p in pieces(CODINGS[coding](body), at) for q in meter.take(p)] + list(meter.end())
    assert b"".join(out) == body


@given(st.binary(min_size=1, max_size=3000), cuts)
def test_raw_deflate_is_read_too(body: bytes, at: list[int]) -> None:
    meter = Meter("http://127.0.0.1:1/x", "deflate", "", cap=None)
    out = [q for p in pieces(raw_deflate(body), at) for q in meter.take(p)] + list(meter.end())
    assert b"".join(out) == body


@given(st.integers(min_value=1, max_value=2000), st.sampled_from(sorted(CODINGS)), cuts)
def test_a_body_one_byte_over_the_cap_is_refused(size: int, coding: str, at: list[int]) -> None:
    body = b"x" * (size + 1)
    meter = Meter("http://127.0.0.1:1/x", coding, "", cap=size)
    with pytest.raises(AnswerRefused, match=r"http://127\.0\.0\.1:1/x sent an answer over"):
        for p in pieces(CODINGS[coding](body), at):
            list(meter.take(p))
        list(meter.end())


@pytest.mark.parametrize("coding", ["br", "zstd", "gzip, gzip", "compress"])
def test_an_encoding_chambers_cannot_read_is_named(coding: str) -> None:
    with pytest.raises(AnswerRefused, match="does not read"):
        Meter("http://127.0.0.1:1/x", coding, "", cap=10)


GZIP_HEAD = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"  # then a block of the invalid type 3


@pytest.mark.parametrize("coding", ["gzip", "deflate"])
def test_a_body_that_does_not_inflate_is_named(coding: str) -> None:
    meter = Meter("http://127.0.0.1:1/x", coding, "", cap=1000)
    with pytest.raises(AnswerRefused, match=f"marked {coding} that does not inflate"):
        list(meter.take(GZIP_HEAD + b"\xff\xff\xff" if coding == "gzip" else b"\x78\x9c\xff\xff\xff"))


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16-le", "utf-16-be", "utf-32", "utf-16"])
def test_deep_json_in_any_encoding_json_loads_reads_is_refused(encoding: str) -> None:
    body = (" " + "[" * 200 + "]" * 200).encode(encoding)
    meter = Meter("http://127.0.0.1:1/props", "", "text/plain", cap=len(body) + 1)
    with pytest.raises(AnswerRefused, match="nested more than 128 levels deep"):
        list(meter.take(body))
