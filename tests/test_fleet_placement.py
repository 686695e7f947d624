"""``chambers experts --place``: his expert ranking as ``-ot`` rules, within a VRAM budget, on the real tools.

The tiny MoE (``backends/fleet/tiny_moe.py``) is measured by the real llama-imatrix; the rules are
given to the real llama-server (a CPU build here, so the GPUs' side is the default placement and
the rules' buffer type is ``CPU``, the name every build has), whose loader log says which tensors
each rule moved; and ``bench --sweep`` runs the rules against ``--cpu-moe`` and ``--n-cpu-moe K``.
"""

from __future__ import annotations

import math
import re
import tomllib
from pathlib import Path

import httpx
import numpy as np
import pytest
from gguf import GGUFReader

from backends.fleet.gguf_tensors import GGUFTableError, read_layout
from backends.fleet.imatrix import read_imatrix, run_imatrix
from backends.fleet.placement import PlacementError, layers_for_budget, make_placement
from backends.fleet.sweep import parse_vary
from backends.fleet.tiny_moe import ensure_tiny_moe
from backends.local_server import TEST_SERVER_ARGS, LlamaServerProcess, ensure_llama_tool
from tests.test_fleet_experts import CORPUS, MIB
from tui.cli.main import main

_EXPS = re.compile(r"^blk\.(\d+)\.ffn_(gate|up|down)_exps\.weight$")


@pytest.fixture(scope="module")
def tiny_moe() -> Path:
    return ensure_tiny_moe(print)


@pytest.fixture(scope="module")
def imatrix_file(tiny_moe: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    tool = ensure_llama_tool("llama-imatrix", print)
    return run_imatrix(tool, tiny_moe, CORPUS, "his letters", tmp_path_factory.mktemp("imatrix")).imatrix.path


def _independent_spread(imatrix_file: Path) -> dict[int, float]:
    """Effective experts (exp of the routing entropy) per layer, straight from the imatrix GGUF's counts."""
    tensors = {t.name: np.asarray(t.data).reshape(-1) for t in GGUFReader(str(imatrix_file)).tensors}
    out = {}
    for n in range(3):
        counts = tensors[f"blk.{n}.ffn_up_exps.weight.counts"]
        p = counts[counts > 0] / counts.sum()
        out[n] = math.exp(-float((p * np.log(p)).sum()))
    return out


def test_placement_keeps_the_most_read_expert_tensors_and_never_exceeds_the_budget(
    tiny_moe: Path, imatrix_file: Path
) -> None:
    imatrix = read_imatrix(imatrix_file)
    spread = _independent_spread(imatrix_file)
    names = [t.name for t in GGUFReader(str(tiny_moe)).tensors]
    assert len([n for n in names if _EXPS.match(n)]) == 9  # 3 layers x gate/up/down
    assert max(spread.values()) > min(spread.values()) + 0.5  # trained: the layers' routing differs
    whole = tiny_moe.stat().st_size
    dense = make_placement(tiny_moe, imatrix, whole).dense
    with pytest.raises(PlacementError, match=r"non-expert tensors of .* alone take"):
        make_placement(tiny_moe, imatrix, dense - 1)
    previous = -1.0
    for budget in np.linspace(dense, whole, 11).astype(int):
        p = make_placement(tiny_moe, imatrix, int(budget))
        assert p.gpu_bytes <= budget
        kept = [t for t in p.tensors if t.on_gpu]
        cpu = [t for t in p.tensors if not t.on_gpu]
        # The layers his text spreads over more experts are kept first: no tensor left on the CPU comes
        # from a more spread layer than one kept, unless it is the larger (and so did not fit).
        for c in cpu:
            assert all(spread[c.layer] <= spread[g.layer] + 1e-9 or c.size > g.size for g in kept)
            assert p.gpu_bytes + c.size > budget  # a CPU tensor is there because it did not fit
        assert p.gpu_read_share() >= previous
        previous = p.gpu_read_share()
        # The rules send exactly the CPU's tensors there (Python's re agrees with std::regex on these).
        patterns = [rule.removesuffix("=CPU") for rule in p.rules()]
        assert all("," not in rule for rule in p.rules())  # llama.cpp splits -ot's value at commas
        moved = {n for n in names if any(re.search(pat, n) for pat in patterns)}
        assert moved == {t.name for t in cpu}
    assert previous == 1.0 and make_placement(tiny_moe, imatrix, whole).rules() == ()  # it all fits
    assert layers_for_budget(make_placement(tiny_moe, imatrix, dense)) == 3


def test_llama_server_accepts_the_rules_and_moves_exactly_those_tensors(
    tiny_moe: Path, imatrix_file: Path, llama_server_binary: Path, tmp_path: Path
) -> None:
    imatrix = read_imatrix(imatrix_file)
    whole = make_placement(tiny_moe, imatrix, tiny_moe.stat().st_size)
    p = make_placement(tiny_moe, imatrix, whole.dense + int(4.5 * max(t.size for t in whole.tensors)))
    cpu = {t.name for t in p.tensors if not t.on_gpu}
    assert cpu and len(cpu) < 9
    args = [*TEST_SERVER_ARGS, "-lv", "5"]
    for rule in p.rules():
        args += ["-ot", rule]
    log = tmp_path / "server.log"
    with LlamaServerProcess(
        llama_server_binary, tiny_moe, extra_args=args, alias="tiny", log_file=log
    ) as server:
        reply = httpx.post(
            f"{server.url}/completion", json={"prompt": "The court", "n_predict": 4}, timeout=120
        )
        assert reply.status_code == 200 and reply.json()["tokens_predicted"] >= 1
    overridden = set(
        re.findall(r"tensor (\S+) \(.*\) buffer type overridden to CPU", log.read_text(errors="replace"))
    )
    assert overridden == cpu


def test_place_writes_a_commented_profile_and_sweeps_it_against_llama_cpps_own_flags(
    tiny_moe: Path, isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "his-letters.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    isolated_home.mkdir(parents=True, exist_ok=True)
    config_file = isolated_home / "config.toml"
    original = (
        f'[[profiles]]\nname = "tiny"\nmodel = "{tiny_moe}"\nport = 8391\nn_cpu_moe = 1\nctx_size = 512\n'
    )
    config_file.write_text(original, encoding="utf-8")
    vram = (tiny_moe.stat().st_size - 0.6 * MIB) / (1 << 30)  # about five of the nine expert tensors out
    args = ["experts", "--place", "tiny", "--vram-gib", str(vram), "--corpus", str(corpus)]
    assert main(args) == 0
    out = capsys.readouterr().out
    rules = [line.strip() for line in out.split("-ot rules:\n", 1)[1].splitlines() if line.startswith("  ^")]
    assert rules and "added a commented [[profiles]] entry 'tiny-placed'" in out
    text = config_file.read_text(encoding="utf-8")
    assert text.startswith(original)
    block = text.split("# [[profiles]]\n", 1)[1]
    placed = tomllib.loads("\n".join(line.removeprefix("# ") for line in block.splitlines()))
    assert placed["name"] == "tiny-placed"
    assert (
        placed["override_tensor"] == rules and "n_cpu_moe" not in placed and placed["model"] == str(tiny_moe)
    )
    # A second --place reuses the imatrix measured by the first (same model file, same corpus text).
    assert main([*args, "--to", "tiny-again"]) == 0
    assert "using the imatrix measured before" in capsys.readouterr().err

    variants = isolated_home / "data" / "experts" / "tiny-placed.offload.txt"
    _, values, labels = parse_vary(f"offload=@{variants}")
    assert labels == ["offload=ot#1", "offload=cpu-moe", f"offload=n-cpu-moe:{values[2]['n_cpu_moe']}"]
    assert (
        values[0]["override_tensor"] == tuple(rules) and values[1]["cpu_moe"] and values[2]["n_cpu_moe"] >= 1
    )
    sweep = ["bench", "--sweep", "tiny", "--vary", f"offload=@{variants}", "--lengths", "48"]
    assert main([*sweep, "--runs", "1", "--warmup", "0", "--max-tokens", "4", "--floor", "0"]) == 0
    out = capsys.readouterr().out
    for label in labels:
        assert label in out


def test_the_tensor_table_and_imatrix_read_here_match_gguf_py(
    tiny_moe: Path, imatrix_file: Path, demo_model: Path, tmp_path: Path
) -> None:
    """The mapped-file readers the plan and placement use, against gguf-py's own reader of the same files."""
    for path in (tiny_moe, imatrix_file, demo_model):
        ours = [(t.name, t.shape, t.type_name, t.n_bytes, t.offset) for t in read_layout(path).tensors]
        theirs = [
            (t.name, tuple(int(d) for d in t.shape), t.tensor_type.name, int(t.n_bytes), int(t.data_offset))
            for t in GGUFReader(str(path)).tensors
        ]
        assert ours == theirs
    reader = GGUFReader(str(imatrix_file))
    data = {t.name: np.asarray(t.data).reshape(-1) for t in reader.tensors}
    imatrix = read_imatrix(imatrix_file)
    assert imatrix.chunks == int(reader.get_field("imatrix.chunk_count").contents())  # type: ignore[union-attr]
    for name, stats in imatrix.tensors.items():
        assert stats.counts == tuple(float(c) for c in data[f"{name}.counts"])
        assert math.isclose(stats.mass, float(data[f"{name}.in_sum2"].astype(np.float64).sum()), rel_tol=1e-5)
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(tiny_moe.read_bytes()[:5000])  # ends inside the vocabulary
    with pytest.raises(GGUFTableError, match="cannot be read as a GGUF model"):
        read_layout(cut)
