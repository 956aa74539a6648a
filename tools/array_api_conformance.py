"""Run the Array API conformance suite on jaxc.numpy and jax.numpy, side by side.

    git clone https://github.com/data-apis/array-api-tests /tmp/aat
    git -C /tmp/aat submodule update --init          # the spec stubs it reads
    .venv/bin/python -m pip install ndindex           # the suite's one extra need
    .venv/bin/python tools/array_api_conformance.py /tmp/aat --max-examples 20 --x64

Each namespace runs in its own pytest process (the suite reads
ARRAY_API_TESTS_MODULE at import) with hypothesis derandomized, so that both
sides draw the same examples, writing JUnit XML; the report counts
passed / failed / errored / skipped tests per namespace and lists every test
that passes for the reference (jax.numpy) and not for jaxc.numpy, with the
first line of its failure. `--x64` sets JAX_ENABLE_X64=1 on both sides: the
suite draws float64/int64 arrays whenever the namespace has those names, so
without it both libraries fail at random where a drawn value needs 64 bits.
`--skip-complex` sets ARRAY_API_TESTS_SKIP_DTYPES to the complex dtypes on
both sides. Not part of `make test`: the suite takes 10-40 minutes per
namespace on two cores.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

OUTCOMES = ("passed", "failed", "error", "skipped")


def run_suite(suite: str, module: str, max_examples: int, workers: int, skip_complex: bool, x64: bool,
              xml_path: str, extra: list[str]) -> None:
    """One pytest run of the suite on `module`, results to `xml_path`."""
    env = dict(os.environ, ARRAY_API_TESTS_MODULE=module)
    if x64:
        env["JAX_ENABLE_X64"] = "1"
    if skip_complex:
        env["ARRAY_API_TESTS_SKIP_DTYPES"] = "complex64,complex128"
    command = [sys.executable, "-m", "pytest", "array_api_tests", "-q", "-p", "no:cacheprovider",
               "-o", "addopts=", "-W", "ignore", f"--max-examples={max_examples}", "--derandomize",
               f"--junitxml={xml_path}"] + (["-n", str(workers)] if workers > 1 else []) + extra
    print(f"# {module}: {' '.join(command[2:])}", flush=True)
    subprocess.run(command, cwd=suite, env=env, stdout=subprocess.DEVNULL, check=False)


def outcomes(xml_path: str) -> dict[str, tuple[str, str]]:
    """test id -> (outcome, first line of its message). A test that passed
    but errored at teardown counts as an error, as JUnit records it."""
    result: dict[str, tuple[str, str]] = {}
    for case in ElementTree.parse(xml_path).getroot().iter("testcase"):
        test = f"{case.get('classname', '')}::{case.get('name', '')}"
        outcome, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed"}.get(child.tag, child.tag)
                message = (child.get("message") or child.text or "").strip().splitlines()[:1]
                message = message[0][:160] if message else ""
                if outcome != "skipped":
                    break
        result[test] = (outcome, message)
    return result


def summary(results: dict[str, tuple[str, str]]) -> dict[str, int]:
    counts = collections.Counter(outcome for outcome, _ in results.values())
    return {outcome: counts.get(outcome, 0) for outcome in OUTCOMES}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", help="a checkout of data-apis/array-api-tests (with its submodule)")
    parser.add_argument("--module", default="jaxc.numpy")
    parser.add_argument("--reference", default="jax.numpy", help="'' to run only --module")
    parser.add_argument("--max-examples", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--skip-complex", action="store_true")
    parser.add_argument("--x64", action="store_true", help="JAX_ENABLE_X64=1 on both sides")
    parser.add_argument("--json", help="write the per-test outcomes here")
    parser.add_argument("pytest_args", nargs="*", help="passed on to pytest (after --)")
    args = parser.parse_args(argv)
    if not os.path.isdir(os.path.join(args.suite, "array_api_tests")):
        parser.error(f"{args.suite} is not a checkout of array-api-tests (no array_api_tests/ in it)")
    modules = [m for m in (args.module, args.reference) if m]
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for module in modules:
            xml_path = os.path.join(tmp, module + ".xml")
            run_suite(args.suite, module, args.max_examples, args.workers, args.skip_complex, args.x64,
                      xml_path, args.pytest_args)
            if not os.path.exists(xml_path):
                print(f"error: pytest wrote no results for {module}", file=sys.stderr)
                return 1
            results[module] = outcomes(xml_path)
    print(f"\n| namespace | {' | '.join(OUTCOMES)} |\n|---|{'---:|' * len(OUTCOMES)}")
    for module in modules:
        counts = summary(results[module])
        print(f"| {module} | {' | '.join(str(counts[o]) for o in OUTCOMES)} |")
    if args.reference:
        ours, theirs = results[args.module], results[args.reference]
        only_theirs = sorted(t for t, (o, _) in theirs.items()
                             if o == "passed" and ours.get(t, ("missing", ""))[0] != "passed")
        only_ours = sorted(t for t, (o, _) in ours.items()
                           if o == "passed" and theirs.get(t, ("missing", ""))[0] != "passed")
        print(f"\npass for {args.reference} only: {len(only_theirs)}; for {args.module} only: {len(only_ours)}")
        for test in only_theirs:
            outcome, message = ours.get(test, ("missing", ""))
            print(f"- {test}: {outcome}: {message}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
