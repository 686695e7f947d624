"""A server on loopback that answers the way a broken or hostile one does.

It is a test double where no real server can be made to misbehave on demand: llama-server never
sends JSON nested 200,000 deep, a gzip bomb, a 50 MB event line or a stream without end, and it
closes idle connections only after its own timeout. Each route writes raw bytes to the socket, so
the client's transport, not a helper library, meets exactly what is sent. Connections are kept
alive (HTTP/1.1) as llama-server keeps them. Every connection and request is counted, and a
route that writes a large body records how much it managed to write before the client stopped
reading.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Seen:
    """What the server saw: a request count per connection, and the bytes a large body got out."""

    connections: list[int] = field(default_factory=list)  # requests on each connection, in order
    written: int = 0  # bytes of the last large body written before the client went away
    requests: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)  # method, path, headers
    request_connections: list[int] = field(default_factory=list)  # the connection of each request


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as llama-server (cpp-httplib) does
    routes: dict[tuple[str, str], Callable[[Handler], None]] = {}
    seen: Seen

    def setup(self) -> None:
        super().setup()
        self.index = len(self.seen.connections)
        self.seen.connections.append(0)

    def _dispatch(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.body = self.rfile.read(length) if length else b""
        self.seen.connections[self.index] += 1
        path = self.path.split("?", 1)[0]
        self.seen.requests.append((method, path, dict(self.headers.items())))
        self.seen.request_connections.append(self.index)
        route = self.routes.get((method, path))
        if route is None:
            self.send_body(404, b'{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}')
            return
        route(self)

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def log_message(self, *args: Any) -> None:
        pass

    # --- what routes write -------------------------------------------------

    @property
    def nth_on_connection(self) -> int:
        return self.seen.connections[self.index]

    def send_body(self, status: int, body: bytes, ctype: str = "application/json", **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(body)

    def send_pieces(self, status: int, ctype: str, pieces: Iterator[bytes], **headers: str) -> None:
        """Write ``pieces`` as a chunked body until they end or the client stops reading."""
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.seen.written = 0
        try:
            for piece in pieces:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.seen.written += len(piece)
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def drop(self) -> None:
        """Close the connection without a word, as a server whose idle timeout just fired."""
        self.close_connection = True


@contextmanager
def hostile_server(routes: dict[tuple[str, str], Callable[[Handler], None]]) -> Iterator[tuple[str, Seen]]:
    """Serve ``routes`` on a free loopback port; yields (base URL, what it saw)."""
    seen = Seen()
    handler = type("Routes", (Handler,), {"routes": routes, "seen": seen})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def props_json() -> bytes:
    """A llama-server ``/props`` answer (the fields chambers reads)."""
    return json.dumps(
        {
            "build_info": "b9999-hostile",
            "model_alias": "hostile",
            "total_slots": 1,
            "default_generation_settings": {"n_ctx": 4096},
        }
    ).encode()


def sse_chunk(content: str | None = None, finish: str | None = None) -> bytes:
    delta = {} if content is None else {"content": content}
    body = {
        "choices": [{"finish_reason": finish, "index": 0, "delta": delta}],
        "model": "hostile",
        "object": "chat.completion.chunk",
    }
    return b"data: " + json.dumps(body).encode() + b"\n\n"
