"""Nothing leaves the office, tried from inside an empty network namespace (needs root, as CI has).

tests/support/policy_namespace_child.py binds two public addresses (one IPv4, one Teredo IPv6) on
the namespace's loopback and serves them with logging servers, and answers the office
name from a fake DNS that gives loopback and the public address in turn. Then ``doctor``
(twice), ``bench``, ``serve`` (a profile listening on the public address), ``draft`` (twice,
and resumed on each public backend) and four ticks of the dashboard's polling run against them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = {"rebinder": "93.184.216.34", "teredo": "2001:0:808:808::1", "cloud": "93.184.216.34"}


@pytest.mark.skipif(os.geteuid() != 0, reason="network namespaces need root (CI runs as root)")
def test_no_public_server_hears_from_any_command(tmp_path: Path) -> None:
    assert shutil.which("unshare") and shutil.which("ip"), "needs util-linux unshare and iproute2 ip"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [
            "unshare",
            "--net",
            "--mount",
            sys.executable,
            str(ROOT / "tests/support/policy_namespace_child.py"),
            str(tmp_path),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads((tmp_path / "result.json").read_text())

    assert result["public"] == []  # not one request reached a public address
    assert result["local"], "the office name was never served from loopback, so the test proved nothing"
    assert "93.184.216.34" in result["dns"][1:]  # the fake DNS did answer the public address

    said = "\n".join(r["out"] + r["err"] for r in result["runs"])
    assert "Traceback" not in said
    serve = next(r for r in result["runs"] if r["args"][0] == "serve")
    assert serve["rc"] == 3 and "will not start profile 'public-listen'" in serve["err"]
    for name, address in PUBLIC.items():  # every refusal names the backend and the address
        assert f"cannot use backend '{name}': http://" in said and f"({address})" in said
    refused = [p for p in result["polls"] if p["health"] == "refused"]
    assert {p["name"] for p in refused} == set(PUBLIC)
    for poll in refused:
        assert f"'{poll['name']}'" in poll["problem"] and PUBLIC[poll["name"]] in poll["problem"]
    telemetry = [p for p in result["polls"] if p["health"] == "telemetry"]
    assert telemetry and "telemetry source 'chassis2'" in telemetry[0]["problem"]
    assert "93.184.216.34" in telemetry[0]["problem"]
