"""`bench/run.py --quick` runs every workload on tiny shapes and checks each
jaxc result against NumPy before timing; it must keep working. JAX is left
out (--no-jax) and never needed; the chart is drawn only where matplotlib
happens to be installed."""
import importlib.util
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_bench_quick_runs_and_checks_every_workload(tmp_path):
    markdown = tmp_path / "results" / "latest.md"
    command = [sys.executable, os.path.join(ROOT, "bench", "run.py"), "--quick", "--no-jax",
               "--threads", "1", "--settle-ms", "1", "--markdown", str(markdown)]
    png = tmp_path / "results" / "latest.png"
    if importlib.util.find_spec("matplotlib") is not None:
        command += ["--png", str(png)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "jaxc/numpy" in done.stdout
    assert "threads: 1 (JAXC_CPU_THREADS=1" in done.stdout
    assert "1 ms settle and one untimed call before each sample" in done.stdout  # --settle-ms
    for workload in ("dispatch: jit add", "matmul", "softmax", "SELU", "sum", "MLP step", "MNIST MLP"):
        assert workload in done.stdout
    text = markdown.read_text()
    assert "| workload | jaxc med |" in text and "| MNIST MLP" in text
    if "--png" in command:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_gpu_bench_runs_small_or_says_there_is_no_gpu():
    done = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gpu.py"), "--elements-log2", "12",
                           "--matmul", "64", "--repeats", "1"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no CUDA GPU here" in done.stdout or "of the copy" in done.stdout
