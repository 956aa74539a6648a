"""Property-based tests (hypothesis): random jnp programs (eager == jit ==
NumPy, with JAX's dtypes and shapes; also in float16/bfloat16), random
differentiable programs (grad against central differences, check_grads),
vmap against a loop, the op classes — control flow, gather/scatter,
convolution, random, sort, linalg — each eagerly, under jit, vmap and grad
against its NumPy reference (random: its properties and JAX's bits), and
mutated lit inputs through jaxc-opt (a clean exit, never a crash).

The generators and checks are in fuzz_programs.py, shared with the long
mode, tools/fuzz.py (docs/reliability.md). Here the search is derandomized
and bounded (about 3 minutes for the file on two cores) so CI is
reproducible."""
from __future__ import annotations

import fuzz_programs as fp
import pytest
from hypothesis import HealthCheck, given, settings

import jaxc


@pytest.fixture(autouse=True, scope="module")
def _release_programs():
    """Free the ~800 programs and eager kernels these tests compile (about
    2.5 MB of JIT memory each) when the module ends, so that the suite's
    memory does not keep them."""
    yield
    jaxc.clear_caches()


def bounded(examples: int) -> settings:
    """A fixed, database-free search of `examples` examples."""
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck), print_blob=True)


@bounded(400)
@given(fp.programs("jnp"))
def test_jnp_programs_eager_jit_numpy(prog: fp.Program) -> None:
    fp.check_jnp(prog)


@bounded(60)
@given(fp.programs("grad", max_ops=5))
def test_grad_programs_against_finite_differences(prog: fp.Program) -> None:
    fp.check_grad(prog)


@bounded(150)
@given(fp.programs("vmap", max_ops=4))
def test_vmap_programs_against_a_loop(prog: fp.Program) -> None:
    fp.check_vmap(prog)


@bounded(40)
@given(fp.opt_cases())
def test_jaxc_opt_on_mutated_lit_inputs(tmp_path_factory, case: fp.OptCase) -> None:
    fp.check_opt(case, str(tmp_path_factory.mktemp("opt")))


@bounded(60)
@given(fp.programs("lowp"))
def test_float16_bfloat16_programs_eager_jit_numpy(prog: fp.Program) -> None:
    fp.check_jnp(prog)


@bounded(40)
@given(fp.control_cases())
def test_control_flow(case: fp.Case) -> None:
    fp.check_control(case)


@bounded(50)
@given(fp.gather_cases())
def test_gather_and_scatter(case: fp.Case) -> None:
    fp.check_gather(case)


@bounded(30)
@given(fp.conv_cases())
def test_convolution(case: fp.Case) -> None:
    fp.check_conv(case)


@bounded(12)
@given(fp.random_cases())
def test_random_keys_and_samplers(case: fp.Case) -> None:
    fp.check_random(case)


@bounded(30)
@given(fp.sort_cases())
def test_sort_argsort_top_k(case: fp.Case) -> None:
    fp.check_sort(case)


@bounded(8)
@given(fp.linalg_cases())
def test_linalg_by_reconstruction(case: fp.Case) -> None:
    fp.check_linalg(case)
