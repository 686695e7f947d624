"""Runs inside an empty network and mount namespace (see tests/test_policy_namespace.py).

It gives the namespace a loopback interface that also carries two public addresses
(93.184.216.34 and the Teredo address 2001:0:808:808::1), serves each of them with a
server that logs every connection, serves the office name ``drafter.office.test``
from a small DNS server on 127.0.0.1:53 (bind-mounted ``resolv.conf``) that answers
loopback and the public address in turn, and then runs ``chambers doctor``, ``bench``,
``draft`` and the dashboard's polling against a config that uses all three. Nothing
outside the namespace can be reached from it, so a leak can only land in the logs.
Writes ``result.json`` into the folder given as its argument.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import struct
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

PUBLIC_V4 = "93.184.216.34"
PUBLIC_V6 = "2001:0:808:808::1"  # Teredo: its address wraps a public IPv4 server
NAME = "drafter.office.test"
PORT = 18080
public_log: list[str] = []
local_log: list[str] = []
dns_log: list[str] = []


def sh(*args: str) -> None:
    subprocess.run(args, check=True)


class Logging(BaseHTTPRequestHandler):
    """Answers like a llama-server that is loading its model, after writing the request down."""

    def _any(self) -> None:
        where = self.server.server_address[0]  # type: ignore[index]
        (public_log if where != "127.0.0.1" else local_log).append(f"{where} {self.command} {self.path}")
        if self.path == "/health":
            body, status = {"status": "ok"}, 200
        elif self.path == "/props":
            body, status = {"default_generation_settings": {"n_ctx": 2048}, "build_info": "fake"}, 200
        else:
            body, status = (
                {"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}},
                503,
            )
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = _any

    def log_message(self, *args: Any) -> None:
        pass


class V6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6


def serve(ip: str) -> None:
    server = (V6Server if ":" in ip else ThreadingHTTPServer)((ip, PORT), Logging)
    threading.Thread(target=server.serve_forever, daemon=True).start()


def dns_server() -> None:
    """A records for NAME: loopback and the public address in turn; no AAAA; NXDOMAIN for the rest."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 53))
    asked = 0
    while True:
        query, peer = sock.recvfrom(512)
        ident = query[:2]
        i, labels = 12, []
        while query[i]:
            labels.append(query[i + 1 : i + 1 + query[i]].decode())
            i += 1 + query[i]
        qtype = struct.unpack(">H", query[i + 1 : i + 3])[0]
        question = query[12 : i + 5]
        name = ".".join(labels).lower()
        if name != NAME:
            sock.sendto(ident + b"\x81\x83" + b"\x00\x01\x00\x00\x00\x00\x00\x00" + question, peer)
            continue
        if qtype != 1:  # AAAA and others: the name exists, with no such record
            sock.sendto(ident + b"\x81\x80" + b"\x00\x01\x00\x00\x00\x00\x00\x00" + question, peer)
            continue
        ip = "127.0.0.1" if asked % 2 == 0 else PUBLIC_V4
        asked += 1
        dns_log.append(ip)
        answer = b"\xc0\x0c" + struct.pack(">HHIH", 1, 1, 0, 4) + socket.inet_aton(ip)
        sock.sendto(ident + b"\x81\x80" + b"\x00\x01\x00\x01\x00\x00\x00\x00" + question + answer, peer)


CONFIG = f"""
[[backends]]
name = "rebinder"
kind = "llamacpp"
url = "http://{NAME}:{PORT}"
roles = ["router", "drafter", "heavy", "extractor"]

[[backends]]
name = "teredo"
kind = "llamacpp"
url = "http://[{PUBLIC_V6}]:{PORT}"
roles = ["gate"]

[[backends]]
name = "cloud"
kind = "llamacpp"
url = "http://{PUBLIC_V4}:{PORT}"
roles = ["reviewer"]

[[telemetry]]
kind = "dcgm"
host = "chassis2"
url = "http://{PUBLIC_V4}:{PORT}/metrics"
"""


def chambers(home: Path, *args: str) -> dict[str, Any]:
    env = {**os.environ, "CHAMBERS_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli.main", *args], env=env, capture_output=True, text=True, timeout=300
    )
    return {"args": list(args), "rc": done.returncode, "out": done.stdout, "err": done.stderr}


async def dashboard_polls(home: Path) -> list[dict[str, Any]]:
    """What the dashboard does each tick: every poller on one shared client, and the telemetry."""
    from backends.fleet.servers import ServerPoller, poll_all, polling_client
    from backends.fleet.sources import sources_from_config
    from workspace.config import load_config

    config = load_config(home / "config.toml")
    samples = []
    async with polling_client() as http:
        pollers = [ServerPoller(b, config.policy, http) for b in config.backends]
        for _ in range(4):
            samples += [
                {"name": s.name, "health": s.health, "problem": s.problem} for s in await poll_all(pollers)
            ]
    for source in sources_from_config(config):
        samples.append({"name": source.host, "health": "telemetry", "problem": source.read().status})
    return samples


def main() -> None:
    out = Path(sys.argv[1])
    sh("ip", "link", "set", "lo", "up")
    sh("ip", "addr", "add", f"{PUBLIC_V4}/32", "dev", "lo")
    sh("ip", "-6", "addr", "add", f"{PUBLIC_V6}/128", "dev", "lo", "nodad")
    resolv = out / "resolv.conf"
    resolv.write_text("nameserver 127.0.0.1\noptions attempts:1 timeout:2\n")
    sh("mount", "--bind", str(resolv), "/etc/resolv.conf")
    for ip in ("127.0.0.1", PUBLIC_V4, PUBLIC_V6):
        serve(ip)
    threading.Thread(target=dns_server, daemon=True).start()

    home = out / "home"
    home.mkdir()
    # A profile that would listen on the public address; its "server" only waits, so a serve that
    # started it would be heard polling /health there.
    script = out / "llama-server"
    script.write_text("#!/bin/sh\nsleep 2\n")
    script.chmod(0o755)
    (out / "m.gguf").write_bytes(b"GGUF")
    profile = (
        f'[[profiles]]\nname = "public-listen"\nmodel = "{out / "m.gguf"}"\nbinary = "{script}"\n'
        f'listen_host = "{PUBLIC_V4}"\nport = {PORT}\n'
    )
    (home / "config.toml").write_text(CONFIG + profile)
    sources = out / "sources"
    sources.mkdir()
    (out / "instructions.txt").write_text("Draft a short demand letter.")
    runs = [chambers(home, "doctor"), chambers(home, "doctor")]
    runs.append(
        chambers(home, "bench", "--runs", "1", "--warmup", "0", "--lengths", "64", "--max-tokens", "4")
    )
    runs.append(chambers(home, "serve", "public-listen"))
    runs.append(chambers(home, "matter", "new", "m", "--sources", str(sources)))
    for _ in range(2):
        runs.append(
            chambers(
                home,
                "draft",
                "--matter",
                "m",
                "--task",
                "freeform",
                "--instructions",
                str(out / "instructions.txt"),
            )
        )
    runs.append(chambers(home, "runs", "resume", "1", "--reroute", "route=teredo", "--reason", "test"))
    runs.append(chambers(home, "runs", "resume", "1", "--reroute", "route=cloud", "--reason", "test"))
    polls = asyncio.run(dashboard_polls(home))
    result = {"public": public_log, "local": local_log, "dns": dns_log, "runs": runs, "polls": polls}
    (out / "result.json").write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
