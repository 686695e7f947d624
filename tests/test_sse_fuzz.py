"""Property tests of backends.sse.SSEParser against a plain reading of the SSE rules.

The reference below is written from the spec's wording, separately from the parser: lines
end at CRLF, CR or LF and nowhere else; ``data:`` lines of one event join with LF; a blank
line dispatches; comments and other fields are ignored. The parser must agree with it
however the stream is cut into pieces.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from backends.sse import LineTooLong, SSEParser


def reference(stream: str) -> list[str]:
    events, data = [], []
    lines = re.split(r"\r\n|\r|\n", stream)
    for line in lines[:-1]:  # the last piece has no line end yet
        if not line:
            if data:
                events.append("\n".join(data))
            data = []
        elif line.startswith("data:"):
            value = line[5:]
            data.append(value[1:] if value.startswith(" ") else value)
    return events


text = st.text(st.characters(blacklist_characters="\r\n"), max_size=20)
line = st.one_of(
    text.map(lambda t: "data: " + t),
    text.map(lambda t: "data:" + t),
    text.map(lambda t: ": " + t),  # a keep-alive comment
    text.map(lambda t: "id: " + t),
    st.sampled_from(["", "data", "event: x", "data: [DONE]", "data: \u2028\u0085 kept"]),
)
ending = st.sampled_from(["\n", "\r\n", "\r"])
streams = st.lists(st.tuples(line, ending), max_size=25).map(lambda ls: "".join(a + b for a, b in ls))


def feed_in_pieces(stream: str, cuts: list[int]) -> list[str]:
    parser, events, last = SSEParser(), [], 0
    for cut in [*sorted(c % (len(stream) + 1) for c in cuts), len(stream)]:
        events += parser.feed(stream[last:cut])
        last = cut
    return events


@settings(max_examples=500)
@given(streams, st.lists(st.integers(min_value=0), max_size=8))
def test_any_cutting_of_a_stream_gives_the_reference_events(stream: str, cuts: list[int]) -> None:
    expected = reference(stream)
    # A CR at the very end may still become CRLF, so the parser waits for one more piece to dispatch it.
    assert feed_in_pieces(stream, cuts) == expected or (
        stream.endswith("\r") and feed_in_pieces(stream + "\n", cuts) == reference(stream + "\n")
    )


@given(st.text(max_size=200), st.lists(st.integers(min_value=0), max_size=6))
def test_arbitrary_text_never_raises(stream: str, cuts: list[int]) -> None:
    events = feed_in_pieces(stream, cuts)
    assert all(isinstance(e, str) for e in events)


@settings(max_examples=300)
@given(streams, st.lists(st.integers(min_value=0), max_size=8), st.integers(min_value=1, max_value=12))
def test_a_line_past_the_cap_is_refused_however_the_stream_is_cut(
    stream: str, cuts: list[int], cap: int
) -> None:
    """Refused exactly when some line, finished or not, is longer than the cap; else as uncapped."""
    longest = max(len(line) for line in re.split(r"\r\n|\r|\n", stream))
    parser, events, last = SSEParser(max_line=cap), [], 0
    try:
        for cut in [*sorted(c % (len(stream) + 1) for c in cuts), len(stream)]:
            events += parser.feed(stream[last:cut])
            last = cut
    except LineTooLong as exc:
        assert longest > cap and exc.limit == cap
    else:
        assert longest <= cap
        assert events == feed_in_pieces(stream, cuts)
