"""Run by tests/test_workstation_export.py under a Python that has LibreOffice's ``uno`` module.

Opens a redline DOCX in a headless LibreOffice, accepts every tracked change (and, from a fresh
load, rejects every one), and prints JSON: the tracked changes LibreOffice found (type, author,
text) and the document's text after each. Not part of CI: LibreOffice is too heavy to install there.

Usage: python3 libreoffice_accept.py REDLINE.docx PROFILE_DIR
"""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import uno
from com.sun.star.beans import PropertyValue


def hidden() -> tuple[PropertyValue, ...]:
    value = PropertyValue()
    value.Name, value.Value = "Hidden", True
    return (value,)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main(file: Path, profile: Path) -> None:
    port = free_port()
    office = subprocess.Popen(
        [
            "soffice",
            "--headless",
            "--invisible",
            "--norestore",
            f"-env:UserInstallation={profile.as_uri()}",
            f"--accept=socket,host=127.0.0.1,port={port};urp;",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    for _ in range(240):
        try:
            ctx = resolver.resolve(f"uno:socket,host=127.0.0.1,port={port};urp;StarOffice.ComponentContext")
            break
        except Exception:
            time.sleep(0.25)
    else:
        office.kill()
        raise SystemExit("LibreOffice did not start")
    desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
    dispatch = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.DispatchHelper", ctx)
    result: dict[str, object] = {}
    try:
        doc = desktop.loadComponentFromURL(file.as_uri(), "_blank", 0, hidden())
        changes = []
        for change in doc.getRedlines():
            start, end = change.getPropertyValue("RedlineStart"), change.getPropertyValue("RedlineEnd")
            cursor = start.getText().createTextCursorByRange(start)
            cursor.gotoRange(end, True)
            changes.append(
                [
                    change.getPropertyValue("RedlineType"),
                    change.getPropertyValue("RedlineAuthor"),
                    cursor.getString(),
                ]
            )
        result["changes"] = changes
        for command, key in (
            (".uno:AcceptAllTrackedChanges", "accepted"),
            (".uno:RejectAllTrackedChanges", "rejected"),
        ):
            if key == "rejected":
                doc = desktop.loadComponentFromURL(file.as_uri(), "_blank", 0, hidden())
            dispatch.executeDispatch(doc.getCurrentController().getFrame(), command, "", 0, ())
            result[key] = doc.getText().getString()
            doc.close(True)
    finally:
        with contextlib.suppress(Exception):  # it is going away either way
            desktop.terminate()
        office.wait(timeout=60)
    print(json.dumps(result))


if __name__ == "__main__":
    main(Path(sys.argv[1]).absolute(), Path(sys.argv[2]).absolute())
