"""The errors of reading the config, each naming the file and saying what to do next."""

from __future__ import annotations

from collections.abc import Sequence
from difflib import get_close_matches
from pathlib import Path

from workspace.errors import ChambersError


class ConfigError(ChambersError):
    title = "The config file has a problem"

    def __init__(self, file: Path | str, key: str, problem: str) -> None:
        where = f"{file}: `{key}`" if key else f"{file}"
        super().__init__(f"{where}: {problem}. Fix it in the file and start chambers again.")
        self.file = str(file)
        self.key = key


class ConfigMissing(ChambersError):
    title = "No config file yet"

    def __init__(self, file: Path) -> None:
        super().__init__(
            f"There is no config at {file}. Run `chambers init` to write a starter "
            "config, then set the addresses of your model servers in it."
        )
        self.file = str(file)


class NoBackendForRole(ChambersError):
    title = "No model server for this step"

    def __init__(self, role: str, file: str) -> None:
        super().__init__(
            f"No backend in {file} has the role '{role}'. Add '{role}' to the roles of "
            "one backend. chambers never sends a step to a server it was not given."
        )
        self.role = role


class UnknownRole(ChambersError):
    title = "No such role"

    def __init__(self, role: str, roles: Sequence[str]) -> None:
        close = get_close_matches(role, roles, n=1)
        hint = f" Did you mean '{close[0]}'?" if close else ""
        super().__init__(f"There is no role '{role}'.{hint} The roles are: {', '.join(roles)}.")
        self.role = role
