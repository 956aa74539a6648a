"""jaxc.conv_general_dilated on the CPU against a NumPy reference of
lax.conv_general_dilated written from the StableHLO definition: groups split
lhs and rhs into contiguous blocks and concatenate the results along the
output feature dimension; the base case dilates and pads the lhs, then sums
window * kernel at each output position."""
import numpy as np
import pytest

from jaxc.runtime import compile_module

DTYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i8": np.int8}


def _conv_base(lhs, rhs, strides, padding, lhs_dilation, rhs_dilation, out_dtype):
    """lhs (N, C, S...), rhs (O, C, K...), one group -> (N, O, Y...)."""
    n_spatial = lhs.ndim - 2
    # lhs dilation: lhs_dilation - 1 zeros between elements.
    dilated_shape = list(lhs.shape[:2]) + [
        0 if n == 0 else (n - 1) * d + 1 for n, d in zip(lhs.shape[2:], lhs_dilation)]
    x = np.zeros(dilated_shape, out_dtype)
    x[(slice(None), slice(None)) + tuple(slice(None, None, d) for d in lhs_dilation)] = lhs
    # Edge padding: positive pads with zeros, negative crops.
    for i in range(n_spatial):
        low, high = padding[i]
        axis = 2 + i
        widths = [(0, 0)] * x.ndim
        widths[axis] = (max(low, 0), max(high, 0))
        x = np.pad(x, widths)
        stop = x.shape[axis] - max(-high, 0)
        x = x[(slice(None),) * axis + (slice(max(-low, 0), max(stop, max(-low, 0))),)]
    kernel = rhs.shape[2:]
    window = [0 if k == 0 else (k - 1) * d + 1 for k, d in zip(kernel, rhs_dilation)]
    out_spatial = [0 if p < w else (p - w) // s + 1
                   for p, w, s in zip(x.shape[2:], window, strides)]
    out = np.zeros([lhs.shape[0], rhs.shape[0]] + out_spatial, out_dtype)
    for pos in np.ndindex(*out_spatial):
        taps = tuple(slice(y * s, y * s + w, d)
                     for y, s, w, d in zip(pos, strides, window, rhs_dilation))
        patch = x[(slice(None), slice(None)) + taps]  # (N, C, K...)
        acc = np.zeros((lhs.shape[0], rhs.shape[0]), out_dtype)
        for n in range(lhs.shape[0]):
            for o in range(rhs.shape[0]):
                acc[n, o] = np.sum(patch[n] * rhs[o], dtype=out_dtype)
        out[(slice(None), slice(None)) + pos] = acc
    return out


def _conv_canonical(lhs, rhs, strides, padding, lhs_dilation, rhs_dilation, groups,
                    batch_groups, out_dtype):
    if batch_groups > 1:
        parts = [_conv_canonical(l, r, strides, padding, lhs_dilation, rhs_dilation, 1, 1,
                                 out_dtype)
                 for l, r in zip(np.split(lhs, batch_groups, axis=0),
                                 np.split(rhs, batch_groups, axis=0))]
        return np.concatenate(parts, axis=1)
    if groups > 1:
        parts = [_conv_canonical(l, r, strides, padding, lhs_dilation, rhs_dilation, 1, 1,
                                 out_dtype)
                 for l, r in zip(np.split(lhs, groups, axis=1), np.split(rhs, groups, axis=0))]
        return np.concatenate(parts, axis=1)
    return _conv_base(lhs, rhs, strides, padding, lhs_dilation, rhs_dilation, out_dtype)


def reference(lhs, rhs, strides, padding, lhs_dilation, rhs_dilation, lhs_spec, rhs_spec,
              out_spec, groups, batch_groups, out_dtype):
    """lax.conv_general_dilated; specs are ConvDimensionNumbers index lists."""
    lhs_c = np.transpose(lhs, lhs_spec).astype(out_dtype)
    rhs_c = np.transpose(rhs, rhs_spec).astype(out_dtype)
    out = _conv_canonical(lhs_c, rhs_c, strides, padding, lhs_dilation, rhs_dilation, groups,
                          batch_groups, out_dtype)
    return np.transpose(out, np.argsort(out_spec))


def result_shape(lhs_shape, rhs_shape, strides, padding, lhs_dilation, rhs_dilation, lhs_spec,
                 rhs_spec, out_spec, batch_groups):
    shape = [0] * len(lhs_shape)
    shape[out_spec[0]] = lhs_shape[lhs_spec[0]] // batch_groups
    shape[out_spec[1]] = rhs_shape[rhs_spec[0]]
    for i in range(len(lhs_shape) - 2):
        n, k = lhs_shape[lhs_spec[2 + i]], rhs_shape[rhs_spec[2 + i]]
        dilated = 0 if n == 0 else (n - 1) * lhs_dilation[i] + 1
        padded = dilated + padding[i][0] + padding[i][1]
        window = 0 if k == 0 else (k - 1) * rhs_dilation[i] + 1
        shape[out_spec[2 + i]] = 0 if padded < window else (padded - window) // strides[i] + 1
    return shape


def _tensor(shape, element):
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def _ints(values):
    return "[" + ", ".join(str(v) for v in values) + "]"


def run_case(lhs_shape, rhs_shape, *, strides=None, padding=None, lhs_dilation=None,
             rhs_dilation=None, lhs_spec=None, rhs_spec=None, out_spec=None, groups=1,
             batch_groups=1, element="f32", out_element=None, seed=0, arrays=None):
    rank = len(lhs_shape)
    n_spatial = rank - 2
    strides = strides or [1] * n_spatial
    padding = padding or [(0, 0)] * n_spatial
    lhs_dilation = lhs_dilation or [1] * n_spatial
    rhs_dilation = rhs_dilation or [1] * n_spatial
    lhs_spec = lhs_spec or list(range(rank))
    rhs_spec = rhs_spec or list(range(rank))
    out_spec = out_spec or list(range(rank))
    out_element = out_element or element
    out_shape = result_shape(lhs_shape, rhs_shape, strides, padding, lhs_dilation, rhs_dilation,
                             lhs_spec, rhs_spec, out_spec, batch_groups)
    lt, rt, ot = (_tensor(lhs_shape, element), _tensor(rhs_shape, element),
                  _tensor(out_shape, out_element))
    text = (f"func.func @f(%x: {lt}, %w: {rt}) -> {ot} {{\n"
            f"  %y = jaxc.conv_general_dilated %x, %w, window_strides = {_ints(strides)}, "
            f"padding = {_ints([p for pair in padding for p in pair])}, "
            f"lhs_dilation = {_ints(lhs_dilation)}, rhs_dilation = {_ints(rhs_dilation)}, "
            f"lhs_spec = {_ints(lhs_spec)}, rhs_spec = {_ints(rhs_spec)}, "
            f"out_spec = {_ints(out_spec)}, feature_group_count = {groups}, "
            f"batch_group_count = {batch_groups} : ({lt}, {rt}) -> {ot}\n"
            f"  return %y : {ot}\n}}\n")
    rng = np.random.default_rng(seed)
    in_dtype, out_dtype = DTYPES[element], DTYPES[out_element]
    if arrays is not None:
        lhs, rhs = (np.asarray(a, in_dtype).reshape(shape)
                    for a, shape in zip(arrays, (lhs_shape, rhs_shape)))
    elif np.issubdtype(in_dtype, np.integer):
        lo, hi = (-128, 128) if in_dtype == np.int8 else (-20, 21)
        lhs = rng.integers(lo, hi, size=lhs_shape).astype(in_dtype)
        rhs = rng.integers(lo, hi, size=rhs_shape).astype(in_dtype)
    else:
        lhs = rng.standard_normal(lhs_shape).astype(in_dtype)
        rhs = rng.standard_normal(rhs_shape).astype(in_dtype)
    (got,) = compile_module(text)["f"](lhs, rhs)
    ref_dtype = np.float64 if np.issubdtype(out_dtype, np.floating) else out_dtype
    want = reference(lhs, rhs, strides, padding, lhs_dilation, rhs_dilation, lhs_spec, rhs_spec,
                     out_spec, groups, batch_groups, ref_dtype)
    assert list(want.shape) == out_shape
    assert got.dtype == out_dtype and list(got.shape) == out_shape
    if np.issubdtype(out_dtype, np.integer):
        np.testing.assert_array_equal(got, want)
    else:
        rtol = 1e-5 if out_dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)
    return got, want


NCHW = dict(lhs_spec=[0, 1, 2, 3], rhs_spec=[0, 1, 2, 3], out_spec=[0, 1, 2, 3])
NHWC = dict(lhs_spec=[0, 3, 1, 2], rhs_spec=[3, 2, 0, 1], out_spec=[0, 3, 1, 2])

CASES = {
    "nchw_2d": dict(lhs_shape=[2, 3, 6, 5], rhs_shape=[4, 3, 3, 2], **NCHW),
    "nhwc_hwio_2d": dict(lhs_shape=[2, 6, 5, 3], rhs_shape=[3, 2, 3, 4], **NHWC),
    "nhwc_strided_padded": dict(lhs_shape=[1, 7, 8, 2], rhs_shape=[3, 3, 2, 3], strides=[2, 3],
                                padding=[(1, 1), (2, 0)], **NHWC),
    "mixed_specs": dict(lhs_shape=[3, 5, 2, 4], rhs_shape=[2, 4, 3, 3],
                        lhs_spec=[2, 0, 3, 1], rhs_spec=[1, 3, 0, 2], out_spec=[1, 3, 2, 0]),
    "1d": dict(lhs_shape=[2, 3, 9], rhs_shape=[4, 3, 3]),
    "1d_nwc": dict(lhs_shape=[2, 9, 3], rhs_shape=[3, 3, 4], lhs_spec=[0, 2, 1],
                   rhs_spec=[2, 1, 0], out_spec=[0, 2, 1]),
    "strides": dict(lhs_shape=[1, 2, 9, 8], rhs_shape=[3, 2, 3, 3], strides=[2, 3]),
    "padding": dict(lhs_shape=[1, 2, 5, 5], rhs_shape=[2, 2, 3, 3], padding=[(1, 2), (0, 3)]),
    "negative_padding": dict(lhs_shape=[1, 2, 7, 8], rhs_shape=[2, 2, 2, 3],
                             padding=[(-1, -2), (2, -1)]),
    "negative_padding_dilated": dict(lhs_shape=[1, 1, 5], rhs_shape=[1, 1, 2],
                                     padding=[(-2, -1)], lhs_dilation=[3]),
    "lhs_dilation_transposed": dict(lhs_shape=[1, 2, 4, 3], rhs_shape=[3, 2, 3, 3],
                                    lhs_dilation=[2, 3], padding=[(2, 2), (2, 2)]),
    "rhs_dilation_atrous": dict(lhs_shape=[1, 2, 9, 8], rhs_shape=[2, 2, 3, 2],
                                rhs_dilation=[2, 3]),
    "all_together": dict(lhs_shape=[2, 4, 6, 5], rhs_shape=[6, 2, 2, 3], strides=[2, 1],
                         padding=[(1, -1), (3, 0)], lhs_dilation=[2, 1], rhs_dilation=[1, 2],
                         groups=2),
    "feature_groups_2": dict(lhs_shape=[2, 4, 5, 5], rhs_shape=[6, 2, 3, 3], groups=2),
    "feature_groups_nhwc": dict(lhs_shape=[1, 5, 5, 4], rhs_shape=[3, 3, 2, 6], groups=2,
                                **NHWC),
    "depthwise": dict(lhs_shape=[2, 3, 6, 6], rhs_shape=[6, 1, 3, 3], groups=3),
    "batch_groups_2": dict(lhs_shape=[4, 2, 5], rhs_shape=[6, 2, 3], batch_groups=2),
    "batch_groups_2d": dict(lhs_shape=[4, 3, 5, 4], rhs_shape=[4, 3, 2, 2], batch_groups=2,
                            strides=[2, 1]),
    "batch_groups_equal_batch": dict(lhs_shape=[3, 2, 5], rhs_shape=[3, 2, 2], batch_groups=3),
    "f64": dict(lhs_shape=[2, 3, 6, 5], rhs_shape=[4, 3, 3, 2], element="f64",
                padding=[(1, 0), (0, 1)]),
    "int32": dict(lhs_shape=[2, 3, 6, 5], rhs_shape=[4, 3, 3, 2], element="i32",
                  strides=[1, 2], padding=[(1, 1), (-1, 1)]),
    "int32_groups": dict(lhs_shape=[1, 4, 7], rhs_shape=[4, 2, 3], element="i32", groups=2,
                         rhs_dilation=[2]),
    "i8_to_i32": dict(lhs_shape=[1, 3, 6, 6], rhs_shape=[2, 3, 3, 3], element="i8",
                      out_element="i32"),
    "f32_to_f64": dict(lhs_shape=[1, 2, 5], rhs_shape=[2, 2, 2], element="f32",
                       out_element="f64"),
    "zero_size_result": dict(lhs_shape=[1, 2, 2], rhs_shape=[3, 2, 4]),
    "zero_batch": dict(lhs_shape=[0, 2, 5], rhs_shape=[3, 2, 2]),
    "empty_kernel_window": dict(lhs_shape=[1, 2, 4], rhs_shape=[3, 2, 0]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_matches_the_reference(name):
    run_case(**CASES[name])


def test_i8_products_do_not_wrap():
    """The i8 operands are widened before multiplying: 127 * 127 * 4 fits i32 only."""
    got, _ = run_case([1, 1, 4], [1, 1, 4], element="i8", out_element="i32",
                      arrays=([127, -128, 127, -128], [127, -128, 127, -128]))
    assert got.tolist() == [[[2 * 127 * 127 + 2 * 128 * 128]]]


def test_reference_on_a_hand_computed_case():
    """The reference itself: 1-D, stride 2, lhs dilation 2, padding (1, 0)."""
    lhs = np.array([[[1.0, 2.0, 3.0]]])       # dilated: 1 0 2 0 3; padded: 0 1 0 2 0 3
    rhs = np.array([[[1.0, 10.0]]])
    out = reference(lhs, rhs, [2], [(1, 0)], [2], [1], [0, 1, 2], [0, 1, 2], [0, 1, 2], 1, 1,
                    np.float64)
    np.testing.assert_array_equal(out, [[[10.0, 20.0, 30.0]]])
