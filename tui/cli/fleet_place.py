"""``chambers experts --place PROFILE --vram-gib N``: his expert ranking as the profile's ``-ot`` rules.

The ranking comes from the imatrix the last ``chambers experts`` run of that model and corpus kept,
or from a new run. The rules are printed, written as a commented ``[[profiles]]`` entry beside the
original, and as a ``--vary offload=@FILE`` file that sweeps them against ``--cpu-moe`` and
``--n-cpu-moe K`` at the same budget.
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

from tui.cli.experts_inputs import corpus_text, measure, model_path, say
from workspace.paths import Paths, write_atomically


def _kept_imatrix(paths: Paths, model: Path, corpus: str) -> Path | None:
    """The imatrix file a stored measurement of this very model file and corpus text points at, if kept."""
    from backends.fleet.store import experts_by_model_file

    stored = experts_by_model_file(paths.database_file).get(model.name)
    if stored is None or stored.model_file != str(model) or not Path(stored.imatrix_file).is_file():
        return None
    text, _ = corpus_text(paths, corpus)
    same = stored.corpus_sha256 == hashlib.sha256(text.encode("utf-8")).hexdigest()
    return Path(stored.imatrix_file) if same else None


def cmd_place(args: argparse.Namespace, paths: Paths) -> int:
    from datetime import UTC, datetime

    from backends.fleet.imatrix import read_imatrix
    from backends.fleet.placement import PlacementError, format_placement, make_placement, offload_variants
    from backends.fleet.requant_plan import GIB

    if args.profile and args.profile != args.place:
        raise PlacementError(
            f"Give the model once: chambers experts --place {args.place} --vram-gib N (not also '{args.profile}')."
        )
    if args.vram_gib is None or args.vram_gib <= 0:
        raise PlacementError(
            "--place needs --vram-gib N: the GPU memory the board gives the model's weights, in GiB (e.g. 80)."
        )
    model = model_path(paths, args.place)
    kept = _kept_imatrix(paths, model, args.corpus)
    if kept is not None:
        say(f"using the imatrix measured before: {kept}")
        imatrix = read_imatrix(kept)
    else:
        imatrix = measure(paths, model, args.corpus)[0].imatrix
    placement = make_placement(model, imatrix, int(args.vram_gib * GIB))
    print(format_placement(placement, imatrix))
    name = args.to or f"{model.stem if args.place.endswith('.gguf') else args.place}-placed"
    variants = paths.data_dir / "experts" / f"{name}.offload.txt"
    variants.parent.mkdir(parents=True, exist_ok=True)
    head = f"# chambers experts --place {args.place} --vram-gib {args.vram_gib:g}: his rules, then llama.cpp's own"
    write_atomically(variants, "\n".join([head, *offload_variants(placement), ""]).encode())
    rules = placement.rules()
    if model != Path(args.place).expanduser():  # a profile's name: the placed sibling goes beside it
        from backends.fleet.profile_entry import add_commented_entry

        note = (
            f"chambers experts --place {datetime.now(UTC).date()}: {args.place} in {args.vram_gib:g} GiB of VRAM, "
            f"{placement.gpu_read_share() * 100:.1f}% of the expert weights his routing reads kept on the GPUs"
        )
        listed = "[" + ", ".join(f"'{rule}'" for rule in rules) + "]"  # literal strings: no escapes
        settings = {"override_tensor": listed, "cpu_moe": None, "n_cpu_moe": None}
        add_commented_entry(paths.config_file, args.place, name, model, note, settings)
        print(f"added a commented [[profiles]] entry '{name}' beside '{args.place}' in {paths.config_file}")
        print(f"compare it: chambers bench --sweep {args.place} --vary offload=@{variants}")
    else:
        print(f"the variants to sweep against --cpu-moe and --n-cpu-moe are in {variants}")
    return 0
