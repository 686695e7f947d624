"""Small loopback HTTP servers for failures a real llama-server cannot be made to show.

These are test doubles, used only where the real thing cannot produce the
case on demand: a model still loading (the real one loads the 98 MB test
model in well under a second), a malformed event stream, a server that accepts
and then never answers, an error event after HTTP 200, and Ollama, which does
not run on these machines. The response bodies are copied from llama.cpp's
``tools/server`` sources (its error JSON and chat completion chunks) and Ollama's
``docs/api.md`` (v0.33).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Route = Callable[[BaseHTTPRequestHandler], None]


def send_json(handler: BaseHTTPRequestHandler, status: int, body: Any) -> None:
    data = json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json; charset=utf-8")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def send_sse(handler: BaseHTTPRequestHandler, events: list[str], delay: float = 0.0) -> None:
    """Write raw SSE ``events`` (each a full frame such as 'data: {...}\\n\\n'), then close."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Connection", "close")
    handler.end_headers()
    for frame in events:
        handler.wfile.write(frame.encode())
        handler.wfile.flush()
        if delay:
            time.sleep(delay)
    handler.close_connection = True


def chunk(content: str | None = None, finish: str | None = None, **extra: Any) -> str:
    delta = {} if content is None else {"content": content}
    body = {
        "choices": [{"finish_reason": finish, "index": 0, "delta": delta}],
        "created": 1,
        "id": "chatcmpl-fake",
        "model": "fake",
        "object": "chat.completion.chunk",
        **extra,
    }
    return f"data: {json.dumps(body)}\n\n"


@contextmanager
def fake_server(routes: dict[tuple[str, str], Route]) -> Iterator[str]:
    """Serve ``routes`` ({(method, path): handler}) on a free loopback port; yields the base URL."""

    class Handler(BaseHTTPRequestHandler):
        def _dispatch(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.body = self.rfile.read(length) if length else b""
            route = routes.get((method, self.path.split("?", 1)[0]))
            if route is None:
                send_json(
                    self,
                    404,
                    {
                        "error": {
                            "code": 404,
                            "message": "File Not Found",
                            "type": "not_found_error",
                        }
                    },
                )
                return
            route(self)

        def do_GET(self) -> None:
            self._dispatch("GET")

        def do_POST(self) -> None:
            self._dispatch("POST")

        def log_message(self, *args: Any) -> None:
            pass  # keep test output clean

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def silent_server() -> Iterator[str]:
    """Accepts connections and reads the request, then never answers (a hung server)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    stop = threading.Event()
    held: list[socket.socket] = []

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
                held.append(conn)
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(timeout=2)
        for conn in held:
            conn.close()
        listener.close()


def closed_port() -> int:
    """A loopback port with nothing listening (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
