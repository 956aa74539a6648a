"""jnp products and jnp.linalg against NumPy, eagerly and under jit: dot,
matmul (batch broadcasting, 1-d rules), vdot, inner, outer, tensordot,
einsum (ellipsis, implicit output, diagonals, interleaved form), trace,
diagonal, kron, cross, norms, multi_dot, matrix_power; dtypes (ints stay
ints, bool @ bool is bool, float16 accumulates in float32) and errors."""
from functools import partial

import numpy as np
import pytest
from jnp_check import assert_close, check, rand

import jaxc
import jaxc.numpy as jnp

A = rand((3, 4))
B = rand((4, 5))
V = rand((4,))
T = rand((2, 3, 4))
M = rand((4, 4))
TOL = dict(rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------------------
# matmul and dot
# ---------------------------------------------------------------------------

MATMUL_SHAPES = [
    ((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)), ((4,), (4,)), ((2, 3, 4), (4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)), ((3, 4), (2, 4, 5)), ((1, 3, 4), (2, 4, 5)), ((4,), (2, 4, 5)),
    ((2, 3, 4), (4,)), ((2, 3, 0), (0, 5)), ((0, 4), (4, 2)),
]


@pytest.mark.parametrize("a_shape,b_shape", MATMUL_SHAPES)
def test_matmul_shapes(a_shape, b_shape):
    check(jnp.matmul, np.matmul, rand(a_shape), rand(b_shape), dtype=np.float32, **TOL)


@pytest.mark.parametrize("a_dtype,b_dtype,out_dtype", [
    (np.int32, np.int32, np.int32), (np.int8, np.int8, np.int8), (np.uint8, np.uint8, np.uint8),
    (np.int32, np.float32, np.float32), (np.bool_, np.bool_, np.bool_), (np.float16, np.float16, np.float16),
])
def test_matmul_dtypes(a_dtype, b_dtype, out_dtype):
    a, b = rand((2, 3, 4), a_dtype, 0, 3), rand((4, 5), b_dtype, 0, 3)
    expected = np.matmul(a, b)
    if out_dtype == np.float16:  # float32 accumulation, one rounding at the end
        expected = np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(np.float16)
    check(jnp.matmul, None, a, b, expected=expected, dtype=out_dtype, rtol=1e-3, atol=1e-3)


def test_integer_matmul_wraps_like_jax():
    a = np.full((2, 64), 100, np.int8)
    b = np.ones((64, 2), np.int8)
    with np.errstate(over="ignore"):
        expected = np.matmul(a, b)  # NumPy wraps int8 too
    check(jnp.matmul, None, a, b, expected=expected, dtype=np.int8)


def test_preferred_element_type():
    a, b = rand((3, 4), np.int8, -3, 3), rand((4, 2), np.int8, -3, 3)
    check(partial(jnp.matmul, preferred_element_type=np.int32), None, a, b,
          expected=a.astype(np.int32) @ b.astype(np.int32), dtype=np.int32)
    check(partial(jnp.dot, preferred_element_type=np.float32), None, a, b,
          expected=(a.astype(np.float32) @ b.astype(np.float32)), dtype=np.float32)


def test_matmul_operator_and_methods():
    a, b = jnp.asarray(A), jnp.asarray(B)
    assert_close(a @ b, A @ B, **TOL)
    assert_close(a @ B, A @ B, **TOL)
    assert_close(a.dot(b), A.dot(B), **TOL)
    assert_close(jaxc.jit(lambda x, y: x @ y)(A, B), A @ B, **TOL)


def test_matmul_errors():
    with pytest.raises(TypeError, match=r"jnp.matmul: contracting dimensions differ: \(2, 3\) @ \(4, 5\)"):
        jnp.matmul(rand((2, 3)), rand((4, 5)))
    with pytest.raises(TypeError, match=r"jnp.matmul: contracting dimensions differ: \(3,\) @ \(4, 5\)"):
        jnp.matmul(rand((3,)), rand((4, 5)))
    with pytest.raises(ValueError, match=r"jnp.matmul: batch dimensions \(2,\) and \(3,\) do not broadcast"):
        jnp.matmul(rand((2, 3, 4)), rand((3, 4, 5)))
    with pytest.raises(ValueError, match=r"jnp.matmul: operands must be at least 1-d, got shapes \(\) @ \(4,\)"):
        jnp.matmul(2.0, rand((4,)))


DOT_SHAPES = [((), (3, 4)), ((4,), ()), ((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((3, 4), (4, 5)),
              ((2, 3, 4), (5, 4, 2)), ((2, 3, 4), (4,))]


@pytest.mark.parametrize("a_shape,b_shape", DOT_SHAPES)
def test_dot(a_shape, b_shape):
    check(jnp.dot, np.dot, rand(a_shape), rand(b_shape), dtype=np.float32, **TOL)


def test_dot_scalars_and_dtypes():
    assert_close(jnp.dot(2, 3), 6)
    assert jnp.dot(2, jnp.asarray(V)).dtype == np.float32
    check(jnp.dot, np.dot, rand((3, 4), np.int32), rand((4,), np.int32), dtype=np.int32)
    check(jnp.dot, np.dot, rand((3,), np.bool_), rand((3,), np.bool_), dtype=np.bool_)
    with pytest.raises(TypeError, match=r"jnp.dot: shapes \(3, 4\) and \(5, 2\) not aligned: 4 \(dim 1\) != "
                                         r"5 \(dim 0\)"):
        jnp.dot(rand((3, 4)), rand((5, 2)))


# ---------------------------------------------------------------------------
# vdot, inner, outer, vecdot, tensordot, kron, cross
# ---------------------------------------------------------------------------

def test_vdot_inner_outer():
    check(jnp.vdot, np.vdot, T, T, **TOL)
    check(jnp.inner, np.inner, T, A, **TOL)
    check(jnp.inner, np.inner, V, V, **TOL)
    check(jnp.inner, np.inner, np.float32(2), A)
    check(jnp.outer, np.outer, A, V)
    check(jnp.outer, np.outer, rand((3,), np.int32), rand((2,), np.int32), dtype=np.int32)
    with pytest.raises(TypeError, match=r"jnp.vdot: operands must have the same size, got shapes \(3, 4\) and "
                                         r"\(4,\)"):
        jnp.vdot(A, V)
    with pytest.raises(TypeError, match=r"jnp.inner: shapes \(3, 4\) and \(3,\) not aligned"):
        jnp.inner(A, rand((3,)))


def test_vecdot():
    check(jnp.vecdot, None, T, A, expected=np.sum(T * A, axis=-1), **TOL)
    check(partial(jnp.vecdot, axis=0), None, A, A, expected=np.sum(A * A, axis=0), **TOL)


@pytest.mark.parametrize("axes,b_shape", [(0, (2,)), (1, (4, 2)), (2, (3, 4, 2)), (([1, 2], [0, 1]), (3, 4, 2)),
                                          (([-1], [0]), (4, 2)), (((2, 1), (1, 0)), (3, 4, 2)), ((1, 0), (3, 5))])
def test_tensordot(axes, b_shape):
    check(partial(jnp.tensordot, axes=axes), partial(np.tensordot, axes=axes), T, rand(b_shape), **TOL)


def test_tensordot_errors():
    with pytest.raises(TypeError, match=r"jnp.tensordot: shapes \(2, 3, 4\) and \(3, 4\) not aligned"):
        jnp.tensordot(T, rand((3, 4)), axes=1)
    with pytest.raises(ValueError, match="jnp.tensordot: axes=3 is out of range"):
        jnp.tensordot(T, A, axes=3)
    with pytest.raises(ValueError, match="name 2 axes of a but 1 of b"):
        jnp.tensordot(T, A, axes=([1, 2], [1]))


@pytest.mark.parametrize("a_shape,b_shape", [((3,), (2,)), ((2, 3), (3, 2)), ((2,), (2, 3)), ((2, 1, 2), (3, 2))])
def test_kron(a_shape, b_shape):
    check(jnp.kron, np.kron, rand(a_shape), rand(b_shape))


def test_cross():
    check(jnp.cross, np.cross, rand((5, 3)), rand((5, 3)), **TOL)
    check(jnp.cross, np.cross, rand((3,)), rand((2, 3)), **TOL)
    check(partial(jnp.cross, axisa=0, axisb=0, axisc=0), partial(np.cross, axisa=0, axisb=0, axisc=0),
          rand((3, 4)), rand((3, 4)), **TOL)
    check(jnp.cross, None, np.array([1, 0, 0], np.int32), np.array([0, 1, 0], np.int32),
          expected=np.array([0, 0, 1]), dtype=np.int32)
    a2, b3 = rand((4, 2)), rand((4, 3))  # a 2-vector has z = 0
    check(jnp.cross, None, a2, b3, expected=np.cross(np.pad(a2, ((0, 0), (0, 1))), b3), **TOL)
    b2 = rand((4, 2))  # two 2-vectors: the z component
    check(jnp.cross, None, a2, b2, expected=a2[:, 0] * b2[:, 1] - a2[:, 1] * b2[:, 0], **TOL)
    with pytest.raises(ValueError, match="jnp.cross: vectors must have 2 or 3 components, got 4"):
        jnp.cross(rand((4,)), rand((3,)))


# ---------------------------------------------------------------------------
# einsum
# ---------------------------------------------------------------------------

EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk", [(3, 4), (4, 5)]), ("ij->ji", [(3, 4)]), ("ji", [(3, 4)]),
    ("ii", [(4, 4)]), ("ii->i", [(4, 4)]), ("ij->", [(3, 4)]), ("ij->j", [(3, 4)]), ("i,i", [(4,), (4,)]),
    ("i,j->ij", [(3,), (4,)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
    ("...i,...i->...", [(2, 3, 4), (3, 4)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("i,ij,j", [(3,), (3, 4), (4,)]), ("iij->j", [(3, 3, 2)]), ("iji->j", [(3, 2, 3)]),
    ("ij,ij->ij", [(3, 1), (3, 4)]), ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("ijk,ikj->i", [(2, 3, 4), (2, 4, 3)]), (",ij->ij", [(), (3, 4)]), ("Ab,bA", [(2, 3), (3, 2)]),
    ("ij,kl->", [(2, 3), (4, 5)]),
]


@pytest.mark.parametrize("spec,shapes", EINSUM_CASES)
def test_einsum(spec, shapes):
    operands = [rand(s) for s in shapes]
    check(partial(jnp.einsum, spec), partial(np.einsum, spec), *operands, dtype=np.float32, **TOL)


def test_einsum_dtypes_and_interleaved_form():
    ai, bi = rand((3, 4), np.int32), rand((4, 2), np.int32)
    check(partial(jnp.einsum, "ij,jk->ik"), partial(np.einsum, "ij,jk->ik"), ai, bi, dtype=np.int32)
    vf = rand((4,), np.float32)
    check(partial(jnp.einsum, "ij,j->i"), None, ai, vf, expected=ai @ vf, dtype=np.float32, **TOL)
    ab, bb = rand((3, 4), np.bool_), rand((4, 2), np.bool_)
    check(partial(jnp.einsum, "ij,jk->ik"), None, ab, bb, expected=(ab.astype(int) @ bb.astype(int)) > 0,
          dtype=np.bool_)
    h = rand((3, 4), np.float16)
    check(partial(jnp.einsum, "ij->i"), None, h, expected=h.astype(np.float32).sum(1).astype(np.float16),
          dtype=np.float16, rtol=1e-3, atol=1e-3)
    assert_close(jnp.einsum(A, [0, 1], B, [1, 2], [0, 2]), A @ B, **TOL)
    assert_close(jnp.einsum(A, [0, 1], B, [1, 2]), A @ B, **TOL)
    assert_close(jnp.einsum(T, [Ellipsis, 1], V, [1]), T @ V, **TOL)


@pytest.mark.parametrize("spec,shapes,message", [
    ("ij,jk", [(3, 4)], r"subscripts 'ij,jk' name 2 operands, got 1"),
    ("ij", [(3,)], r"operand 0 has 1 dimensions but its subscripts 'ij' name 2"),
    ("ij,jk", [(3, 4), (5, 6)], r"size of 'j' in 'ij,jk' differs: 4 vs 5"),
    ("i1", [(3, 4)], r"invalid subscript '1'"),
    ("ij->k", [(3, 4)], r"output subscript 'k' does not appear in the inputs"),
    ("ij->ii", [(3, 3)], r"output subscript 'i' repeated"),
    ("ii", [(3, 4)], r"size of 'i' in 'ii' differs: 3 vs 4 in operand 0 of shape \(3, 4\)"),
    ("i->i->i", [(3,)], r"more than once"),
])
def test_einsum_errors(spec, shapes, message):
    with pytest.raises(ValueError, match="jnp.einsum: .*" + message):
        jnp.einsum(spec, *[rand(s) for s in shapes])


def test_einsum_output_without_ellipsis_sums_its_dimensions():
    # as JAX (NumPy raises): the dimensions '...' stands for are contracted
    x, w = rand((3, 4, 5)), rand((3, 4))
    check(lambda a: jnp.einsum("...n->n", a), lambda a: np.einsum("abn->n", a), x, **TOL)
    check(lambda a, b: jnp.einsum("...n,...->n", a, b), lambda a, b: np.einsum("abn,ab->n", a, b), x, w, **TOL)


def test_einsum_contracts_pairwise_with_dot_general():
    ir = jaxc.make_ir(partial(jnp.einsum, "bij,bjk,bkl->bil"))(rand((2, 3, 4)), rand((2, 4, 5)), rand((2, 5, 6)))
    text = str(ir)
    assert text.count("jaxc.dot_general") == 2


# ---------------------------------------------------------------------------
# trace and diagonal
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("offset,axis1,axis2", [(0, 0, 1), (1, 0, 1), (-1, 0, 1), (2, 1, 0), (0, -1, 0),
                                                (-2, 2, 1), (5, 0, 1)])
def test_diagonal_and_trace(offset, axis1, axis2):
    kwargs = dict(offset=offset, axis1=axis1, axis2=axis2)
    check(partial(jnp.diagonal, **kwargs), partial(np.diagonal, **kwargs), T)
    check(partial(jnp.trace, **kwargs), partial(np.trace, **kwargs), T, dtype=np.float32, **TOL)


def test_diagonal_trace_dtypes_and_methods():
    check(jnp.trace, np.trace, rand((3, 3), np.int8), dtype=np.int32)   # jnp.sum's rules
    check(jnp.trace, np.trace, rand((3, 3), np.bool_), dtype=np.int32)
    check(jnp.diagonal, np.diagonal, rand((3, 4), np.bool_), dtype=np.bool_)
    check(jnp.diagonal, np.diagonal, rand((0, 4)))
    x = jnp.asarray(M)
    assert_close(x.trace(), M.trace(), **TOL)
    assert_close(x.diagonal(1), M.diagonal(1))
    assert_close(x.trace(dtype=np.int32), np.trace(M.astype(np.int32)))


def test_diagonal_errors():
    with pytest.raises(ValueError, match=r"jnp.diagonal: needs an array of at least 2 dimensions, got shape \(4,\)"):
        jnp.diagonal(V)
    with pytest.raises(ValueError, match="jnp.trace: axis1 and axis2 must differ"):
        jnp.trace(T, axis1=1, axis2=-2)


# ---------------------------------------------------------------------------
# jnp.linalg
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("ord", [None, 1, 2, np.inf, -np.inf, 0, 3, 0.5, -1])
def test_vector_norms(ord):
    check(partial(jnp.linalg.norm, ord=ord), partial(np.linalg.norm, ord=ord), V, dtype=np.float32, **TOL)
    check(partial(jnp.linalg.norm, ord=ord, axis=1, keepdims=True),
          partial(np.linalg.norm, ord=ord, axis=1, keepdims=True), T, **TOL)


@pytest.mark.parametrize("ord", [None, "fro", 1, -1, np.inf, -np.inf])
@pytest.mark.parametrize("axis", [None, (2, 0)])
def test_matrix_norms(ord, axis):
    x = A if axis is None else T
    check(partial(jnp.linalg.norm, ord=ord, axis=axis), partial(np.linalg.norm, ord=ord, axis=axis), x, **TOL)


def test_norm_variants():
    check(jnp.linalg.norm, np.linalg.norm, T, **TOL)  # all elements
    check(partial(jnp.linalg.norm, keepdims=True), partial(np.linalg.norm, keepdims=True), T, **TOL)
    check(partial(jnp.linalg.norm, ord=1, axis=(0, 2), keepdims=True),
          partial(np.linalg.norm, ord=1, axis=(0, 2), keepdims=True), T, **TOL)
    check(jnp.linalg.norm, np.linalg.norm, rand((4,), np.int32), dtype=np.float32, **TOL)
    check(jnp.linalg.norm, None, np.zeros((0,), np.float32), expected=np.float32(0))
    check(partial(jnp.linalg.vector_norm, axis=-1), partial(np.linalg.vector_norm, axis=-1), T, **TOL)
    check(partial(jnp.linalg.vector_norm, ord=1), partial(np.linalg.vector_norm, ord=1), T, **TOL)
    check(jnp.linalg.matrix_norm, np.linalg.matrix_norm, T, **TOL)
    check(partial(jnp.linalg.matrix_norm, ord=np.inf), partial(np.linalg.matrix_norm, ord=np.inf), T, **TOL)


def test_norm_errors():
    with pytest.raises(ValueError, match="jnp.linalg.norm: invalid norm order 'fro' for vectors"):
        jnp.linalg.norm(V, "fro")
    with pytest.raises(ValueError, match="jnp.linalg.norm: invalid norm order 3 for matrices"):
        jnp.linalg.norm(A, 3)
    with pytest.raises(ValueError, match=r"ord=1 needs a 1-d or 2-d array or an axis, got shape \(2, 3, 4\)"):
        jnp.linalg.norm(T, 1)
    with pytest.raises(ValueError, match="axis must name 1 or 2 axes"):
        jnp.linalg.norm(T, axis=(0, 1, 2))


def test_linalg_products():
    assert_close(jnp.linalg.matmul(A, B), A @ B, **TOL)
    assert_close(jnp.linalg.tensordot(A, B, axes=1), A @ B, **TOL)
    assert_close(jnp.linalg.outer(V, V), np.outer(V, V))
    assert_close(jnp.linalg.trace(T), np.trace(T, axis1=-2, axis2=-1), **TOL)
    assert_close(jnp.linalg.diagonal(T, offset=1), np.diagonal(T, 1, -2, -1))
    ops = [rand((4,)), rand((4, 6)), rand((6, 2)), rand((2, 3))]
    check(lambda *xs: jnp.linalg.multi_dot(list(xs)), None, *ops, expected=np.linalg.multi_dot(ops), **TOL)
    for n in [0, 1, 2, 5]:
        check(partial(jnp.linalg.matrix_power, n=n), partial(np.linalg.matrix_power, n=n), M * 0.5, **TOL)
    check(partial(jnp.linalg.matrix_power, n=3), partial(np.linalg.matrix_power, n=3), rand((2, 3, 3)), **TOL)
    check(partial(jnp.linalg.matrix_power, n=-1), partial(np.linalg.matrix_power, n=-1), M + 3 * np.eye(4, dtype=M.dtype),
          **TOL)
    with pytest.raises(ValueError, match=r"needs square matrices .* got shape \(3, 4\)"):
        jnp.linalg.matrix_power(A, 2)
