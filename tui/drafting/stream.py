"""The streamed draft: text gathered as it arrives and drawn once a frame, however fast the tokens come.

``DraftStream`` owns the buffer, the frame timer and the garbage-collection policy of a stream.
``feed`` only appends to a list; about 30 times a second the frame timer joins what arrived and
appends it to the view in one piece, and posts ``DraftStream.Appended`` with that piece, so a
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

import gc
from dataclasses import dataclass

from rich.markdown import Markdown as RichMarkdown
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Static

CHUNK_CHARS = 1500  # a streamed Markdown piece grows to about this, then a new one starts
STREAM_PIECES_SHOWN = 2
FRAME_S = 1 / 30  # how often streamed text is appended to the view
# The heap stays frozen this long after a stream ends, so the finished draft is drawn first and the
# full collection that unfreezing brings on runs while he reads it, not in the middle of the finish.
RELEASE_AFTER_S = 2.0


class HeapFreeze:
    """Keep the objects alive before a stream out of the garbage collector's full passes while it runs.

    The app holds some 200,000 objects, and drawing 30 frames a second promotes enough short-lived
    ones that Python runs a full collection about once a second, each over all of them: 100-200 ms
    with the loop stopped, the stream's worst stalls. Frozen, they are skipped, so a full pass only
    walks what the stream made (tens of ms at most). ``gc.freeze`` acts on the whole interpreter, so
    the freeze is counted: it is lifted when the last stream holding it ends, never by another's end.
    """

    holders = 0

    def __init__(self) -> None:
        self.held = False

    def hold(self) -> None:
        if not self.held:
            self.held = True
            HeapFreeze.holders += 1
            if HeapFreeze.holders == 1:
                gc.freeze()

    def release(self, *, collect: bool = False) -> None:
        """Let go; the last holder unfreezes the heap and, with ``collect``, runs the full pass now."""
        if self.held:
            self.held = False
            HeapFreeze.holders -= 1
            if HeapFreeze.holders == 0:
                gc.unfreeze()
                if collect:
                    gc.collect()


class DraftStream(Vertical):
    """The draft as it streams: a line counting the words scrolled away, the pieces, the tail."""

    @dataclass
    class Appended(Message):
        """One frame's text, appended to the view."""

        text: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._pending: list[str] = []
        self._appending = False
        self._piece: Static | None = None  # the streamed piece that finished paragraphs join
        self._piece_source = ""
        self._tail = ""  # the paragraph still being written: the only text parsed on every frame
        self._words_above = 0  # in the pieces dropped while streaming (a line at the top says so)
        self._heap = HeapFreeze()
        self._release: Timer | None = None  # the heap's release, due a while after the stream ended

    def compose(self) -> ComposeResult:
        yield Static("", id="ws-stream-above", markup=False)
        yield Static("", id="ws-draft")

    def on_mount(self) -> None:
        self.query_one("#ws-stream-above").display = False
        self.set_interval(FRAME_S, self.flush)

    def on_unmount(self) -> None:
        self._heap.release()
        self._release = None

    @property
    def drawing(self) -> bool:
        """Text has arrived that is not drawn yet (a frame is due), or a frame is being drawn."""
        return bool(self._pending) or self._appending

    def feed(self, text: str) -> None:
        """Take streamed text; it is drawn at the next frame. The first text of a stream freezes the heap."""
        if self._release is not None:  # a stream started before the last one's release was due
            self._release.stop()
            self._release = None
        self._heap.hold()
        self._pending.append(text)

    def end(self) -> None:
        """The stream is over: in ``RELEASE_AFTER_S`` the garbage collector walks the whole heap again.

        Unfreezing at once would let the next allocations (the finished draft being drawn) set off a
        full collection of the whole app, 100-200 ms, inside the finish. Later, with nothing else drawing,
        that pass is run on purpose, once.
        """
        if self._heap.held and self._release is None:
            self._release = self.set_timer(RELEASE_AFTER_S, self._release_heap)

    def _release_heap(self) -> None:
        self._release = None
        self._heap.release(collect=True)

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
