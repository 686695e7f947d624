"""What ``chambers experts``, ``requant`` and ``experts --place`` start from: the model file, his corpus,
and a stored llama-imatrix measurement of the one over the other."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from workspace.paths import Paths


def say(message: str) -> None:
    print(message, file=sys.stderr)


def model_path(paths: Paths, name: str) -> Path:
    from backends.fleet.imatrix import ExpertsError

    path = Path(name).expanduser()
    if path.suffix == ".gguf" or path.exists():
        return path
    if not paths.config_file.exists():
        raise ExpertsError(f"'{name}' is not a GGUF file, and profiles need a config ({paths.config_file}).")
    from backends.fleet.profiles import profile_named
    from workspace.config import load_config

    return Path(profile_named(load_config(paths.config_file), name).model)


def corpus_text(paths: Paths, corpus: str) -> tuple[str, str]:
    from backends.fleet.agree import finals_corpus
    from backends.fleet.imatrix import ExpertsError
    from corrections.store import accepted_finals

    if corpus == "finals":
        return finals_corpus(accepted_finals(paths.database_file)), "finals"
    try:
        return Path(corpus).read_text(encoding="utf-8"), corpus
    except (OSError, UnicodeDecodeError) as exc:
        raise ExpertsError(f"The corpus {corpus} cannot be read as UTF-8 text ({exc}).") from None


def measure(paths: Paths, model: Path, corpus: str) -> Any:
    """llama-imatrix over the corpus, the result stored; returns the run and its report."""
    from datetime import UTC, datetime

    from backends.fleet.experts import experts_report
    from backends.fleet.imatrix import ExpertsError, require_moe, run_imatrix
    from backends.fleet.store import save_experts
    from backends.local_server import ensure_llama_tool

    require_moe(model)
    text, corpus_name = corpus_text(paths, corpus)
    tool = ensure_llama_tool("llama-imatrix", say)
    say(f"measuring the experts of {model.name} on {corpus_name} with llama-imatrix")
    run = run_imatrix(tool, model, text, corpus_name, paths.data_dir / "experts")
    counts = run.imatrix.expert_counts()
    if not counts:
        raise ExpertsError(
            f"{model.name} routed no tokens through experts: it is a dense model (no blk.N.ffn_*_exps tensors). "
            "chambers experts measures mixture-of-experts models."
        )
    report = experts_report(counts)
    save_experts(
        paths.database_file,
        datetime.now(UTC).isoformat(),
        str(model),
        corpus_name,
        run.corpus_sha256,
        str(run.imatrix.path),
        list(report.curve),
        counts,
        len(report.never_woken()),
    )
    return run, report, corpus_name
