"""The long fuzzing mode (docs/reliability.md): the generators of the
property tests (tests/python/fuzz_programs.py) with hypothesis' random
search, for as long as it is given.

    python tools/fuzz.py --minutes 10 [--kind KIND|all] [--out fuzz-out] [--backend jaxc|jax]

KIND is one of jnp, grad, vmap, lowp, control, gather, conv, random, sort,
linalg, opt. `--backend jax` runs the op-class checks (control ... linalg)
on JAX itself instead of jaxc: a failure there is a bug of the references
in fuzz_programs.py, not of jaxc.

Each failure, shrunk by hypothesis, is written to OUT/<kind>-<n>/ as a
standalone reproducer (repro.py, or repro.mlir plus repro.sh) with the
message in its header; an error while drawing an example (a generator bug)
as generator-error.txt. The example being checked is also kept in
OUT/in-progress/ until it finishes, so a hard crash of the process leaves its
reproducer behind. Exit status 1 when anything failed.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "python"))
os.environ.setdefault("JAXC_EAGER_OPT_LEVEL", "0")  # as the tests: faster eager kernels

import fuzz_programs as fp  # noqa: E402
from hypothesis import HealthCheck, Verbosity, given, settings  # noqa: E402

import jaxc  # noqa: E402

KINDS = {
    # kind: (strategy, check, examples per hypothesis run)
    "jnp": (fp.programs("jnp"), fp.check_jnp, 25),
    "grad": (fp.programs("grad", max_ops=5), fp.check_grad, 10),
    "vmap": (fp.programs("vmap", max_ops=4), fp.check_vmap, 15),
    "lowp": (fp.programs("lowp"), fp.check_jnp, 25),
    "control": (fp.control_cases(), fp.check_control, 15),
    "gather": (fp.gather_cases(), fp.check_gather, 20),
    "conv": (fp.conv_cases(), fp.check_conv, 20),
    "random": (fp.random_cases(), fp.check_random, 10),
    "sort": (fp.sort_cases(), fp.check_sort, 20),
    "linalg": (fp.linalg_cases(), fp.check_linalg, 5),
    "opt": (fp.opt_cases(), None, 20),
}
CASE_KINDS = ["control", "gather", "conv", "random", "sort", "linalg"]   # checks that take a backend


def _key(error: BaseException, example: object) -> str:
    """Failures with the same key are taken to be the same bug: the error's
    first line (numbers left out) and the ops of the (shrunk) example."""
    lines = [line for line in str(error).splitlines() if line.strip()]
    first = re.sub(r"-?\d+(\.\d+)?(e[+-]?\d+)?", "N", lines[0] if lines else "")[:160]
    return f"{type(error).__name__}: {first} [{example.signature()}]"


class Fuzzer:
    def __init__(self, out: Path, deadline: float, backend: str = "jaxc"):
        self.out, self.deadline, self.backend = out, deadline, backend
        self.workdir = tempfile.mkdtemp(prefix="jaxc-fuzz-")
        self.examples = 0
        self.failures: dict[str, tuple[str, object, str]] = {}   # key -> (kind, example, message)
        self.written = 0

    def _write(self, folder: Path, files: dict[str, str]) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (folder / name).write_text(text)

    def run(self, kind: str) -> None:
        """One hypothesis search of `kind`; its (shrunk) failures go to `self.failures`."""
        strategy, check, examples = KINDS[kind]
        found: dict[str, tuple[str, object, str]] = {}

        @settings(max_examples=examples, deadline=None, derandomize=False, database=None,
                  suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet)
        @given(strategy)
        def search(example: object) -> None:
            if time.time() > self.deadline:
                return   # out of time: stop checking (the shrinker then stops too)
            self.examples += 1
            self._write(self.out / "in-progress", example.reproducer("in progress"))
            try:
                if check is None:
                    fp.check_opt(example, self.workdir)
                elif kind in CASE_KINDS:
                    check(example, self.backend)
                else:
                    check(example)
            except Exception as error:
                message = f"{type(error).__name__}: {error}\n\n{traceback.format_exc(limit=-4)}"
                found[_key(error, example)] = (kind, example, message)   # the last one is the smallest
                raise

        try:
            search()
        except BaseException as error:   # failures, hypothesis' Flaky after a time-out, ...
            if isinstance(error, KeyboardInterrupt):
                raise
            if not found:   # raised while drawing an example: a bug of the generator itself
                self._generator_error(kind, error)
        finally:
            jaxc.clear_caches()   # each program's machine code: a long run would grow by gigabytes
        for key, failure in found.items():
            if key not in self.failures:
                self.written += 1
                kind_, example, message = failure
                folder = self.out / f"{kind_}-{self.written}"
                self._write(folder, example.reproducer(message))
                print(f"FAIL {folder}: {key}", flush=True)
            self.failures[key] = failure

    def _generator_error(self, kind: str, error: BaseException) -> None:
        """An error outside the checks (no example to reproduce): its traceback goes to
        OUT/<kind>-<n>/generator-error.txt."""
        lines = str(error).splitlines()
        key = f"generator of {kind}: {type(error).__name__}: {lines[0][:160] if lines else ''}"
        if key not in self.failures:
            self.written += 1
            folder = self.out / f"{kind}-{self.written}"
            text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
            self._write(folder, {"generator-error.txt": text})
            print(f"FAIL {folder}: {key}", flush=True)
        self.failures[key] = (kind, None, key)

    def finish(self) -> None:
        shutil.rmtree(self.out / "in-progress", ignore_errors=True)
        shutil.rmtree(self.workdir, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, required=True, help="how long to search")
    parser.add_argument("--kind", choices=[*KINDS, "all"], default="all")
    parser.add_argument("--out", type=Path, default=Path("fuzz-out"), help="reproducers (default fuzz-out/)")
    parser.add_argument("--backend", choices=["jaxc", "jax"], default="jaxc",
                        help="jax: run the op-class checks on JAX, to check the references (needs JAX)")
    args = parser.parse_args(argv)

    start = time.time()
    fuzzer = Fuzzer(args.out, start + args.minutes * 60, args.backend)
    kinds = list(KINDS) if args.kind == "all" else [args.kind]
    if args.backend == "jax":
        kinds = [k for k in kinds if k in CASE_KINDS]
        if not kinds:
            parser.error(f"--backend jax runs the kinds {', '.join(CASE_KINDS)} only")
    runs = 0
    try:
        while time.time() < fuzzer.deadline:
            kind = kinds[runs % len(kinds)]
            fuzzer.run(kind)
            runs += 1
    finally:
        fuzzer.finish()
    elapsed = time.time() - start
    print(f"fuzz: {fuzzer.examples} examples ({', '.join(kinds)}) in {elapsed:.0f}s, "
          f"{len(fuzzer.failures)} distinct failure(s)" +
          (f", reproducers in {args.out}/" if fuzzer.failures else ""))
    return 1 if fuzzer.failures else 0


if __name__ == "__main__":
    sys.exit(main())
