"""Build llama-cpp-python for the instructions this CPU has and its kernel runs, and install it.

Called by the Makefile after the portable build is installed and the judges are pulled:

    .venv/bin/python scripts/engine.py [--models DIR] [--flags FLAGS] [--portable | --gpu cuda|metal]

Why not ``-march=native``: these VMs advertise instructions (AMX tiles) that a kernel may then
refuse, and a native build faults with SIGILL in the first batched matmul. Why not llama.cpp's
runtime variants (``GGML_CPU_ALL_VARIANTS`` + ``GGML_BACKEND_DL``): they are loaded from the
executable's directory, the working directory or a path fixed at compile time, none of which is
the package directory of a wheel kept in a cache and installed into any venv; and the variant is
chosen from cpuid, the very report that misled the native build.

So: the flag set is read from /proc/cpuinfo (the kernel removes AVX-512 from it when it does not
save that state), a wheel is built once per flag set and kept in the cache, and before it is
installed it is *probed*: a child process loads each judge present with it and runs batched and
single-token decodes. A child that dies of a signal, fails or hangs means the portable build.
AMX is never enabled (ggml uses it only for some quantisations, and it is the instruction that
faulted); see benchmarks/RESULTS.md for the measured difference between the builds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

VERSION = "0.3.36"
CACHE = Path(os.environ.get("LOCALSUMM_WHEELS", Path.home() / ".cache" / "localsumm" / "wheels"))
PORTABLE = [
    "GGML_NATIVE=OFF",
    "GGML_SSE42=ON",
    "GGML_AVX=ON",
    "GGML_AVX2=ON",
    "GGML_FMA=ON",
    "GGML_F16C=ON",
    "GGML_BMI2=ON",
]
# cpuinfo flags each optional CMake option needs (GGML_AVX512 compiles for F, CD, BW, DQ and VL).
OPTIONAL = {
    "GGML_AVX512": ("avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"),
    "GGML_AVX512_VBMI": ("avx512vbmi",),
    "GGML_AVX512_VNNI": ("avx512_vnni",),
    "GGML_AVX512_BF16": ("avx512_bf16",),
    "GGML_AVX_VNNI": ("avx_vnni",),
}
PORTABLE_NEEDS = ("sse4_2", "avx", "avx2", "fma", "f16c", "bmi2")
# GPU builds (--gpu / LOCALSUMM_GPU): llama.cpp's CMake option for each backend, added to the portable CPU flags
# (a judge's layers that stay on the CPU still run). CUDA needs the toolkit (nvcc) at build time; Metal is macOS.
GPU = {"cuda": "GGML_CUDA=ON", "metal": "GGML_METAL=ON"}
PROBE_SECONDS = 300


@dataclass(frozen=True)
class Build:
    name: str
    """The wheel cache folder's suffix: ``avx2`` (portable) or ``avx512`` plus its extensions."""
    options: tuple[str, ...]

    @property
    def wheels(self) -> Path:
        return CACHE / f"llama-cpp-python-{VERSION}-{self.name}"

    @property
    def cmake_args(self) -> str:
        return " ".join(f"-D{o}" for o in self.options)


def gpu_build(gpu: str) -> Build:
    base = portable()
    return Build(f"{base.name}-{gpu}", (*base.options, GPU[gpu]))


def portable() -> Build:
    if platform.machine() != "x86_64":
        return Build("native", ("GGML_NATIVE=ON",))
    return Build("avx2", tuple(PORTABLE))


def fast(cpu_flags: set[str]) -> Build | None:
    """The build for these cpuinfo flags, or None where it would be the portable one."""
    if platform.machine() != "x86_64" or not all(f in cpu_flags for f in PORTABLE_NEEDS):
        return None
    extra = [option for option, needs in OPTIONAL.items() if all(f in cpu_flags for f in needs)]
    if "GGML_AVX512" not in extra:
        return None  # AVX-VNNI alone is not worth a second wheel
    name = "avx512" + "".join(
        "-" + o.removeprefix("GGML_AVX512_").removeprefix("GGML_").lower() for o in extra if o != "GGML_AVX512"
    )
    return Build(name, (*PORTABLE, *(f"{o}=ON" for o in extra)))


def cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def wheel_of(build: Build, python: str) -> Path:
    """The cached wheel of ``build``, compiled first if the cache has none (5-10 minutes on 2 cores)."""
    found = sorted(build.wheels.glob(f"llama_cpp_python-{VERSION}-*.whl"))
    if found:
        return found[-1]
    print(f"engine: compiling llama-cpp-python {VERSION} for {build.name} (once per machine and flag set)", flush=True)
    env = {**os.environ, "CMAKE_ARGS": build.cmake_args}
    subprocess.run(
        [
            python,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-cache-dir",
            "--no-binary",
            "llama-cpp-python",
            f"llama-cpp-python=={VERSION}",
            "-w",
            str(build.wheels),
        ],
        env=env,
        check=True,
    )
    return sorted(build.wheels.glob(f"llama_cpp_python-{VERSION}-*.whl"))[-1]


# Run in the child: every judge file given, loaded as localsumm loads it, a 256-token batch (the
# matmul kernels that faulted) and 8 single-token decodes; prints the build's features.
PROBE = r"""
import sys, llama_cpp
from llama_cpp import Llama
print(llama_cpp.__file__, file=sys.stderr)
for path in sys.argv[1:]:
    llm = Llama(model_path=path, n_ctx=512, n_batch=512, n_threads=2, use_mmap=False, verbose=False)
    tokens = llm.tokenize(b"The committee met on Tuesday and approved the budget. " * 24)[:256]
    llm.eval(tokens)
    for t in tokens[:8]:
        llm.eval([t])
    del llm
print(llama_cpp.llama_print_system_info().decode())
"""

# The GPU probe: the build must offer offload, and a judge must load and decode with every layer on the GPU.
GPU_PROBE = r"""
import sys, llama_cpp
from llama_cpp import Llama
print(llama_cpp.__file__, file=sys.stderr)
if not llama_cpp.llama_supports_gpu_offload():
    sys.exit("this build reports no GPU offload")
for path in sys.argv[1:]:
    llm = Llama(model_path=path, n_ctx=512, n_batch=512, n_gpu_layers=-1, use_mmap=False, verbose=False)
    llm.eval(llm.tokenize(b"The committee met on Tuesday and approved the budget. " * 24)[:256])
    del llm
print(llama_cpp.llama_print_system_info().decode())
"""


def run_with(wheel: Path, python: str, argv: list[str], timeout: float) -> tuple[subprocess.CompletedProcess[str], str]:
    """Run ``argv`` in a child process whose ``import llama_cpp`` finds ``wheel``, installed in a temporary
    folder ahead of the venv's own; returns what it did and that folder's name (gone by then)."""
    with tempfile.TemporaryDirectory(prefix="localsumm-probe-") as target:
        subprocess.run(
            [python, "-m", "pip", "install", "--quiet", "--no-deps", "--target", target, str(wheel)], check=True
        )
        done = subprocess.run(
            argv, env={**os.environ, "PYTHONPATH": target}, capture_output=True, text=True, timeout=timeout
        )
    return done, target


def probe(
    wheel: Path, python: str, models: list[Path], command: list[str] | None = None, script: str = PROBE
) -> tuple[bool, str]:
    """Run ``wheel`` in a child process on ``models``: (it ran cleanly, what happened)."""
    argv = command or [python, "-c", script, *map(str, models)]
    try:
        done, target = run_with(wheel, python, argv, PROBE_SECONDS)
    except subprocess.TimeoutExpired:
        return False, f"the probe did not finish in {PROBE_SECONDS} s"
    if done.returncode < 0:
        return False, f"the probe died of signal {-done.returncode} ({_signal_name(-done.returncode)})"
    if done.returncode:
        return False, f"the probe failed (exit {done.returncode}): {done.stderr.strip()[-400:]}"
    if command is None and target not in done.stderr:
        return False, "the probe imported another llama_cpp than the wheel under test"
    lines = done.stdout.strip().splitlines()
    return True, lines[-1] if lines else "ran"


def _signal_name(number: int) -> str:
    import signal

    try:
        return signal.Signals(number).name
    except ValueError:
        return "unknown"


def installed_build(venv: Path) -> str | None:
    marker = venv / "localsumm-engine.json"
    try:
        return json.loads(marker.read_text())["build"]
    except (OSError, ValueError, KeyError):
        return None


def install(build: Build, wheel: Path, python: str, venv: Path, note: str) -> None:
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall", str(wheel)], check=True
    )
    (venv / "localsumm-engine.json").write_text(
        json.dumps({"build": build.name, "options": build.options, "probe": note}, indent=1) + "\n"
    )


def choose(python: str, venv: Path, models: list[Path], flags: set[str], force_portable: bool = False) -> Build:
    """Install the fastest build that passes its probe, else the portable one; returns the one installed."""
    base = portable()
    candidate = None if force_portable else fast(flags)
    if candidate is not None and not models:
        print("engine: no judge file to probe a fast build with; keeping the portable build", flush=True)
        candidate = None
    if candidate is not None:
        if installed_build(venv) == candidate.name:
            print(f"engine: {candidate.name} build already installed", flush=True)
            return candidate
        wheel = wheel_of(candidate, python)
        ok, note = probe(wheel, python, models)
        if ok:
            install(candidate, wheel, python, venv, note)
            print(f"engine: installed the {candidate.name} build ({note})", flush=True)
            return candidate
        print(f"engine: the {candidate.name} build does not run here: {note}; using the portable build", flush=True)
    if installed_build(venv) != base.name:
        install(base, wheel_of(base, python), python, venv, "portable: not probed")
        print(f"engine: installed the portable {base.name} build", flush=True)
    return base


def choose_gpu(python: str, venv: Path, models: list[Path], gpu: str) -> bool:
    """Install the ``gpu`` build if it offloads a judge here; False (the installed build kept) if it does not."""
    build = gpu_build(gpu)
    if installed_build(venv) == build.name:
        print(f"engine: {build.name} build already installed", flush=True)
        return True
    wheel = wheel_of(build, python)
    ok, note = probe(wheel, python, models, script=GPU_PROBE)
    if not ok:
        print(f"engine: the {build.name} build does not offload here: {note}; kept the installed build", flush=True)
        return False
    install(build, wheel, python, venv, note)
    print(f"engine: installed the {build.name} build; offload with --gpu-layers N (-1: all)", flush=True)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--models",
        type=Path,
        default=None,
        help="folder of GGUF files to probe with (default: localsumm's models folder)",
    )
    parser.add_argument("--flags", default=None, help="cpuinfo flags to use instead of this CPU's, space-separated")
    parser.add_argument("--portable", action="store_true", help="install the portable build")
    parser.add_argument(
        "--gpu",
        choices=sorted(GPU),
        default=os.environ.get("LOCALSUMM_GPU") or None,
        help="build for this GPU backend instead (default: $LOCALSUMM_GPU; none: CPU only)",
    )
    args = parser.parse_args(argv)
    python = sys.executable
    venv = Path(sys.prefix)
    if args.models is None:
        from localsumm.config.paths import models_dir

        args.models = models_dir()
    models = sorted(args.models.glob("*.gguf")) if args.models.is_dir() else []
    if args.gpu:
        if args.gpu not in GPU:
            parser.error(f"LOCALSUMM_GPU={args.gpu}: use one of {', '.join(sorted(GPU))}")
        return 0 if choose_gpu(python, venv, models, args.gpu) else 1
    flags = set(args.flags.split()) if args.flags is not None else cpu_flags()
    choose(python, venv, models, flags, force_portable=args.portable or os.environ.get("LOCALSUMM_PORTABLE") == "1")
    return 0


if __name__ == "__main__":
    sys.exit(main())
