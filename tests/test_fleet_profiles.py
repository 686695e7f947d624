"""Launch profiles: parsing, the command line and environment, the split refusal, the systemd unit, sweep plans.

The telemetry for the split checks is the recorded chassis 1 (see
backends/fleet/recorded_source.py): GPU 3 is its 16 GB card, and its NVLink
groups are {0,1}, {2,3}, {4,5,8,9}, {6,7,10,11}.
"""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest

from backends.fleet.profiles import (
    SEED_SAMPLING,
    ProfileError,
    command,
    environment,
    profile_named,
    profiles_from_config,
)
from backends.fleet.recorded_source import MISSION_CHASSIS1, RecordedSource
from backends.fleet.serve import SplitRefused, check_split, split_problems
from backends.fleet.sweep import BadVary, load_error, parse_vary, variants
from backends.fleet.systemd_unit import parse_exec_start, parse_unit, systemd_verify, unit_text, write_unit
from workspace.config import ConfigError, load_config, parse_config

BOARDS = """
[[boards]]
name = "board-a"
host = "chassis1"
gpus = [4, 5, 8, 9]
[[boards]]
name = "pair-23"
host = "chassis1"
gpus = [2, 3]
[[boards]]
name = "pair-01"
host = "chassis1"
gpus = [0, 1]
[[backends]]
name = "workhorse"
kind = "llamacpp"
url = "http://127.0.0.1:8082"
roles = ["drafter"]
board = "board-a"
"""

FULL = r"""
[[profiles]]
name = "workhorse-a"
model = "models/gpt-oss-120b.gguf"
board = "board-a"
backend = "workhorse"
n_gpu_layers = 99
tensor_split = [1, 1, 1, 1]
split_mode = "layer"
override_tensor = ['blk\.(2[0-9])\.ffn_.*_exps\.=CPU']
n_cpu_moe = 20
ctx_size = 32768
parallel = 2
cache_type_k = "q8_0"
cache_type_v = "q8_0"
flash_attn = true
lora = ["adapters/style.gguf"]
extra_args = ["--jinja", "--metrics"]
[profiles.sampling]
temperature = 0.6
"""


def config_with(tmp_path: Path, profiles: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(BOARDS + profiles, encoding="utf-8")
    return path


def test_full_profile_becomes_one_exact_command_and_environment(tmp_path: Path) -> None:
    config = load_config(config_with(tmp_path, FULL))
    p = profile_named(config, "workhorse-a")
    assert p.port == 8082  # from the backend it answers for
    assert p.gpus == (4, 5, 8, 9)
    cmd = command(p, "/opt/llama-server")
    assert cmd[:7] == [
        "/opt/llama-server",
        "-m",
        str(tmp_path / "models/gpt-oss-120b.gguf"),
        "--host",
        "127.0.0.1",
        "--port",
        "8082",
    ]
    joined = shlex.join(cmd)
    for part in (
        "-ngl 99",
        "--tensor-split 1,1,1,1",
        "--split-mode layer",
        "--n-cpu-moe 20",
        "-c 32768",
        "-np 2",
        "--cache-type-k q8_0",
        "--cache-type-v q8_0",
        "--flash-attn on",
        f"--lora {tmp_path / 'adapters/style.gguf'}",
        "--temp 0.6",
        "--repeat-penalty 1.2",
        "--min-p 0.01",
        "--top-p 0.95",
        "--top-k 40",
        "--jinja --metrics",
    ):
        assert part in joined, part
    assert (
        cmd[cmd.index("-ot") + 1] == r"blk\.(2[0-9])\.ffn_.*_exps\.=CPU"
    )  # passed as one argument, unescaped
    assert environment(p) == {"CUDA_DEVICE_ORDER": "PCI_BUS_ID", "CUDA_VISIBLE_DEVICES": "4,5,8,9"}


def test_seed_sampling_is_the_default_and_a_cpu_profile_hides_every_gpu(tmp_path: Path) -> None:
    config = load_config(
        config_with(tmp_path, '[[profiles]]\nname = "cpu"\nmodel = "/m/x.gguf"\nport = 8099\n')
    )
    p = profile_named(config, "cpu")
    assert (
        p.sampling
        == SEED_SAMPLING
        == {"temperature": 0.7, "repeat_penalty": 1.2, "min_p": 0.01, "top_p": 0.95, "top_k": 40}
    )
    assert environment(p)["CUDA_VISIBLE_DEVICES"] == ""


@pytest.mark.parametrize(
    ("profile", "key", "words"),
    [
        (
            'name = "x"\nmodel = "m.gguf"\nboard = "nope"',
            "profiles[0].board",
            "no [[boards]] entry named 'nope'",
        ),
        ('name = "x"\nmodel = "m.gguf"\nsplit_mode = "rows"', "profiles[0].split_mode", "expected one of"),
        ('name = "x"\nmodel = "m.gguf"\ncache_type_k = "q3"', "profiles[0].cache_type_k", "expected one of"),
        ('name = "x"\nmodel = "m.gguf"\nn_cpu_moe = -1', "profiles[0].n_cpu_moe", ">= 0"),
        ('name = "x"\nmodel = "m.gguf"\nparallel = true', "profiles[0].parallel", "a whole number"),
        (
            'name = "x"\nmodel = "m.gguf"\nextra_args = ["-c", "4096"]',
            "profiles[0].extra_args",
            "set by the profile",
        ),
        (
            'name = "x"\nmodel = "m.gguf"\nboard = "board-a"\ntensor_split = [1, 1]',
            "profiles[0].tensor_split",
            "2 parts but the board gives 4 GPUs",
        ),
        ('name = "x"\nmodel = "m.gguf"\nbackend = "workhorse"\nport = 9000', "profiles[0].port", "drop one"),
        ('name = "x"\nmodel = "m.gguf"\nngl = 99', "profiles[0].ngl", "unknown key"),
        ('name = "x"', "profiles[0].model", "required"),
        (
            'name = "x"\nmodel = "m.gguf"\n[profiles.sampling]\ntemp = 1',
            "profiles[0].sampling.temp",
            "unknown key",
        ),
    ],
)
def test_bad_profiles_name_the_file_and_the_key(tmp_path: Path, profile: str, key: str, words: str) -> None:
    config = load_config(config_with(tmp_path, f"[[profiles]]\n{profile}\n"))
    with pytest.raises(ProfileError) as err:
        profiles_from_config(config)
    assert f"`{key}`" in err.value.message and words in err.value.message
    assert str(tmp_path / "config.toml") in err.value.message


def test_profiles_must_be_tables_and_names_unique(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="profiles"):
        parse_config({"profiles": ["not a table"]}, "c.toml")
    twice = '[[profiles]]\nname = "a"\nmodel = "m.gguf"\n' * 2
    with pytest.raises(ProfileError, match="duplicate profile name 'a'"):
        profiles_from_config(load_config(config_with(tmp_path, twice)))


def test_split_refusal_names_boards_mixed_sets_and_nvlink_groups(tmp_path: Path) -> None:
    chassis1 = RecordedSource(MISSION_CHASSIS1).read()
    config = load_config(
        config_with(
            tmp_path,
            """
[[profiles]]
name = "one-board"
model = "m.gguf"
board = "board-a"
[[profiles]]
name = "two-boards"
model = "m.gguf"
board = ["pair-01", "board-a"]
[[profiles]]
name = "mixed"
model = "m.gguf"
board = "pair-23"
""",
        )
    )
    assert split_problems(profile_named(config, "one-board"), chassis1) == []
    assert check_split(profile_named(config, "one-board"), chassis1, None) is None
    two = split_problems(profile_named(config, "two-boards"), chassis1)
    assert "spans 2 boards (pair-01, board-a)" in two[0]
    assert "2 NVLink groups ({0, 1} and {4, 5, 8, 9})" in two[1]
    mixed = split_problems(profile_named(config, "mixed"), chassis1)
    assert mixed and "GPU 2 Tesla V100-SXM2-32GB 32 GB, GPU 3 Tesla V100-SXM2-16GB 16 GB" in mixed[0]
    with pytest.raises(SplitRefused, match="--allow-split"):
        check_split(profile_named(config, "mixed"), chassis1, None)
    with pytest.raises(SplitRefused):
        check_split(profile_named(config, "two-boards"), chassis1, "   ")  # a blank reason is no reason
    allowed = check_split(profile_named(config, "two-boards"), chassis1, "weekend batch job")
    assert allowed is not None and allowed.endswith("weekend batch job")


def test_systemd_unit_runs_the_same_command_and_environment(tmp_path: Path) -> None:
    config = load_config(config_with(tmp_path, FULL))
    p = profile_named(config, "workhorse-a")
    binary = shutil.which("true") or "/bin/true"  # verify wants an executable that exists
    unit = write_unit(p, binary, tmp_path / "units")
    assert unit.name == "chambers-workhorse-a.service"
    fields = parse_unit(unit.read_text())
    assert parse_exec_start(fields["Service.ExecStart"][0]) == command(p, binary)
    envs = dict(parse_exec_start(e)[0].split("=", 1) for e in fields["Service.Environment"])
    assert envs == environment(p)
    assert fields["Service.Restart"] == ["on-failure"]
    assert fields["Install.WantedBy"] == ["multi-user.target"]
    verdict = systemd_verify(unit)
    if verdict is not None:  # systemd-analyze installed here: the operating system's own check
        assert verdict[0], verdict[1]
        broken = unit.with_name("chambers-broken.service")
        broken.write_text(unit.read_text().replace("Restart=on-failure", "Restart=sometimes"))
        bad = systemd_verify(broken)
        assert bad is not None and not bad[0] and "sometimes" in bad[1]


def test_unit_quoting_survives_hostile_arguments(tmp_path: Path) -> None:
    config = load_config(
        config_with(
            tmp_path,
            """
[[profiles]]
name = "odd name/with slash"
model = "/models/a b\\\\c\\"d%e$f.gguf"
override_tensor = ['blk\\.(1[0-9]|2[0-3])\\.ffn_(up|down)_exps\\.=CPU']
""",
        )
    )
    p = profile_named(config, "odd name/with slash")
    text = unit_text(p, "/usr/local/bin/llama-server")
    exec_start = parse_unit(text)["Service.ExecStart"][0]
    assert parse_exec_start(exec_start) == command(p, "/usr/local/bin/llama-server")
    assert "%%e$$f" in exec_start  # specifiers and variables are not expanded by systemd


def test_sweep_plans_every_combination_on_free_ports(tmp_path: Path) -> None:
    config = load_config(
        config_with(tmp_path, '[[profiles]]\nname = "w"\nmodel = "/m/x.gguf"\nport = 8090\n')
    )
    p = profile_named(config, "w")
    plan = variants(p, ["n-cpu-moe=0,1", "np=1,2"])
    assert [v.label for v in plan] == [
        "n-cpu-moe=0 np=1",
        "n-cpu-moe=0 np=2",
        "n-cpu-moe=1 np=1",
        "n-cpu-moe=1 np=2",
    ]
    assert [(v.profile.n_cpu_moe, v.profile.parallel) for v in plan] == [(0, 1), (0, 2), (1, 1), (1, 2)]
    assert len({v.profile.port for v in plan}) == 4 and 8090 not in {v.profile.port for v in plan}
    rules = tmp_path / "ot.txt"
    rules.write_text("# two ways to keep experts on the CPU\nexps=CPU\nblk\\.[0-9]\\.ffn=CPU up_exps=CPU\n")
    name, values, labels = parse_vary(f"ot=@{rules}")
    assert name == "override_tensor" and values == [("exps=CPU",), ("blk\\.[0-9]\\.ffn=CPU", "up_exps=CPU")]
    assert labels == ["ot=#1", "ot=#2"]


def test_the_offload_axis_compares_ways_of_keeping_experts_on_the_cpu(tmp_path: Path) -> None:
    config = load_config(
        config_with(tmp_path, '[[profiles]]\nname = "w"\nmodel = "/m/x.gguf"\nport = 8090\nn_cpu_moe = 4\n')
    )
    plan = variants(profile_named(config, "w"), ["offload=gpu,cpu-moe,n-cpu-moe:2,ot:a_exps=CPU b_exps=CPU"])
    assert [v.label for v in plan] == [
        "offload=gpu",
        "offload=cpu-moe",
        "offload=n-cpu-moe:2",
        "offload=ot#4",
    ]
    got = [(v.profile.override_tensor, v.profile.cpu_moe, v.profile.n_cpu_moe) for v in plan]
    assert got == [
        ((), False, None),
        ((), True, None),
        ((), False, 2),
        (("a_exps=CPU", "b_exps=CPU"), False, None),
    ]
    assert "--n-cpu-moe" not in command(plan[3].profile, "llama-server")  # the profile's own 4 is cleared


@pytest.mark.parametrize(
    "spec",
    [
        "n-cpu-moe",
        "bogus=1",
        "np=x",
        "fa=maybe",
        "ot=@/nonexistent/file",
        "c=",
        "offload=sideways",
        "offload=ot:",
    ],
)
def test_bad_vary_says_what_it_takes(spec: str) -> None:
    with pytest.raises(BadVary):
        parse_vary(spec)


def test_load_error_quotes_the_servers_own_reason() -> None:
    log = (
        "0.00.610.023 E llama_model_load: error loading model: Mismatched '(' and ')' in regular expression\n"
        "0.00.610.095 E llama_model_load_from_file_impl: failed to load model\n"
        "0.01.080.130 E srv  llama_server: exiting due to model loading error\n"
    )
    assert load_error(log) == (
        "llama_model_load: error loading model: Mismatched '(' and ')' in regular expression"
        " ... srv  llama_server: exiting due to model loading error"
    )
    assert load_error("main: loading\nsrv main: exiting\n") == "srv main: exiting"
    assert load_error("") == "it exited without a word"


def test_serve_and_sweep_refuse_a_missing_model_before_starting_anything(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tui.cli.main import main

    isolated_home.mkdir(parents=True, exist_ok=True)
    config_with(isolated_home, '[[profiles]]\nname = "gone"\nmodel = "models/missing.gguf"\nport = 8097\n')
    assert main(["serve", "gone"]) == 2
    assert "names the model" in capsys.readouterr().err
    assert main(["bench", "--sweep", "gone", "--vary", "np=1,2"]) == 2
    assert "models/missing.gguf, which is not a file here" in capsys.readouterr().err
    assert main(["bench", "--vary", "np=1"]) == 2
    assert "--vary needs --sweep PROFILE" in capsys.readouterr().err
