"""Every kernel class of the `scheduled` stage (docs/stages.md) against NumPy:
elementwise chains, contractions in every layout the MLP and its gradient
use, row and column reductions, fused row-wise reductions (softmax), on
shapes that do not divide the tiles, size-0 and size-1 dimensions,
non-contiguous inputs and every element width. Each case also asserts that
the kernel really was vectorized (the `scheduled` stage has vector ops), so
a schedule that silently stops applying fails here.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from jnp_check import rand

import jaxc
import jaxc.numpy as jnp
from jaxc import lax  # noqa: F401
from jaxc.passes import host

try:
    import ml_dtypes
    BF16 = ml_dtypes.bfloat16
except ImportError:  # pragma: no cover
    BF16 = None


@pytest.fixture(autouse=True)
def avx2_tiles():
    """The expected tiles, panels and vector shapes below are those of
    256-bit vectors (AVX2), so every case compiles for that width on any
    host (an AVX-512 host runs AVX2 code; its own width is exercised by the
    rest of the suite, which compiles for the host). Products are generated
    loop nests here (the compiled library's calls: test_library_products.py)."""
    if host.target().vector_bits < 256:
        with host.override(library_calls=False):
            yield  # an SSE-only host: the cases that need vectors say so themselves
        return
    with host.override(vector_bits=256, library_calls=False):
        yield


@pytest.fixture(autouse=True)
def x64_for_64_bit_cases(request):
    """64-bit cases run with jax_enable_x64 (else float64 inputs become float32)."""
    wide = any(str(v) in ("<class 'numpy.float64'>", "float64") for v in
               getattr(request.node, "callspec", None) and request.node.callspec.params.values() or ())
    if wide:
        jaxc.config.update("jax_enable_x64", True)
    yield
    if wide:
        jaxc.config.update("jax_enable_x64", False)


def scheduled_text(f, *args) -> str:
    return jaxc.jit(f).lower(*args).as_text(stage="scheduled")


def run_and_check(f, reference, *args, rtol=1e-5, atol=1e-5, vectorized=True):
    got = np.asarray(jaxc.jit(f)(*args))
    want = reference(*[np.asarray(a) for a in args])
    assert got.shape == want.shape
    if want.dtype.kind in "iub":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol)
    if vectorized:
        assert "vector." in scheduled_text(f, *args), "the kernel was not vectorized"


# ---------------------------------------------------------------- elementwise

ELEMENTWISE_SHAPES = [(4096,), (33, 67), (1, 3000), (3000, 1), (7, 11, 29)]


@pytest.mark.parametrize("shape", ELEMENTWISE_SHAPES, ids=str)
def test_elementwise_chain(shape):
    x = rand(shape)
    run_and_check(lambda x: 0.5 * jnp.sin(x) * x + jnp.exp(-x * x) - 1.0,
                  lambda x: 0.5 * np.sin(x.astype(np.float64)) * x + np.exp(-(x.astype(np.float64)) ** 2) - 1.0,
                  x, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int32, np.int8, np.uint8, "bf16"])
def test_elementwise_dtypes(dtype):
    if dtype == "bf16":
        if BF16 is None:
            pytest.skip("ml_dtypes not installed")
        dtype = BF16
    x, y = rand((37, 53), dtype, 0, 5), rand((37, 53), dtype, 1, 5)
    kind = np.dtype(dtype).kind
    if kind in "iu":
        run_and_check(lambda x, y: x * y + x // y, lambda x, y: x * y + x // y, x, y)
    else:
        tol = 1e-2 if np.dtype(dtype).itemsize == 2 else 1e-12
        from jaxc.passes import host
        # bf16 kernels stay scalar where LLVM aborts on their vectors (AVX512-BF16 CPUs)
        vectorized = not (dtype is BF16 and host.bf16_vectors_abort())
        run_and_check(lambda x, y: x * y + x / y, lambda x, y: (x.astype(np.float64) * y + x.astype(np.float64) / y),
                      x, y, rtol=tol, atol=tol, vectorized=vectorized)


def test_elementwise_broadcast_and_select():
    x, b = rand((129, 200)), rand((200,))
    run_and_check(lambda x, b: jnp.where(x > 0, x + b, b * 2.0), lambda x, b: np.where(x > 0, x + b, b * 2.0), x, b)


def test_size_zero_and_non_contiguous():
    x = rand((0, 3000))
    assert np.asarray(jaxc.jit(jnp.sin)(x)).shape == (0, 3000)
    big = rand((200, 300))
    for view in (big[::2], big.T, big[:, ::3]):
        run_and_check(lambda v: jnp.cos(v) * 2.0, lambda v: np.cos(v.astype(np.float64)) * 2.0, view, atol=1e-6)


@pytest.mark.parametrize("shape, axis", [((2000,), 0), ((300, 400), 1), ((300, 400), 0)])
def test_reversed_operands_stay_unscheduled_and_right(shape, axis):
    # a reversal's map (-d0 + 1999) made upstream tiling abort the process
    x = rand(shape)
    got = jaxc.jit(lambda a: jnp.flip(a, axis) * 2 + 1)(x)
    np.testing.assert_allclose(np.asarray(got), np.flip(x, axis) * 2 + 1, rtol=1e-6)


TRANSPOSES = [  # (shape, dtype, the function of (jnp or np, x), turned in squares of lanes x lanes)
    ((1024, 1024), np.float32, lambda m, x: x.T, True),
    ((64, 48), np.float32, lambda m, x: m.tanh(x.T) * 2.0 + 1.0, True),  # fused with elementwise ops
    ((16, 24, 40), np.float32, lambda m, x: m.transpose(x, (2, 0, 1)), True),
    ((16, 24, 40), np.float32, lambda m, x: m.transpose(x, (0, 2, 1)) + x[0, 0, :24], True),
    ((40, 64), np.float64, lambda m, x: x.T, True),
    ((64, 96), np.float16, lambda m, x: x.T, True),
    ((64, 64), np.int8, lambda m, x: x.T, True),
    ((37, 53), np.float32, lambda m, x: x.T, False),  # the lanes divide neither: rows as before
    ((8, 1), np.float32, lambda m, x: x.T, False),
    ((0, 16), np.float32, lambda m, x: x.T, False),
]


@pytest.mark.parametrize("case", range(len(TRANSPOSES)), ids=lambda i: f"{TRANSPOSES[i][0]}-{i}")
def test_transposes_turn_square_tiles_in_registers(case):
    """A kernel that reads an input across its rows (a transpose, alone or
    fused) is tiled in lanes x lanes squares and turned in registers
    (vector.transpose; squares of 16 x 16 32-bit elements, on AVX-512:
    already as vector.shuffle) when the lanes divide both
    loops; the other shapes keep row tiles. Every case against NumPy."""
    shape, dtype, f, squares = TRANSPOSES[case]
    x = rand(shape, dtype)
    jf = lambda x: f(jnp, x)  # noqa: E731
    got = np.asarray(jaxc.jit(jf)(x))
    want = f(np, x.astype(np.float64) if dtype == np.float16 else x)
    np.testing.assert_allclose(got.astype(np.float64), np.asarray(want, np.float64),
                               rtol=1e-2 if dtype == np.float16 else 1e-6, atol=1e-6)
    if 0 not in shape:
        text = scheduled_text(jf, x)
        bits = np.dtype(dtype).itemsize * 8
        sixteen = (host.target().lanes(bits), bits) == (16, 32)
        assert ("vector.shuffle" if sixteen else "vector.transpose") in text or not squares
        assert "vector.transpose" not in text or squares


def test_threads_do_not_change_results():
    x = rand((300, 400))
    f = lambda x: jnp.tanh(x) * 3.0 + x  # noqa: E731
    results = []
    for threads in (1, 2, 3):
        jaxc.config.update("jaxc_cpu_threads", threads)
        try:
            results.append(np.asarray(jaxc.jit(f)(x)))
        finally:
            jaxc.config.update("jaxc_cpu_threads", 0)
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0], results[2])
    assert "scf.forall" in scheduled_text(f, x)  # 120000 elements: split over the threads


@pytest.mark.parametrize("name,shape,split", [
    ("symmetrize", (256, 256), False),   # 65536 x 2.25: too little work
    ("scale", (512, 512), False),        # 262144 x 1.25
    ("scale", (1024, 1024), True),
    ("tanh", (128, 512), False),         # 65536 x 5
    ("tanh", (128, 1024), True),
    ("column sum", (256, 256), False),
    ("column sum", (1024, 512), True),
], ids=str)
def test_kernels_split_over_threads_only_when_the_work_pays(name, shape, split):
    """`Kernel.threads`: elements x cost per element decides, not the element
    count alone (a cheap 65536-element kernel split over 2 threads waits a
    time slice at its barrier when another runtime's threads hold the cores)."""
    if host.target().threads == 1:
        pytest.skip("one thread on this host")
    f, reference = {"symmetrize": (lambda a: (a + a.T) / 2, lambda a: (a + a.T) / 2),
                    "scale": (lambda a: a * 2.0, lambda a: a * 2.0),
                    "tanh": (jnp.tanh, np.tanh),
                    "column sum": (lambda a: jnp.sum(a, 0), lambda a: np.sum(a.astype(np.float64), 0))}[name]
    x = rand(shape)
    assert ("scf.forall" in scheduled_text(f, x)) == split
    run_and_check(f, reference, x, atol=1e-4)


@pytest.mark.parametrize("shape,dtype", [((1024, 1024), np.float32), ((48, 80), np.float32),
                                         ((64, 32), np.int32), ((32, 64), np.uint32)], ids=str)
def test_avx512_transposes_turn_16x16_tiles_by_shuffles(shape, dtype):
    """With 512-bit vectors, 16 x 16 tiles of 32-bit elements are turned by
    upstream's shuffle_16x16 lowering in the `scheduled` stage: 64 two-vector
    shuffles (left to canonicalization they became 256 lane extracts and
    inserts, which LLVM took ~30 ms to compile back into slower shuffles)."""
    if "avx512f" not in host.target().features:
        pytest.skip("the host has no AVX-512")
    x = rand(shape, dtype) if dtype == np.float32 else np.arange(math.prod(shape), dtype=dtype).reshape(shape)
    f = lambda a: a.T * 2 + 1  # noqa: E731
    with host.override(vector_bits=512):
        text = scheduled_text(f, x)
        got = np.asarray(jaxc.jit(f)(x))
    assert text.count("vector.shuffle") >= 64 and "vector.transpose" not in text
    np.testing.assert_array_equal(got, x.T * 2 + 1)


@pytest.mark.parametrize("shape,split", [((128, 128), False), ((64, 100), False), ((512, 512), True)], ids=str)
def test_row_groups_fork_only_when_the_work_pays(shape, split):
    """A fused row group (softmax) forks an OpenMP team only when its kernels'
    work together pays (`rows.group_threads`); else its forall is marked and
    `jaxc-serial-foralls` makes it one thread's scf.for. Numbers either way."""
    if host.target().threads == 1:
        pytest.skip("one thread on this host")
    x = rand(shape)
    f = lambda a: jaxc.nn.softmax(a, axis=1)  # noqa: E731

    def reference(a):
        e = np.exp(a.astype(np.float64) - a.max(1, keepdims=True))
        return e / e.sum(1, keepdims=True)
    run_and_check(f, reference, x, rtol=1e-5, atol=1e-7)
    loops = jaxc.jit(f).lower(x).as_text(stage="loops")
    assert ("omp.parallel" in loops) == split and "scf.forall" not in loops


# ---------------------------------------------------------------- contractions

MATMUL_SHAPES = [(64, 100, 40), (37, 45, 53), (1, 300, 64), (200, 1, 64), (130, 257, 9), (6, 16, 16)]


@pytest.mark.parametrize("m,k,n", MATMUL_SHAPES, ids=str)
def test_matmul(m, k, n):
    a, b = rand((m, k)), rand((k, n))
    run_and_check(lambda a, b: a @ b, lambda a, b: a.astype(np.float64) @ b, a, b, rtol=1e-4, atol=1e-4,
                  vectorized=m * n * k >= 4096 and n >= 8)


@pytest.mark.parametrize("layout", ["ab", "aTb", "abT", "aTbT"])
def test_matmul_layouts(layout):
    m, k, n = 70, 90, 50
    a = rand((k, m)) if layout.startswith("aT") else rand((m, k))
    b = rand((n, k)) if layout.endswith("bT") else rand((k, n))
    fa = (lambda a: a.T) if layout.startswith("aT") else (lambda a: a)
    fb = (lambda b: b.T) if layout.endswith("bT") else (lambda b: b)
    run_and_check(lambda a, b: fa(a) @ fb(b), lambda a, b: fa(a.astype(np.float64)) @ fb(b.astype(np.float64)),
                  a, b, rtol=1e-4, atol=1e-4)


def test_matmul_transposed_b_is_copied_once():
    a, b = rand((70, 90)), rand((50, 90))
    text = scheduled_text(lambda a, b: a @ b.T, a, b)
    assert text.count("linalg.transpose") == 1
    assert "vector.contract" in text


def test_batched_matmul():
    a, b = rand((3, 40, 50)), rand((3, 50, 60))
    run_and_check(lambda a, b: jnp.einsum("bmk,bkn->bmn", a, b),
                  lambda a, b: np.einsum("bmk,bkn->bmn", a.astype(np.float64), b), a, b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.float16])
def test_matmul_dtypes(dtype):
    a, b = rand((40, 50), dtype, -3, 3), rand((50, 33), dtype, -3, 3)
    tol = 2e-2 if dtype == np.float16 else 1e-10
    run_and_check(lambda a, b: a @ b, lambda a, b: (a.astype(np.float64) @ b).astype(
        np.float64 if dtype != np.int32 else np.int32), a, b, rtol=tol, atol=tol * 10)


def test_mlp_gradient_layouts():
    """The MLP step's contractions (A·B forward, Aᵀ·B and A·Bᵀ backward) together."""
    x, w = rand((64, 96)), rand((96, 48)) * 0.1

    def loss(w, x):
        return jnp.sum(jnp.tanh(x @ w) ** 2)

    g = np.asarray(jaxc.jit(jaxc.grad(loss))(w, x))
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    t = np.tanh(x64 @ w64)
    np.testing.assert_allclose(g, x64.T @ (2 * t * (1 - t * t)), rtol=1e-4, atol=1e-4)


def product_in_layout(layout: str, m: int, k: int, n: int):
    """(a, b, f, float64 reference) for an m x k by k x n product whose
    operands are stored as `layout` says ("aTb": A as k x m, "abT": B as n x k)."""
    a = rand((k, m)) if layout == "aTb" else rand((m, k))
    b = rand((n, k)) if layout == "abT" else rand((k, n))
    fa = (lambda a: a.T) if layout == "aTb" else (lambda a: a)
    fb = (lambda b: b.T) if layout == "abT" else (lambda b: b)
    return a, b, lambda a, b: fa(a) @ fb(b), lambda a, b: fa(a.astype(np.float64)) @ fb(b.astype(np.float64))


@pytest.mark.parametrize("layout", ["ab", "aTb", "abT"])
def test_columns_past_whole_tiles_are_a_product_of_their_own(layout):
    """n = 1004 (no register tile divides it; 8 f32 lanes on AVX2): the 992
    columns that whole 4-vector tiles cover are a packed product, the last 12
    another, each written into its columns of C."""
    m, k, n = 256, 64, 1004
    a, b, f, reference = product_in_layout(layout, m, k, n)
    text = scheduled_text(f, a, b)
    assert "tensor<256x992xf32>" in text and "tensor<256x12xf32>" in text
    assert "x64x16xf32>" in text  # the main part's B as panels of 64 k-rows x 16 lanes
    bufferized = jaxc.jit(f).lower(a, b).as_text(stage="bufferized")
    assert "memref.copy" not in bufferized  # each part is computed in its columns of C
    run_and_check(f, reference, a, b, rtol=1e-4, atol=1e-4)


SPLIT_WITH_INIT = """
func.func @f(%a: tensor<256x64xf32>, %b: tensor<64x1004xf32>, %c: tensor<256x1004xf32>) -> tensor<256x1004xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<256x64xf32>, tensor<64x1004xf32>) outs(%c : tensor<256x1004xf32>)
      -> tensor<256x1004xf32>
  return %r : tensor<256x1004xf32>
}
"""


def test_split_product_accumulates_into_its_init():
    """C += A·B into an init that is no fill (IR as `jaxc-opt` takes it): each
    part starts from its columns of the init."""
    from mlir import ir

    from jaxc.dialect import make_context
    from jaxc.passes import stages
    from jaxc.runtime import cpu

    module = ir.Module.parse(SPLIT_WITH_INIT, make_context())
    signatures = cpu.function_signatures(module)
    stages.run_stages(module, "scheduled", first="linalg")
    assert "tensor<256x992xf32>" in str(module) and "tensor<256x12xf32>" in str(module)
    stages.run_stages(module, "llvm", first="scheduled")
    a, b, c = rand((256, 64)), rand((64, 1004)), rand((256, 1004))
    want = a.astype(np.float64) @ b + c
    got = cpu.jit_lowered(module, signatures)["f"](a, b, c.copy())[0]  # (the argument is written in place)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


NARROW_LAYOUTS = {  # C = A·B with n below a vector's lanes (8 f32 on AVX2): a logits layer's products
    "aTb": (lambda a, b: a.T @ b, (40, 70), (40, 5)),  # A's rows run along m: Cᵀ = Bᵀ·Aᵀ, transposed
    "ab": (lambda a, b: a @ b, (70, 90), (90, 5)),  # A's rows run along k: dot products of rows
    "abT": (lambda a, b: a @ b.T, (70, 90), (3, 90)),
    "aTbT": (lambda a, b: a.T @ b.T, (40, 70), (6, 40)),
    "batched aTb": (lambda a, b: jnp.einsum("bkm,bkn->bmn", a, b), (3, 40, 70), (3, 40, 7)),
}


@pytest.mark.parametrize("layout", NARROW_LAYOUTS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.float16])
def test_narrow_products_are_vectorized(layout, dtype):
    """A product with fewer columns than a vector has lanes is vectorized along
    m (its transpose computed) or along k (B copied as rows), never left as a
    reduction that reads B with a stride."""
    f, a_shape, b_shape = NARROW_LAYOUTS[layout]
    a, b = rand(a_shape, dtype, -3, 3), rand(b_shape, dtype, -3, 3)
    text = scheduled_text(f, a, b)
    if layout.endswith("aTb") and dtype != np.float64:  # (f64 has 4 lanes on AVX2: n is not narrow)
        assert "vector.contract" in text and "linalg.transpose" in text
    ref = (lambda a, b: f(a.astype(np.int64), b).astype(np.int32)) if dtype == np.int32 else (
        lambda a, b: f(a.astype(np.float64), b.astype(np.float64)))
    tol = 5e-2 if dtype == np.float16 else 1e-5
    run_and_check(f, ref, a, b, rtol=tol, atol=tol * 10)


NARROW_WITH_INIT = """
func.func @f(%a: tensor<40x70xf32>, %b: tensor<40x5xf32>, %c: tensor<70x5xf32>) -> tensor<70x5xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>,
                                        affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<40x70xf32>, tensor<40x5xf32>) outs(%c : tensor<70x5xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<70x5xf32>
  return %r : tensor<70x5xf32>
}
"""


def test_narrow_product_accumulates_into_its_init():
    """C += Aᵀ·B into an init that is no fill (IR as `jaxc-opt` takes it): the
    transposed product starts from the init transposed."""
    from mlir import ir

    from jaxc.dialect import make_context
    from jaxc.passes import stages
    from jaxc.runtime import cpu

    module = ir.Module.parse(NARROW_WITH_INIT, make_context())
    signatures = cpu.function_signatures(module)
    stages.run_stages(module, "scheduled", first="linalg")
    text = str(module)
    assert text.count("linalg.transpose") == 2 and "vector.contract" in text  # the init in, the result out
    stages.run_stages(module, "llvm", first="scheduled")
    a, b, c = rand((40, 70)), rand((40, 5)), rand((70, 5))
    got = cpu.jit_lowered(module, signatures)["f"](a, b, c)[0]
    np.testing.assert_allclose(got, a.astype(np.float64).T @ b + c, rtol=1e-5, atol=1e-5)


COMPUTED_OPERANDS = {
    "tanh(a) @ b": (lambda a, b: jnp.tanh(a) @ b, lambda a, b: np.tanh(a) @ b),
    "(2a) @ b": (lambda a, b: (2 * a) @ b, lambda a, b: (2 * a) @ b),
    "a @ where(b > 0, b, 0)": (lambda a, b: a @ jnp.where(b > 0, b, 0.0), lambda a, b: a @ np.where(b > 0, b, 0)),
}


@pytest.mark.parametrize("case", sorted(COMPUTED_OPERANDS))
def test_computed_operands_stay_out_of_contractions(case):
    """An elementwise producer of a contraction operand stays a kernel of its
    own (jaxc-contraction-fusion-barriers): fused in, the contraction lost
    its schedule and ran as a plain reduction (tanh(a) @ b 84x slower)."""
    f, reference = COMPUTED_OPERANDS[case]
    a, b = rand((96, 80)), rand((80, 64))
    text = scheduled_text(f, a, b)
    assert "vector.contract" in text, "the contraction lost its schedule"
    run_and_check(f, lambda a, b: reference(a.astype(np.float64), b.astype(np.float64)), a, b,
                  rtol=1e-4, atol=1e-4)


def test_weight_gradients_are_contractions_without_transposes():
    """The weight gradient of a bias-free relu layer: the relu mask (one use)
    and the filled cotangent of a plain sum stay out of the contraction, and
    the vjp's transpose of the product folds into the product's operand
    order (no jaxc.transpose in the `optimized` stage)."""
    x, w = rand((64, 96)), rand((96, 48)) * 0.1

    def relu_loss(w, x):
        return jnp.sum(jaxc.nn.relu(x @ w))

    def plain_loss(w, x):
        return jnp.sum(x @ w)

    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    wants = {relu_loss: x64.T @ (x64 @ w64 > 0), plain_loss: x64.T @ np.ones((64, 48))}
    for loss, want in wants.items():
        lowered = jaxc.jit(jaxc.grad(loss)).lower(w, x)
        assert "jaxc.transpose" not in lowered.as_text(stage="optimized")
        assert "vector.contract" in lowered.as_text(stage="scheduled")
        np.testing.assert_allclose(np.asarray(jaxc.jit(jaxc.grad(loss))(w, x)), want, rtol=1e-4, atol=1e-4)


CONTRACTION_FORMS = {
    # name: (jaxc function, NumPy reference, operand shapes)
    "x3 @ w (two m loops)": (lambda x, w: x @ w, lambda x, w: x @ w, [(3, 37, 45), (45, 40)]),
    "(a @ b).reshape (n split)": (lambda a, b: (a @ b).reshape(50, 4, 10), lambda a, b: (a @ b).reshape(50, 4, 10),
                                  [(50, 70), (70, 40)]),
    "(a @ b).reshape (m and n split)": (lambda a, b: (a @ b).reshape(2, 25, 5, 8),
                                        lambda a, b: (a @ b).reshape(2, 25, 5, 8), [(50, 70), (70, 40)]),
    "a @ b.reshape (k split)": (lambda a, b: a @ b.reshape(60, 33), lambda a, b: a @ b.reshape(60, 33),
                                [(41, 60), (6, 10, 33)]),
    "tensordot over two axes": (lambda a, b: jnp.tensordot(a, b, axes=([1, 2], [1, 0])),
                                lambda a, b: np.tensordot(a, b, axes=([1, 2], [1, 0])), [(37, 6, 11), (11, 6, 40)]),
    "a @ transpose(b) with interleaved k, n": (
        lambda a, b: a @ jnp.transpose(b, (0, 2, 1, 3)).reshape(12, 45),
        lambda a, b: a @ np.transpose(b, (0, 2, 1, 3)).reshape(12, 45), [(33, 12), (2, 5, 6, 9)]),
    "einsum with batch in the middle": (lambda a, b: jnp.einsum("mbk,bkn->bmn", a, b),
                                        lambda a, b: np.einsum("mbk,bkn->bmn", a, b), [(30, 3, 20), (3, 20, 50)]),
    "attention scores (two batch loops apart)": (
        lambda q, k: jnp.einsum("bqhd,bkhd->bhqk", q, k), lambda q, k: np.einsum("bqhd,bkhd->bhqk", q, k),
        [(2, 33, 3, 16), (2, 40, 3, 16)]),
}


@pytest.mark.parametrize("case", sorted(CONTRACTION_FORMS))
def test_contractions_in_other_forms_are_scheduled(case):
    """Products whose m, n, k or batch index runs over several loops (a dot of
    a 3-D array, a reshape or transpose fused into the product) are put in
    (batch, m, n, k) form by jaxc-canonicalize-contractions: scheduled as
    contractions (outer-product register tiles), not as plain reductions
    (50-100x slower), on sizes that do not divide the tiles."""
    f, reference, shapes = CONTRACTION_FORMS[case]
    args = [rand(shape) for shape in shapes]
    text = scheduled_text(f, *args)
    assert "vector.contract" in text or "vector.outerproduct" in text, "the product lost its schedule"
    run_and_check(f, lambda *a: reference(*[v.astype(np.float64) for v in a]), *args, rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------- reductions

@pytest.mark.parametrize("shape,axis", [((64, 100), 1), ((100, 64), 0), ((4096,), None), ((33, 70), None),
                                        ((5, 7, 300), 2), ((300, 5, 7), 0), ((1, 2048), 1), ((2048, 1), 0)],
                         ids=str)
def test_sum(shape, axis):
    x = rand(shape)
    run_and_check(lambda x: jnp.sum(x, axis=axis), lambda x: np.sum(x.astype(np.float64), axis=axis), x,
                  rtol=1e-5, atol=1e-4, vectorized=shape[-1] >= 8 and np.prod(shape) >= 1024)


@pytest.mark.parametrize("op", ["max", "min", "prod"])
def test_other_reductions(op):
    x = rand((50, 80), np.float32, 0.9, 1.1)
    run_and_check(lambda x: getattr(jnp, op)(x, axis=1), lambda x: getattr(np, op)(x, axis=1), x, rtol=1e-5)


def test_argmax_and_int_reductions():
    x = rand((60, 70))
    np.testing.assert_array_equal(np.asarray(jaxc.jit(lambda x: jnp.argmax(x, axis=1))(x)), np.argmax(x, axis=1))
    i = rand((60, 70), np.int32, -100, 100)
    run_and_check(lambda i: jnp.sum(i, axis=0), lambda i: np.sum(i, axis=0), i)


@pytest.mark.parametrize("shape", [(60, 70), (3, 5, 1000), (4097,), (2, 65536 + 5), (7, 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8])
def test_arg_reductions_along_the_last_axis(shape, dtype):
    """argmax/argmin along the last axis are a row max (min) and then a
    reduction to the first index that holds it (fused per row, split into
    partial results: the indices are a constant input up to IOTA_MAX, the
    loop index beyond). Ties keep the first index, a NaN wins (the first
    one), -0.0 and 0.0 tie, as NumPy and JAX do."""
    rng = np.random.default_rng(0)
    if np.issubdtype(dtype, np.floating):
        x = rng.integers(-3, 4, shape).astype(dtype)  # many ties
        x.reshape(-1, shape[-1])[::3, shape[-1] // 2] = np.nan
        x.reshape(-1, shape[-1])[1::3, -1] = np.nan
        x.reshape(-1, shape[-1])[2::5, :2] = [-0.0, 0.0][:shape[-1]]
    else:
        x = rng.integers(0, 5, shape).astype(dtype)
    for ours, theirs in ((jnp.argmax, np.argmax), (jnp.argmin, np.argmin)):
        got = np.asarray(jaxc.jit(lambda v: ours(v, axis=-1))(x))
        np.testing.assert_array_equal(got, theirs(x, axis=-1), err_msg=ours.__name__)


def test_isfinite_in_vectorized_kernels():
    """is_finite in a 2-D scheduled kernel (and cholesky 256, which checks its
    result with it): math.isfinite's LLVM lowering took no 2-D vector."""
    x = np.tile(np.array([1, np.inf, -np.inf, np.nan, -0.0, 3e38], np.float32), (64, 100))
    np.testing.assert_array_equal(np.asarray(jaxc.jit(lambda v: jnp.where(jnp.isfinite(v), v, 0.0))(x)),
                                  np.where(np.isfinite(x), x, 0.0))
    a = rand((256, 256))
    s = a @ a.T + 256 * np.eye(256, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(jaxc.jit(jnp.linalg.cholesky)(s)), np.linalg.cholesky(s),
                               rtol=1e-4, atol=1e-4)


def test_softmax_rows():
    x = rand((300, 257))

    def softmax(m):
        return lambda x: m.exp(x - x.max(1, keepdims=True)) / m.exp(x - x.max(1, keepdims=True)).sum(1, keepdims=True)

    run_and_check(softmax(jnp), softmax(np), x, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("rows", [1, 2, 3])
def test_row_group_with_several_results_of_one_row(rows):
    """A row group whose producers are also results (e, x - m) makes a forall
    with several results; with one row, canonicalization folds the loop away
    and (MLIR 22.1.8) paired its results with the inserts in their order,
    which fusion leaves reversed: one row gave e*2 as x - m before
    `order_parallel_inserts`."""
    x = rand((rows, 1024))

    def f(m):
        def g(x):
            e = m.exp(x - x.max(1, keepdims=True))
            return e / e.sum(1, keepdims=True), e * 2, x - x.max(1, keepdims=True)
        return g

    got = jaxc.jit(f(jnp))(x)
    for g, w in zip(got, f(np)(x.astype(np.float64))):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-5, atol=1e-6)


def test_parallel_inserts_are_put_in_the_order_of_the_shared_outputs():
    from mlir import ir

    from jaxc.dialect import make_context
    from jaxc.passes import pipeline
    from jaxc.passes.schedule import order_parallel_inserts
    module = ir.Module.parse("""
      func.func @f(%x: tensor<4xi8>, %y: tensor<4xi32>, %z: tensor<4xi32>, %u: tensor<4xi8>, %v: tensor<4xi32>,
                   %w: tensor<4xi32>) -> (tensor<4xi8>, tensor<4xi32>, tensor<4xi32>) {
        %r:3 = scf.forall (%i) in (1) shared_outs(%a = %x, %b = %y, %c = %z) -> (tensor<4xi8>, tensor<4xi32>, tensor<4xi32>) {
          scf.forall.in_parallel {
            tensor.parallel_insert_slice %w into %c[0] [4] [1] : tensor<4xi32> into tensor<4xi32>
            tensor.parallel_insert_slice %u into %a[0] [4] [1] : tensor<4xi8> into tensor<4xi8>
            tensor.parallel_insert_slice %v into %b[0] [4] [1] : tensor<4xi32> into tensor<4xi32>
          }
        }
        return %r#0, %r#1, %r#2 : tensor<4xi8>, tensor<4xi32>, tensor<4xi32>
      }""", make_context())
    order_parallel_inserts(module.operation)
    assert [line.split()[1] for line in str(module).splitlines() if "parallel_insert_slice" in line] == \
        ["%arg3", "%arg4", "%arg5"]  # u, v, w
    pipeline.build_pass_manager(pipeline.parse_pipeline("builtin.module(canonicalize)"),
                                module.context).run(module.operation)
    assert "return %arg3, %arg4, %arg5 :" in str(module)


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.float64])
def test_rows_taken_by_index_are_read_as_vectors(dtype):
    """x[idx] of whole rows stays 2-D: each row is read as vectors (no
    vector.gather); take_along_axis, which reads a position loaded per
    element, is flattened and gathered. Both against NumPy, with rows that
    do not divide the tiles."""
    x = rand((300, 203), dtype, -100, 100)
    idx = rand((1000,), np.int32, 0, 300)
    run_and_check(lambda x, i: x[i], lambda x, i: x[i], x, idx)
    text = scheduled_text(lambda x, i: x[i], x, idx)
    assert "vector.gather" not in text and "vector.transfer_read %arg0" in text
    along = rand((300, 50), np.int32, 0, 203)
    run_and_check(lambda x, i: jnp.take_along_axis(x, i, 1), lambda x, i: np.take_along_axis(x, i, 1), x, along)
    assert "vector.gather" in scheduled_text(lambda x, i: jnp.take_along_axis(x, i, 1), x, along)


def test_normalize_columns():
    x = rand((1000, 100))
    run_and_check(lambda x: (x - x.mean(0)) / x.std(0),
                  lambda x: (x - x.mean(0, dtype=np.float64)) / x.std(0, dtype=np.float64), x, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape,axis", [((10001, 100), 0), ((3, 4001, 37), 1), ((60000, 9), 0),
                                        ((5, 7001, 24), (0, 1)), ((20000, 3), 0)])
def test_column_reductions_split_over_threads(shape, axis):
    """Column reductions with work enough (`Kernel.threads`) are split over the threads:
    by the outer loop where it is parallel, else by rows into per-thread
    partials; odd row counts, a 3-wide row (not vectorized) and two reduced
    outer loops included."""
    x = rand(shape)
    reduced = x.size // np.sum(np.zeros(shape), axis=axis).size
    # f32 sums of `reduced` terms in [-3, 3) one after another (as XLA and NumPy add columns):
    # rounding grows with the count; a dropped or repeated row would be off by about 1
    run_and_check(lambda x: jnp.sum(x, axis=axis), lambda x: np.sum(x.astype(np.float64), axis=axis), x,
                  rtol=1e-5, atol=1e-6 * reduced, vectorized=shape[-1] >= 8)
    run_and_check(lambda x: jnp.max(x, axis=axis), lambda x: np.max(x, axis=axis), x, vectorized=shape[-1] >= 8)
    if host.target().threads > 1 and shape[-1] >= 8:
        assert "scf.forall" in scheduled_text(lambda x: jnp.sum(x, axis=axis), x)
    i = rand(shape, np.int32, -100, 100)
    run_and_check(lambda i: jnp.sum(i, axis=axis), lambda i: np.sum(i, axis=axis), i, vectorized=shape[-1] >= 8)


@pytest.mark.parametrize("shape,axis", [((1000, 1030), 0), ((70, 2, 1024), 0), ((37, 600), 0),
                                        ((4099, 257), 0), ((2, 5000), 0)], ids=str)
def test_column_sums_of_wide_rows_go_through_row_blocks(shape, axis):
    """Rows of 1 KiB or more are summed in blocks of ROW_BLOCK rows (row and
    column counts that do not divide the blocks or the vectors, fewer rows
    than a block, a 3-d input). The schedule itself: lit, jaxc-schedule.mlir."""
    x = rand(shape)
    reduced = x.size // np.sum(np.zeros(shape), axis=axis).size
    run_and_check(lambda x: jnp.sum(x, axis=axis), lambda x: np.sum(x.astype(np.float64), axis=axis), x,
                  rtol=1e-5, atol=1e-6 * reduced)
    run_and_check(lambda x: jnp.max(x, axis=axis), lambda x: np.max(x, axis=axis), x)
    i = rand(shape, np.int32, -100, 100)
    run_and_check(lambda i: jnp.sum(i, axis=axis), lambda i: np.sum(i, axis=axis), i)


@pytest.mark.parametrize("op", ["sum", "max", "min", "prod"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_horizontal_step_of_row_reductions_is_one_tree(op, dtype):
    """The lanes of a row's partial results are combined by one
    vector.reduction (a tree), float sums and products reassociated, and the
    rows still match NumPy."""
    x = rand((300, 1000), dtype, 0.99 if op == "prod" else -100, 1.01 if op == "prod" else 100)
    f = lambda x: getattr(jnp, op)(x, axis=1)  # noqa: E731
    # a sum of 1000 terms in [-100, 100) is rounded at each step: absolute bound
    eps = 1e-6 if dtype == np.float32 else 1e-14
    run_and_check(f, lambda x: getattr(np, op)(x.astype(np.float64) if x.dtype.kind == "f" else x, axis=1), x,
                  rtol=10 * eps, atol=eps * 1000 * 100 if op == "sum" else 0)
    loops = jaxc.jit(f).lower(x).as_text(stage="loops")
    assert "vector.multi_reduction" not in loops and "vector.reduction <" in loops
    assert ("fastmath<reassoc>" in loops) == (op in ("sum", "prod") and dtype != np.int32)


def test_layer_norm_is_one_row_group():
    """(x - mean) / std over rows: the keepdims reshapes are expand_shape ops
    that fusion folds, so all of it is one loop over rows (no tensor.reshape,
    one scf.forall), as softmax is."""
    x = rand((512, 300))

    def layer_norm(m):
        return lambda x: (x - x.mean(1, keepdims=True)) / x.std(1, keepdims=True)

    run_and_check(layer_norm(jnp), lambda x: layer_norm(np)(x.astype(np.float64)), x, rtol=1e-4, atol=1e-5)
    text = scheduled_text(layer_norm(jnp), x)
    assert "tensor.reshape" not in text
    assert text.count("scf.forall (") == (1 if host.target().threads > 1 else 0)


def test_full_sum_is_accurate():
    """f32 sum of 2^22 standard normals within 1e-3 relative of float64 (and far
    better than one running f32 sum): the W-lane partial sums of the row schedule."""
    x = np.random.default_rng(1).standard_normal((2048, 2048)).astype(np.float32) + 0.5
    got = float(jaxc.jit(jnp.sum)(x))
    exact = float(np.sum(x.astype(np.float64)))
    assert abs(got - exact) / abs(exact) < 1e-5
    assert "scf.forall" in scheduled_text(jnp.sum, x) or host.target().threads == 1


@pytest.mark.parametrize("layout", ["ab", "aTb", "abT"])
@pytest.mark.parametrize("m, a_panels", [(96, None), (128, "tensor<32x80x4xf32>")])
def test_matmul_with_panels_packed(layout, m, a_panels):
    """Register tiles that divide the sizes: B is copied into contiguous NR-wide
    panels (one vectorized copy, also straight from Bᵀ), and A into MR-row
    panels when one k step of a panel fits a cache line exactly (4 rows of
    f32: 16 bytes; not 6 rows: 24 bytes); the product is a 5-loop kernel,
    checked against NumPy for every layout."""
    k, n = 80, 64
    a, b, f, reference = product_in_layout(layout, m, k, n)
    text = scheduled_text(f, a, b)
    assert "tensor<4x80x16xf32>" in text  # B as 4 panels of 80 k-rows x 16 lanes
    if a_panels:  # 128 rows: 4 x 16 tiles, A as 32 panels of 80 k-rows x 4 rows
        assert a_panels in text
    else:  # 96 rows: 6 x 16 tiles, A read in place as (16, 6, 80) or (80, 16, 6)
        assert ("tensor<80x16x6xf32>" if layout == "aTb" else "tensor<16x6x80xf32>") in text
        assert "x80x6xf32>" not in text
    assert "vector.contract" in text and "linalg.transpose" not in text  # the copies are vectorized
    run_and_check(f, reference, a, b, rtol=1e-4, atol=1e-4)


def test_code_size_stays_small():
    """No kernel becomes one giant vector that full unrolling explodes (a fused
    fill vectorized whole made a 512² matmul 1.3 MB of loops and 4 s of LLVM)."""
    a = rand((512, 512))
    for stage, limit in (("loops", 60_000), ("llvm", 120_000)):
        assert len(jaxc.jit(lambda a, b: a @ b).lower(a, a).as_text(stage=stage)) < limit, stage


def _conv_reference(x, w, strides, padding, lhs_dilation=(1, 1), rhs_dilation=(1, 1), groups=1):
    """NCHW x OIHW -> NCHW in float64, by loops over the window (NumPy only)."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    if any(d > 1 for d in lhs_dilation):
        n, c, h, wd = x.shape
        grown = np.zeros((n, c, (h - 1) * lhs_dilation[0] + 1, (wd - 1) * lhs_dilation[1] + 1))
        grown[:, :, ::lhs_dilation[0], ::lhs_dilation[1]] = x
        x = grown
    x = np.pad(x, ((0, 0), (0, 0), padding[0], padding[1]))
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    eh, ew = (kh - 1) * rhs_dilation[0] + 1, (kw - 1) * rhs_dilation[1] + 1
    oh, ow = (h - eh) // strides[0] + 1, (wd - ew) // strides[1] + 1
    out = np.zeros((n, o, oh, ow))
    per_group = o // groups
    for g in range(groups):
        xs = x[:, g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                window = xs[:, :, i * rhs_dilation[0]:i * rhs_dilation[0] + strides[0] * (oh - 1) + 1:strides[0],
                            j * rhs_dilation[1]:j * rhs_dilation[1] + strides[1] * (ow - 1) + 1:strides[1]]
                out[:, g * per_group:(g + 1) * per_group] += np.einsum(
                    "nchw,oc->nohw", window, w[g * per_group:(g + 1) * per_group, :, i, j])
    return out


@pytest.mark.parametrize("case", [
    dict(strides=(1, 1), padding=((1, 1), (1, 1))),
    dict(strides=(2, 1), padding=((0, 1), (2, 0))),
    dict(strides=(1, 1), padding=((0, 0), (0, 0)), rhs_dilation=(2, 1)),
    dict(strides=(1, 2), padding=((1, 1), (1, 1)), lhs_dilation=(2, 1)),
])
def test_convolution_as_a_packed_matrix_product(case):
    """A convolution big enough (>= 64k multiply-adds) becomes a copy of its
    windows (patches), a contraction with A and B packed, and a transpose
    into NCHW (im2col, schedules/convolution.py): strides, padding and both
    dilations, against a float64 loop over the window."""
    x, w = rand((6, 5, 11, 9)), rand((12, 5, 3, 2))
    f = lambda x, w: lax.conv_general_dilated(  # noqa: E731
        x, w, case["strides"], case["padding"], lhs_dilation=case.get("lhs_dilation"),
        rhs_dilation=case.get("rhs_dilation"))
    text = scheduled_text(f, x, w)
    assert "tensor<30x" in text  # the patches matrix: K = 5 x 3 x 2 = 30 rows
    assert "vector.contract" in text  # the product's register tiles
    run_and_check(f, lambda x, w: _conv_reference(x, w, **case), x, w, rtol=1e-4, atol=1e-4)
    assert "tensor<30x" not in scheduled_text(f, x[:1, :, :4, :4], w)  # small: direct loops


def test_convolution_with_feature_groups_keeps_its_loops():
    """Feature groups index the lhs by the output feature: no im2col, the direct
    loops, still right."""
    x, w = rand((6, 8, 10, 10)), rand((16, 4, 3, 3))
    f = lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", feature_group_count=2)  # noqa: E731
    assert "tensor<36x" not in scheduled_text(f, x, w)  # no patches matrix (K would be 4 x 3 x 3)
    run_and_check(f, lambda x, w: _conv_reference(x, w, (1, 1), ((1, 1), (1, 1)), groups=2), x, w,
                  rtol=1e-4, atol=1e-4, vectorized=False)


def test_convolution_nhwc_layout_through_im2col():
    """NHWC x HWIO -> NHWC: the patches are M x K with the channels innermost
    (the copy reads and writes in order), the HWIO kernel is already K x N
    and the result already NHWC; against the NCHW reference, transposed."""
    x, w = rand((4, 9, 9, 6)), rand((3, 3, 6, 10))
    dn = ("NHWC", "HWIO", "NHWC")
    f = lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=dn)  # noqa: E731
    text = scheduled_text(f, x, w)
    assert "-> tensor<4x9x9x3x3x6xf32>" in text  # patches[n, y, x, i, j, c]
    assert "tensor<4x9x9x3x3x6xf32> into tensor<324x54xf32>" in text  # M x K
    assert "tensor.collapse_shape %arg1 [[0, 1, 2], [3]] : tensor<3x3x6x10xf32> into tensor<54x10xf32>" in text
    reference = lambda x, w: _conv_reference(x.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1), (1, 1),  # noqa: E731
                                             ((1, 1), (1, 1))).transpose(0, 2, 3, 1)
    run_and_check(f, reference, x, w, rtol=1e-4, atol=1e-4)


def test_convolution_kernel_gradient_through_im2col():
    """The kernel gradient of sum(conv(x, w)²) is a convolution of x with the
    cotangent 2·y, whose elementwise chain fusion puts in its body: it is split
    back out (`unfuse_rhs`), and the convolution becomes a packed contraction
    like the forward one (two contractions in the program)."""
    x, w = rand((4, 6, 8, 8)), rand((8, 6, 3, 3))
    loss = lambda x, w: jnp.sum(lax.conv_general_dilated(x, w, (1, 1), "SAME") ** 2)  # noqa: E731
    grad_w = jaxc.grad(loss, argnums=1)
    text = scheduled_text(grad_w, x, w)
    assert text.count("vector.contract") >= 2
    # its patches: M x K (rows c, i, j of the kernel; sums over n, y, x) with the
    # image row innermost, where x is contiguous (not K x M with j innermost)
    assert "tensor<6x3x3x4x8x8xf32>" in text and "tensor<4x8x8x6x3x3xf32>" not in text

    def reference(x, w):
        y = _conv_reference(x, w, (1, 1), ((1, 1), (1, 1)))
        xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
        out = np.zeros(w.shape)
        for i in range(3):
            for j in range(3):
                out[:, :, i, j] = 2 * np.einsum("nohw,nchw->oc", y, xp[:, :, i:i + 8, j:j + 8])
        return out
    run_and_check(grad_w, reference, x, w, rtol=1e-4, atol=1e-3)


# ---------------------------------------------------------------- refused plans

def _mlp_loss(w1, w2, x):
    return jnp.sum(jnp.tanh(x @ w1) @ w2)


def _refusing(monkeypatch, refuse):
    """Make the transform interpreter refuse the scripts `refuse(text)` picks;
    returns the list of scripts applied."""
    from jaxc.passes import schedule
    applied = []
    real = schedule._apply

    def apply(module, text):
        applied.append(text)
        if refuse(text):
            raise RuntimeError("refused (test)")
        real(module, text)

    monkeypatch.setattr(schedule, "_apply", apply)
    return applied


def test_refused_batched_step_falls_back_to_one_kernel_at_a_time(monkeypatch):
    """Kernels are vectorized in batches; when a batched step is refused the
    module is restored and scheduled kernel by kernel, which finds the kernel."""
    from jaxc.passes.schedules.script import cleanup_script
    applied = _refusing(monkeypatch, lambda text: text == cleanup_script())
    w1, w2, x = rand((64, 32)) * 0.1, rand((32, 16)), rand((48, 64))  # tanh unsaturated: no f32 cancellation
    f = jaxc.grad(_mlp_loss, argnums=(0, 1))
    text = jaxc.jit(f).lower(w1, w2, x).as_text(stage="scheduled")
    assert "vector.contract" in text  # every kernel scheduled, one at a time
    assert applied.count(cleanup_script()) == 1
    got = jaxc.jit(f)(w1, w2, x)
    jaxc.config.update("jax_enable_x64", True)
    try:
        want = jaxc.jit(f)(*(np.asarray(a, np.float64) for a in (w1, w2, x)))
    finally:
        jaxc.config.update("jax_enable_x64", False)
    for g, r in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(r), rtol=1e-4, atol=1e-4)


def test_refused_kernel_stays_scalar_and_right(monkeypatch):
    """A kernel whose tiling is refused stays unscheduled (scalar loops); the
    others are still vectorized and the result is right."""
    def contraction_tiling(text):
        return "vector" not in text and "get_producer_of_operand" in text  # packs A and B

    applied = _refusing(monkeypatch, contraction_tiling)
    a, b = rand((96, 64)), rand((64, 80))
    f = lambda a, b: jnp.tanh(a @ b) * 2.0  # noqa: E731
    text = jaxc.jit(f).lower(a, b).as_text(stage="scheduled")
    assert sum(map(contraction_tiling, applied)) == 1  # refused once, then left out
    assert "vector.contract" not in text and "math.tanh" in text and "vector<" in text
    want = np.tanh(np.asarray(a, np.float64) @ np.asarray(b, np.float64)) * 2
    np.testing.assert_allclose(np.asarray(jaxc.jit(f)(a, b)), want, rtol=1e-4, atol=1e-4)


def _loops_and_lane_use(module_text: str) -> list[tuple[bool, bool]]:
    """(annotated, inserts or extracts a lane at its own induction variable)
    for each scf.for of a `loops`-stage module."""
    from mlir import ir

    from jaxc.dialect import make_context
    found = []

    def visit(op):
        if op.name == "scf.for":
            body = op.regions[0].blocks[0]
            iv = body.arguments[0]
            lanes = any(inner.operation.name in ("vector.insert", "vector.extract")
                        and any(operand == iv for operand in inner.operation.operands)
                        for inner in body.operations)
            found.append(("loop_annotation" in op.attributes, lanes))
        return ir.WalkResult.ADVANCE

    ir.Module.parse(module_text, make_context()).operation.walk(visit)
    return found


def test_llvm_unrolls_only_the_loops_over_vector_lanes():
    """`jaxc-keep-loops-rolled` (`loops` stage): a product's loops reach LLVM
    IR as ``llvm.loop.unroll.disable``. A column sum split over the threads
    by rows has no lane loops left (`jaxc-thread-major-partials` makes each
    thread's partial sums contiguous: plain vector loads and stores), so
    every loop is annotated, and its result is still right. Lane loops
    (vector lanes inserted at the loop index, left to LLVM to unroll):
    lit, jaxc-keep-loops-rolled.mlir."""
    a, b = rand((96, 80), np.float32), rand((80, 72), np.float32)
    product = jaxc.jit(lambda a, b: a @ b).lower(a, b)
    assert "llvm.loop.unroll.disable" in product.as_text(stage="llvmir")
    loops = _loops_and_lane_use(product.as_text(stage="loops"))
    assert loops and all(annotated for annotated, _ in loops)
    np.testing.assert_allclose(np.asarray(jaxc.jit(lambda a, b: a @ b)(a, b)),
                               a.astype(np.float64) @ b, rtol=1e-5, atol=1e-4)

    x = rand((8192, 96), np.float32)
    loops = _loops_and_lane_use(jaxc.jit(lambda x: x.sum(0)).lower(x).as_text(stage="loops"))
    assert loops and all(annotated and not lanes for annotated, lanes in loops)
    np.testing.assert_allclose(np.asarray(jaxc.jit(lambda x: x.sum(0))(x)), x.astype(np.float64).sum(0),
                               rtol=1e-5, atol=1e-3)


ROW_GROUP_MODULE = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @f(%r: tensor<64x64xf32>, %v: tensor<64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %w = linalg.generic {indexing_maps = [#t, #col, #row], iterator_types = ["parallel", "reduction"]}
      ins(%r, %v : tensor<64x64xf32>, tensor<64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %acc, %p : f32
    linalg.yield %q : f32
  } -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %out = linalg.generic {indexing_maps = [#id, #row, #READ, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r, %v, %w : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>) outs(%e2 : tensor<64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %p = arith.mulf %b, %c : f32
    %d = arith.subf %a, %p : f32
    linalg.yield %d : f32
  } -> tensor<64x64xf32>
  return %out : tensor<64x64xf32>
}
"""


@pytest.mark.parametrize("read, grouped", [("row", True), ("col", False)])
def test_row_groups_take_only_producers_read_at_the_row(read, grouped):
    """w_j = sum_i v_i r_ij read by r - v[:, None] * w[None, :] (a Householder
    step) is one value per column: on a square matrix it has a row's shape,
    but fused into the loop over rows it gave wrong results (a QR of 64 x 64
    off by 1e8, eigh's eigenvalues by 5). Only a producer read at the row
    joins the group."""
    from mlir import ir

    from jaxc.dialect import make_context
    from jaxc.passes.ir import ops_named
    from jaxc.passes.schedule import kernels_of
    from jaxc.passes.schedules import rows

    module = ir.Module.parse(ROW_GROUP_MODULE.replace("#READ", f"#{read}"), make_context())
    with module.context:
        kernels = kernels_of(ops_named(module.operation, ["func.func"])[0])
        found = rows.groups(kernels)
    assert [[k.ident for k in group] for group in found] == ([[0, 1]] if grouped else [])
