"""`jax_array_garbage_collection_guard` (`jaxc.array_garbage_collection_guard`):
an Array freed by the cyclic garbage collector instead of reference counting
is logged with where it was made ("log"), or then aborts the process
("fatal"); "allow" (the default) says nothing."""
import gc
import logging
import os
import subprocess
import sys

import jaxc
import jaxc.numpy as jnp

MESSAGE = "was deleted by the Python garbage collector instead of reference counting"


class Node:
    pass


def _array_in_a_cycle() -> None:
    a, b = Node(), Node()
    a.other, b.other = b, a
    a.x = jnp.ones(3)  # this line is in the logged traceback


def test_log_names_the_array_and_where_it_was_made(caplog):
    gc.collect()
    with caplog.at_level(logging.ERROR, logger="jaxc"), jaxc.array_garbage_collection_guard("log"):
        _array_in_a_cycle()
        freed_by_counting = jnp.zeros(2)
        del freed_by_counting  # reference counting: not logged
        gc.collect()
    messages = [r.getMessage() for r in caplog.records if MESSAGE in r.getMessage()]
    assert len(messages) == 1 and "float32[3]" in messages[0]
    assert f"{__file__}:24 (_array_in_a_cycle)" in messages[0]


def test_allow_says_nothing(caplog):
    gc.collect()
    with caplog.at_level(logging.ERROR, logger="jaxc"), jaxc.array_garbage_collection_guard("allow"):
        _array_in_a_cycle()
        gc.collect()
    assert not [r for r in caplog.records if MESSAGE in r.getMessage()]
    assert "__del__" not in jaxc.Array.__dict__  # no finalizer while allowed


def test_fatal_aborts():
    program = ("import gc, jaxc, jaxc.numpy as jnp\n"
               "jaxc.config.update('jax_array_garbage_collection_guard', 'fatal')\n"
               "class N: pass\n"
               "a, b = N(), N(); a.o, b.o = b, a; a.x = jnp.ones(2); del a, b\n"
               "gc.collect()\n"
               "print('not reached')\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert done.returncode != 0 and "not reached" not in done.stdout
    assert MESSAGE in done.stderr
