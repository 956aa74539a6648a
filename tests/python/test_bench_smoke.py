"""`bench/run.py --quick` runs every workload on tiny shapes and checks each
jaxc result against NumPy before timing; it must keep working."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_bench_quick_runs_and_checks_every_workload():
    done = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "run.py"), "--quick",
                           "--no-jax"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "jaxc/numpy" in done.stdout
    for workload in ("matmul", "softmax", "SELU", "sum"):
        assert workload in done.stdout


def test_gpu_bench_runs_small_or_says_there_is_no_gpu():
    done = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gpu.py"), "--elements-log2", "12",
                           "--matmul", "64", "--repeats", "1"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no CUDA GPU here" in done.stdout or "of the copy" in done.stdout
