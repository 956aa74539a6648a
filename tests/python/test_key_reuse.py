"""`jaxc.debug_key_reuse` (jax_debug_key_reuse): a typed key drawn from
twice raises KeyReuseError, eagerly, at jit calls and within one trace, as
JAX's checker does; the same scenarios run against JAX when it is
installed (each raises in both or in neither)."""
import numpy as np
import pytest

import jaxc
from jaxc import random

# name -> a program of (jax-like package, its random module); each either
# raises KeyReuseError or returns
SCENARIOS = {
    "draw_twice": (True, lambda pkg, r: [r.normal(k := r.key(0)), r.normal(k)]),
    "split_then_draw": (True, lambda pkg, r: [r.split(k := r.key(1)), r.normal(k)]),
    "bits_twice": (True, lambda pkg, r: [r.bits(k := r.key(2)), r.bits(k)]),
    "key_data_fold_in_key_impl_do_not_consume": (False, lambda pkg, r: [
        r.key_data(k := r.key(3)), r.fold_in(k, 1), r.fold_in(k, 2), r.key_impl(k), r.normal(k)]),
    "clone": (False, lambda pkg, r: [r.normal(r.clone(k := r.key(4))), r.normal(k)]),
    "legacy_keys_are_not_checked": (False, lambda pkg, r: [r.normal(k := r.PRNGKey(5)), r.normal(k)]),
    "twice_inside_jit": (True, lambda pkg, r: pkg.jit(lambda k: (r.normal(k), r.uniform(k)))(r.key(6))),
    "consumed_key_into_jit": (True, lambda pkg, r: [r.normal(k := r.key(7)),
                                                    pkg.jit(lambda k: r.normal(k))(k)]),
    "jit_consumes_its_argument": (True, lambda pkg, r: [f := pkg.jit(lambda k: r.normal(k)), f(k := r.key(8)),
                                                        f(k)]),
    "jit_that_does_not_consume": (False, lambda pkg, r: [f := pkg.jit(lambda k: r.key_data(k)),
                                                         f(k := r.key(9)), f(k)]),
    "same_element_twice": (True, lambda pkg, r: [ks := r.split(r.key(10), 3), r.normal(ks[0]),
                                                 r.normal(ks[0])]),
    "element_of_a_slice": (True, lambda pkg, r: [ks := r.split(r.key(11), 4), r.normal(ks[1:3][0]),
                                                 r.normal(ks[1])]),
    "distinct_elements": (False, lambda pkg, r: [ks := r.split(r.key(12), 3), r.normal(ks[0]),
                                                 r.normal(ks[1])]),
    "unpacked_keys_are_copies": (False, lambda pkg, r: [ks := r.split(r.key(13)), [r.normal(k) for k in ks],
                                                        r.normal(ks[0])]),
    "jit_consumes_one_element": (False, lambda pkg, r: [ks := r.split(r.key(14), 2),
                                                        pkg.jit(lambda ks: r.normal(ks[0]))(ks),
                                                        r.normal(ks[1])]),
    "jit_consumes_that_element_again": (True, lambda pkg, r: [ks := r.split(r.key(15), 2),
                                                              f := pkg.jit(lambda ks: r.normal(ks[0])),
                                                              f(ks), f(ks)]),
    "choice_draws_once": (False, lambda pkg, r: [r.choice(r.key(16), 5, (3,), replace=False),
                                                 r.choice(r.key(17), 5, (3,))]),
    "vmap_over_split_keys": (False, lambda pkg, r: pkg.vmap(lambda k: r.normal(k))(r.split(r.key(18), 2))),
    "fori_loop_carrying_new_keys": (False, lambda pkg, r: pkg.lax.fori_loop(
        0, 3, lambda i, k: r.split(k)[0], r.key(19))),
    "loop_body_draws_from_a_closed_over_key": (True, lambda pkg, r: [k := r.key(20), pkg.lax.fori_loop(
        0, 3, lambda i, x: x + r.normal(k), 0.0)]),
    "scan_body_draws_from_a_closed_over_key_in_jit": (True, lambda pkg, r: pkg.jit(lambda k: pkg.lax.scan(
        lambda c, _: (c + r.uniform(k), None), 0.0, None, length=2))(r.key(21))),
    "loop_body_passes_a_consumed_key_on": (True, lambda pkg, r: pkg.lax.fori_loop(
        0, 3, lambda i, k: [r.normal(k), k][1], r.key(22))),
    "loop_body_draws_from_a_key_it_folds": (False, lambda pkg, r: [k := r.key(23), pkg.lax.fori_loop(
        0, 3, lambda i, x: x + r.normal(r.fold_in(k, i)), 0.0)]),
    "cond_branches_draw_from_one_key": (False, lambda pkg, r: pkg.jit(lambda k, p: pkg.lax.cond(
        p, lambda: r.normal(k), lambda: r.uniform(k)))(r.key(24), True)),
}


def _run(pkg, program):
    random_ = pkg.random
    with pkg.debug_key_reuse(True):
        program(pkg, random_)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario(name):
    raises, program = SCENARIOS[name]
    if raises:
        with pytest.raises(jaxc.errors.KeyReuseError,
                           match="Previously-consumed key passed to|key reuse when repeatedly executed"):
            _run(jaxc, program)
    else:
        _run(jaxc, program)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_as_jax(name):
    jax = pytest.importorskip("jax")
    raises, program = SCENARIOS[name]
    if raises:
        with pytest.raises(jax.errors.KeyReuseError):
            _run(jax, program)
    else:
        _run(jax, program)


def test_off_by_default_and_the_error_type():
    k = random.key(0)
    np.testing.assert_array_equal(random.normal(k, (2,)), random.normal(k, (2,)))  # no check
    assert issubclass(jaxc.errors.KeyReuseError, jaxc.errors.JAXTypeError)
    assert issubclass(jaxc.errors.KeyReuseError, TypeError)
    with jaxc.debug_key_reuse(True):
        k = random.key(1)
        random.normal(k)
        with pytest.raises(jaxc.errors.KeyReuseError, match="passed to uniform at index 0"):
            random.uniform(k)
    random.uniform(k)  # off again


def test_jit_position_in_the_message():
    with jaxc.debug_key_reuse(True):
        f = jaxc.jit(lambda x, k: random.normal(k) * x)
        k = random.key(0)
        f(1.0, k)
        with pytest.raises(jaxc.errors.KeyReuseError, match="jit-compiled function at index 1"):
            f(2.0, k)  # the second argument leaf, as JAX counts
