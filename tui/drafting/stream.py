"""The streamed draft: text gathered as it arrives and drawn once a frame, however fast the tokens come.

``DraftStream`` owns the buffer and the frame timer of a stream, and says when a stream starts and
ends (``Started``, ``Ended``: the app's garbage-collection policy listens). ``feed`` only appends
to a list; about 30 times a second the frame timer joins what arrived and appends it to the view
in one piece, and posts ``DraftStream.Appended`` with that piece, so a
fast server never makes the screen re-render per token.

Drawing: Textual's ``Markdown.append`` builds and mounts block widgets on every frame (and drops
some: a few hundred objects of cyclic garbage a frame, whose full collections stalled the loop for
150 ms and more), so the stream is drawn with Rich's Markdown in plain Statics instead: the
paragraph being written (the tail) is parsed again each frame (a few hundred characters at most),
a finished one once more as part of its piece, and a piece is never parsed again once the next
one starts. While streaming only the last pieces are kept (the whole draft is shown, marked, at
the end), so a frame costs the same at token 12,000 as at token 100.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.markdown import Markdown as RichMarkdown
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

CHUNK_CHARS = 1500  # a streamed Markdown piece grows to about this, then a new one starts
STREAM_PIECES_SHOWN = 2
FRAME_S = 1 / 30  # how often streamed text is appended to the view


class DraftStream(Vertical):
    """The draft as it streams: a line counting the words scrolled away, the pieces, the tail."""

    @dataclass
    class Appended(Message):
        """One frame's text, appended to the view."""

        text: str

    @dataclass
    class Started(Message):
        """The first text of a stream arrived."""

        stream: DraftStream = field(repr=False)

        @property
        def control(self) -> DraftStream:
            return self.stream

    @dataclass
    class Ended(Message):
        """The stream is over (its last frame may still be drawing)."""

        stream: DraftStream = field(repr=False)

        @property
        def control(self) -> DraftStream:
            return self.stream

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._pending: list[str] = []
        self._appending = False
        self._piece: Static | None = None  # the streamed piece that finished paragraphs join
        self._piece_source = ""
        self._tail = ""  # the paragraph still being written: the only text parsed on every frame
        self._words_above = 0  # in the pieces dropped while streaming (a line at the top says so)
        self._streaming = False  # between the first text of a stream and its end

    def compose(self) -> ComposeResult:
        yield Static("", id="ws-stream-above", markup=False)
        yield Static("", id="ws-draft")

    def on_mount(self) -> None:
        self.query_one("#ws-stream-above").display = False
        self.set_interval(FRAME_S, self.flush)

    def on_unmount(self) -> None:
        if self._streaming:  # to the app: this widget takes no more messages
            self._streaming = False
            self.app.post_message(self.Ended(self))

    @property
    def drawing(self) -> bool:
        """Text has arrived that is not drawn yet (a frame is due), or a frame is being drawn."""
        return bool(self._pending) or self._appending

    def feed(self, text: str) -> None:
        """Take streamed text; it is drawn at the next frame. The first text of a stream says it started."""
        if not self._streaming:
            self._streaming = True
            self.post_message(self.Started(self))
        self._pending.append(text)

    def end(self) -> None:
        """The stream is over."""
        if self._streaming:
            self._streaming = False
            self.post_message(self.Ended(self))

    async def restart(self, text: str) -> None:
        """Empty the view and show ``text`` (a resumed run's draft so far) as the start of a new stream."""
        self._pending = []
        await self.query(".ws-draft-chunk").remove()
        self._piece, self._piece_source, self._tail, self._words_above = None, "", "", 0
        self.query_one("#ws-stream-above").display = False
        self.display = True
        await self._append(text)

    async def show_stored(self, text: str) -> None:
        """Show a stored draft that was never verified (a run cancelled, failed or killed mid-stream) from
        its start: a blank pane would read as a lost draft."""
        await self.restart(text)
        self.scroll_visible(top=True, animate=False)

    async def flush(self) -> None:
        """Append what arrived since the last frame, in one piece."""
        if not self._pending or self._appending:
            return
        text, self._pending = "".join(self._pending), []
        self._appending = True
        try:
            await self._append(text)
            self.post_message(self.Appended(text))
        finally:
            self._appending = False

    async def _append(self, text: str) -> None:
        """Re-render only what this frame changed: the unfinished paragraph, and the piece it joins when done."""
        buffer = self._tail + text
        cut = buffer.rfind("\n\n")
        if cut >= 0:
            await self._finish(buffer[: cut + 2])
            buffer = buffer[cut + 2 :]
        self._tail = buffer
        self.query_one("#ws-draft", Static).update(RichMarkdown(buffer))

    async def _finish(self, paragraphs: str) -> None:
        """Add finished paragraphs to the current piece; past CHUNK_CHARS, start a new one."""
        if self._piece is None or len(self._piece_source) > CHUNK_CHARS:
            self._piece, self._piece_source = Static(classes="ws-draft-chunk"), ""
            await self.mount(self._piece, before=self.query_one("#ws-draft"))
            pieces = self.query_children(".ws-draft-chunk").results(Static)
            dropped = list(pieces)[:-STREAM_PIECES_SHOWN]
            if dropped:
                self._words_above += sum(
                    len(p.content.markup.split()) for p in dropped if isinstance(p.content, RichMarkdown)
                )
                await self.remove_children(dropped)
                above = self.query_one("#ws-stream-above", Static)
                above.update(f"… {self._words_above:,} words above, shown in full when the draft is done")
                above.display = True
        self._piece_source += paragraphs
        self._piece.update(RichMarkdown(self._piece_source))
