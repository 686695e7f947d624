"""``chambers serve`` (a launch profile in the foreground, or as a systemd unit)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from workspace.paths import Paths

if TYPE_CHECKING:
    from backends.fleet.profiles import LaunchProfile
    from workspace.config import Config


def register(sub: Any) -> None:
    serve = sub.add_parser(
        "serve", help="start llama-server from a [[profiles]] entry (or write its systemd unit)"
    )
    serve.add_argument("profile", help="the profile's name")
    serve.add_argument("--unit", action="store_true", help="write a systemd unit instead of starting it")
    serve.add_argument("--unit-dir", help="folder for the unit (default: the data folder's units/)")
    serve.add_argument(
        "--allow-split", metavar="REASON", help="start a profile that spans two boards or a mixed set anyway"
    )
    serve.add_argument("--print-command", action="store_true", help="print the command line and stop")
    serve.set_defaults(handler=cmd_serve)


def _host_telemetry(config: Any, host: str) -> Any:
    from backends.fleet.sources import sources_from_config

    for source in sources_from_config(config):
        try:
            if source.host == host:
                return source.read()
        finally:
            source.close()
    return None


def cmd_serve(args: argparse.Namespace, paths: Paths) -> int:
    import shlex
    from pathlib import Path

    from backends.fleet.profiles import command, environment, profile_named
    from backends.fleet.serve import ForegroundServer, binary_for, check_model_file, check_split
    from workspace.config import load_config

    config = load_config(paths.config_file)
    profile = _with_adapters(profile_named(config, args.profile), config, paths)
    profile = _guarded(profile, config, paths)
    allowed = check_split(profile, _host_telemetry(config, profile.host), args.allow_split)
    if allowed:
        print(allowed, file=sys.stderr)
    binary = binary_for(profile, build=not args.print_command, progress=lambda m: print(m, file=sys.stderr))
    binary = binary or Path("llama-server")
    if args.print_command:
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in environment(profile).items())
        print(f"{env} {shlex.join(command(profile, binary))}")
        return 0
    if args.unit:
        return _write_unit(profile, binary, paths, Path(args.unit_dir) if args.unit_dir else None)
    check_model_file(profile)
    log = paths.data_dir / "logs" / f"serve-{profile.name}.log"
    server = ForegroundServer(profile, binary, log, trained_on=_bases_by_file(paths), policy=config.policy)
    print(
        f"chambers serve: {profile.name} on {', '.join(profile.boards) or 'CPU'} "
        f"(CUDA_VISIBLE_DEVICES={environment(profile)['CUDA_VISIBLE_DEVICES']}); log {log}",
        file=sys.stderr,
    )

    def healthy(url: str) -> None:
        print(
            f"chambers serve: {profile.name} healthy at {url}; Ctrl+C stops it", file=sys.stderr, flush=True
        )

    code = server.run(on_healthy=healthy)
    print(f"chambers serve: {profile.name} stopped (exit {code})", file=sys.stderr)
    return code


def _write_unit(profile: Any, binary: Any, paths: Paths, unit_dir: Any) -> int:
    from backends.fleet.systemd_unit import systemd_verify, unit_name, write_unit
    from evidence.guard import check_output
    from workspace.errors import ChambersError

    if unit_dir is not None and not unit_dir.is_dir():  # only chambers' own units/ folder is made
        raise ChambersError(
            f"{unit_dir} is not a folder. Nothing was written. Give an existing folder as --unit-dir, or "
            "leave it out to write the unit into chambers' data folder.",
            title="Unit folder not found",
        )
    folder = unit_dir if unit_dir is not None else paths.data_dir / "units"
    check_output(paths.database_file, folder / unit_name(profile), what="unit folder (--unit-dir)")
    unit = write_unit(profile, binary, folder)
    print(f"Wrote {unit}")
    verdict = systemd_verify(unit)
    if verdict is None:
        print("systemd-analyze is not installed here, so the unit was not verified.")
    elif verdict[0]:
        print("systemd-analyze verify: ok")
    else:
        print(f"systemd-analyze verify found problems:\n{verdict[1]}")
    print(
        f"Install: sudo cp {unit} /etc/systemd/system/ && sudo systemctl daemon-reload && "
        f"sudo systemctl enable --now {unit.name}   (logs: journalctl -u {unit.name})"
    )
    return 0 if verdict is None or verdict[0] else 1


def _bases_by_file(paths: Paths) -> dict[str, Any]:
    """The registry's base of each adapter, by its file (to name the base of an adapter the server refuses)."""
    from pathlib import Path

    from corrections.adapters import list_adapters
    from tui.cli.train import trained_on_of

    if not paths.database_file.exists():
        return {}
    return {str(Path(r.file).resolve()): trained_on_of(r) for r in list_adapters(paths.database_file)}


def _guarded(profile: LaunchProfile, config: Config, paths: Paths) -> LaunchProfile:
    """The profile once the policy allows its listen address, with the served servers' API key."""
    from backends.fleet.serve_policy import check_listen_host
    from backends.server_key import ensure_key

    check_listen_host(profile.name, profile.listen_host, profile.port, config.policy)
    return profile.with_changes(api_key_file=str(ensure_key(paths.data_dir)))


def _with_adapters(profile: LaunchProfile, config: Config, paths: Paths) -> LaunchProfile:
    """The profile with the files of the adapters its backend names, from the adapter registry."""
    from corrections.adapters import list_adapters
    from workspace.errors import ChambersError

    backend = next((b for b in config.backends if b.name == profile.backend), None)
    if backend is None or not backend.lora:
        return profile
    registered = {r.name: r.file for r in list_adapters(paths.database_file)}
    missing = [ref.name for ref in backend.lora if ref.name not in registered]
    if missing:
        raise ChambersError(
            f"Backend '{backend.name}' in {config.file} names the adapter(s) {', '.join(missing)}, which "
            f"chambers has not trained (known: {', '.join(registered) or 'none'}). Train it with `chambers "
            f"train --role ROLE --name {missing[0]}`, or take it out of the backend's lora list.",
            title="An adapter the config names does not exist",
        )
    if profile.lora:
        print(
            f"chambers serve: the profile's own lora files reach only the requests of backends that name "
            f"them (chambers lists every adapter of a server on each request, at 0 for a backend that does "
            f"not name it): name them on backend '{backend.name}' as well to have its requests use them.",
            file=sys.stderr,
        )
    return profile.with_changes(adapters=tuple(registered[ref.name] for ref in backend.lora))
