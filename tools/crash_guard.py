"""Run compiler work so that a crash becomes an error message.

Two things kill a process that runs MLIR: LLVM's assertions (the pinned LLVM
is built with them; an assert is ``abort()``) and stack overflow in recursive
C++ (the parser recurses once per nesting level). `run_guarded` forks after
the imports and runs the work in the child, on a thread with a large stack;
the parent waits and turns death by a signal into one line naming the input.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import traceback
from typing import Callable

WORKER_STACK_BYTES = 1 << 30  # virtual: only the pages a deep input touches cost memory


def run_guarded(work: Callable[[], int], input_name: str, enabled: bool = True,
                prog: str = "jaxc-opt") -> int:
    """Run `work` (returning an exit status) in a forked child and wait; a
    child killed by a signal becomes ``INPUT: error: PROG crashed (SIGNAL)
    ...`` and status 1. Without `enabled` (or without fork) it runs here."""
    if not enabled or not hasattr(os, "fork"):
        return run_with_big_stack(work)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # child: never return into the caller
        code = 1
        try:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            code = run_with_big_stack(work)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # the child gets it too
    try:
        _, status = os.waitpid(pid, 0)
    finally:
        signal.signal(signal.SIGINT, previous)
    if not os.WIFSIGNALED(status):
        return os.waitstatus_to_exitcode(status)
    number = os.WTERMSIG(status)
    if number in (signal.SIGINT, signal.SIGPIPE, signal.SIGTERM):
        return 128 + number  # interrupted, not crashed
    sys.stderr.write(f"{input_name}: error: {prog} crashed ({_signal_name(number)}) while "
                     "processing this input; this is a bug in jaxc, please report it\n")
    return 1


def run_with_big_stack(work: Callable[[], int]) -> int:
    """Run `work` on a thread with a `WORKER_STACK_BYTES` stack; an exception
    is printed as an internal error (status 1)."""
    result = [1]

    def target() -> None:
        try:
            result[0] = work()
        except BrokenPipeError:  # the reader went away
            silence_stdout()
        except Exception:
            traceback.print_exc()
            sys.stderr.write("error: internal error (the traceback above); "
                             "this is a bug in jaxc, please report it\n")

    try:
        previous = threading.stack_size(WORKER_STACK_BYTES)
    except (ValueError, RuntimeError):  # platform without a settable stack size
        target()
        return result[0]
    try:
        worker = threading.Thread(target=target, name="jaxc-worker", daemon=True)
        worker.start()
    finally:
        threading.stack_size(previous)
    worker.join()
    return result[0]


def silence_stdout() -> None:
    """Point stdout at /dev/null so the final flush cannot fail again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
