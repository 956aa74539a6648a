"""jaxc.scipy.signal's spectral functions (issue #17): stft, istft, csd and
welch against SciPy's values over their options, the istft(stft(x))
round trip, jit, grad (finite differences in float64), vmap (a Python
loop), JAX 0.10.2's results, signatures and exception types where JAX is
installed, and the errors for bad arguments."""
from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
import scipy.signal

import jaxc
import jaxc.numpy as jnp
import jaxc.scipy.signal as csig
from jaxc.test_util import check_grads

SPECTRAL = ("csd", "istft", "stft", "welch")


def _tol(dtype):
    return dict(rtol=2e-4, atol=2e-5) if np.dtype(dtype) in (np.float32, np.complex64) else \
        dict(rtol=1e-10, atol=1e-12)


def _signal(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) + np.linspace(0.0, 2.0, shape[-1])
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _assert_matches(got, want, dtype):
    """`got` (jaxc arrays) equal `want` (NumPy arrays) in shape and value;
    dtypes are jaxc's (SciPy computes in float64 when the window is)."""
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g = np.asarray(g)
        assert g.shape == w.shape, (g.shape, w.shape)
        np.testing.assert_allclose(g, w.astype(g.dtype), **_tol(dtype))


def _quiet(fn, *args, **kwargs):
    """Call with the 'complex input: two-sided' / 'nperseg too big' warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return fn(*args, **kwargs)


WELCH_OPTIONS = [
    dict(),                                                        # nperseg=None: the whole (short) signal
    dict(nperseg=8),
    dict(nperseg=8, noverlap=0, window="hamming"),
    dict(nperseg=8, noverlap=6, nfft=11, detrend="linear"),
    dict(nperseg=12, noverlap=11, detrend=False, scaling="spectrum"),  # one-sample steps: gathered segments
    dict(nperseg=7, noverlap=2, window=("tukey", 0.3), average="median"),
    dict(window=np.arange(1.0, 9.0), nfft=10, average="median", scaling="spectrum"),
    dict(nperseg=8, return_onesided=False, fs=4.0),
    dict(nperseg=8, detrend=lambda d: 2.0 * d, fs=0.5),           # elementwise: the axis order does not matter
    dict(nperseg=40),                                              # a single segment: no averaging
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_welch_and_csd_match_scipy(dtype, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    x, y = _signal((2, 40), dtype, 1), _signal((2, 40), dtype, 2)
    for options in WELCH_OPTIONS if dtype != np.complex64 else WELCH_OPTIONS[1:5] + WELCH_OPTIONS[-2:]:
        got = _quiet(csig.welch, x, **options)
        want = _quiet(scipy.signal.welch, x, **options)
        assert np.asarray(got[1]).dtype == np.finfo(dtype).dtype
        _assert_matches(got, want, dtype)
        got = _quiet(csig.csd, x, y, **options)
        want = _quiet(scipy.signal.csd, x, y, **options)
        assert np.asarray(got[1]).dtype == np.result_type(dtype, np.complex64)
        _assert_matches(got, want, dtype)


def test_welch_and_csd_axis_and_broadcasting():
    x, y = _signal((30, 3), np.float32, 3), _signal((30, 1), np.float32, 4)
    for average in ("mean", "median"):
        _assert_matches(csig.welch(x, nperseg=8, axis=0, average=average),
                        scipy.signal.welch(x, nperseg=8, axis=0, average=average), np.float32)
        _assert_matches(csig.csd(x, y, nperseg=8, axis=0, average=average),
                        scipy.signal.csd(x, y, nperseg=8, axis=0, average=average), np.float32)
    # Signals of different lengths: the shorter is zero-padded.
    a, b = _signal((2, 24), np.float32, 5), _signal((2, 30), np.float32, 6)
    _assert_matches(csig.csd(a, b, nperseg=8), scipy.signal.csd(a, b, nperseg=8), np.float32)
    _assert_matches(csig.csd(b, a, nperseg=8), scipy.signal.csd(b, a, nperseg=8), np.float32)


STFT_OPTIONS = [
    dict(nperseg=8),
    dict(nperseg=8, noverlap=6, boundary="even", padded=False),
    dict(nperseg=7, noverlap=3, boundary="odd", nfft=9),
    dict(nperseg=8, noverlap=0, boundary="constant", window="hamming", detrend="constant"),
    dict(nperseg=10, noverlap=9, boundary=None, padded=False, detrend="linear"),  # gathered segments
    dict(nperseg=8, return_onesided=False, fs=3.0, window=np.hanning(8)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_stft_matches_scipy(dtype, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    x = _signal((2, 30), dtype, 7)
    for options in STFT_OPTIONS:
        got = _quiet(csig.stft, x, **options)
        want = _quiet(scipy.signal.stft, x, **options)
        assert np.asarray(got[2]).dtype == np.result_type(dtype, np.complex64)
        _assert_matches(got, want, dtype)
    got = _quiet(csig.stft, x.T, nperseg=8, axis=0)
    _assert_matches(got, _quiet(scipy.signal.stft, x.T, nperseg=8, axis=0), dtype)
    # nperseg defaults to 256, shortened (with a warning) to the signal's length.
    with pytest.warns(UserWarning, match="nperseg=256 is greater than input_length=30"):
        got = csig.stft(x)
    _assert_matches(got, _quiet(scipy.signal.stft, x), dtype)


ISTFT_OPTIONS = [
    dict(nperseg=8),
    dict(nperseg=8, noverlap=6, nfft=12),
    dict(nperseg=7, noverlap=3),                    # odd nperseg: nfft inferred as 7 (JAX 0.10.2 raises here)
    dict(nperseg=10, noverlap=9, window="hamming"),  # scattered overlap-add
    dict(nperseg=8, window=("tukey", 0.5), boundary=False),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_istft_matches_scipy_and_inverts_stft(dtype, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    x = _signal((2, 32), dtype, 8)
    for options in ISTFT_OPTIONS:
        stft_options = {k: v for k, v in options.items() if k != "boundary"}
        if options.get("boundary") is False:
            stft_options.update(boundary=None, padded=False)
        _, _, Z = scipy.signal.stft(x, **stft_options)
        Z = Z.astype(np.result_type(dtype, np.complex64))
        got = csig.istft(Z, **options)
        want = _quiet(scipy.signal.istft, Z, **options)  # SciPy warns that the tukey ends are zero
        _assert_matches(got, want, dtype)
        # The round trip through our own stft gives the signal back.
        _, _, ours = csig.stft(x, **stft_options)
        _, back = csig.istft(ours, **options)
        n = x.shape[-1]
        if options.get("boundary") is False:  # the ends of the signal are windowed to zero
            h = options["nperseg"] // 2
            np.testing.assert_allclose(np.asarray(back)[..., h:n - h], x[..., h:n - h], **_tol(dtype))
        else:
            np.testing.assert_allclose(np.asarray(back)[..., :n], x, **_tol(dtype))


def test_istft_two_sided_complex_and_axes():
    x = _signal((3, 24), np.complex64, 9)
    _, _, Z = _quiet(csig.stft, x, nperseg=8)
    t, back = csig.istft(Z, nperseg=8, input_onesided=False)
    assert np.asarray(back).dtype == np.complex64
    np.testing.assert_allclose(np.asarray(back)[..., :24], x, rtol=1e-4, atol=1e-5)
    _assert_matches((t, back), scipy.signal.istft(np.asarray(Z), nperseg=8, input_onesided=False), np.complex64)
    # Time first, frequency last: the signal's time axis goes where the segments were.
    Zt = np.moveaxis(np.asarray(Z), (1, 2), (2, 0))  # (segments, batch, freqs)
    for options in (dict(time_axis=0, freq_axis=2), dict(time_axis=0, freq_axis=-1)):
        got = csig.istft(Zt, nperseg=8, input_onesided=False, **options)
        _assert_matches(got, scipy.signal.istft(Zt, nperseg=8, input_onesided=False, **options), np.complex64)


def test_under_jit_matches_eager():
    x, y = _signal((2, 32), np.float32, 10), _signal((2, 32), np.float32, 11)
    static = ("nperseg", "noverlap", "window", "average", "detrend")
    kwargs = dict(nperseg=8, noverlap=5, window="hann", average="median", detrend="linear")
    for got, want in ((jaxc.jit(csig.welch, static_argnames=static)(x, **kwargs), csig.welch(x, **kwargs)),
                      (jaxc.jit(csig.csd, static_argnames=static)(x, y, **kwargs), csig.csd(x, y, **kwargs))):
        _assert_matches(got, [np.asarray(w) for w in want], np.float32)
    f, t, Z = jaxc.jit(lambda s: csig.stft(s, nperseg=8))(x)
    _assert_matches((f, t, Z), scipy.signal.stft(x, nperseg=8), np.float32)
    t, back = jaxc.jit(lambda z: csig.istft(z, nperseg=8))(Z)
    np.testing.assert_allclose(np.asarray(back)[..., :32], x, rtol=1e-4, atol=1e-5)
    # A traced sampling frequency is fine; a traced segment length is not.
    f, p = jaxc.jit(lambda s, fs: csig.welch(s, fs=fs, nperseg=8))(x, np.float32(2.0))
    _assert_matches((f, p), scipy.signal.welch(x, fs=2.0, nperseg=8), np.float32)
    with pytest.raises(jaxc.errors.ConcretizationTypeError, match="nperseg"):
        jaxc.jit(lambda s, n: csig.welch(s, nperseg=n))(x, 8)


def test_welch_gradient_matches_finite_differences(x64):
    x = _signal((20,), np.float64, 12)
    weights = np.random.default_rng(13).standard_normal(5)

    def loss(signal, fs):
        return jnp.sum(csig.welch(signal, fs=fs, nperseg=8, noverlap=4, detrend="linear")[1] * weights)

    check_grads(loss, (x, 3.0), order=1, modes=("rev", "fwd"))
    check_grads(lambda s: jnp.sum(csig.welch(s, nperseg=8, average="median")[1] * weights), (x,), order=1,
                modes=("rev",))
    grad = jaxc.grad(lambda s: loss(s, 3.0))(x)
    eps = 1e-6
    numeric = [(scipy.signal.welch(x + eps * e, fs=3.0, nperseg=8, noverlap=4, detrend="linear")[1] @ weights
                - scipy.signal.welch(x - eps * e, fs=3.0, nperseg=8, noverlap=4, detrend="linear")[1] @ weights)
               / (2 * eps) for e in np.eye(20)]
    np.testing.assert_allclose(np.asarray(grad), numeric, rtol=1e-6, atol=1e-8)


def test_stft_istft_and_csd_gradients(x64):
    x, y = _signal((16,), np.float64, 14), _signal((16,), np.float64, 15)
    rng = np.random.default_rng(16)
    w_stft = rng.standard_normal((5, 5)) + 1j * rng.standard_normal((5, 5))
    check_grads(lambda s: jnp.sum(jnp.real(csig.stft(s, nperseg=8)[2] * w_stft)), (x,), order=1, modes=("rev",))
    check_grads(lambda a, b: jnp.sum(jnp.imag(csig.csd(a, b, nperseg=8)[1]) * np.arange(5.0)), (x, y), order=1,
                modes=("rev",))
    Z = scipy.signal.stft(x, nperseg=8)[2]
    check_grads(lambda z: jnp.sum(csig.istft(z, nperseg=8)[1] * np.arange(16.0)), (Z,), order=1, modes=("rev",))


def test_vmap_matches_loop():
    xs, ys = _signal((3, 24), np.float32, 17), _signal((3, 24), np.float32, 18)

    def loop(fn, *args):
        results = [fn(*a) for a in zip(*args)]
        return [np.stack([np.asarray(r[i]) for r in results]) for i in range(len(results[0]))]

    for fn, args in ((lambda s: csig.welch(s, nperseg=8, average="median"), (xs,)),
                     (lambda a, b: csig.csd(a, b, nperseg=8), (xs, ys)),
                     (lambda s: csig.stft(s, nperseg=8), (xs,))):
        batched = jaxc.vmap(fn)(*args)
        want = loop(fn, *args)
        for b, w in zip(batched, want):
            np.testing.assert_allclose(np.asarray(b), w, rtol=1e-5, atol=1e-6)
    Z = np.asarray(csig.stft(xs, nperseg=8)[2])
    batched = jaxc.vmap(lambda z: csig.istft(z, nperseg=8)[1])(Z)
    np.testing.assert_allclose(np.asarray(batched), np.stack([np.asarray(csig.istft(z, nperseg=8)[1]) for z in Z]),
                               rtol=1e-5, atol=1e-6)
    # Batched over the second axis, the time axis first.
    batched = jaxc.vmap(lambda s: csig.welch(s, nperseg=8, axis=0)[1], in_axes=1, out_axes=1)(xs.T)
    np.testing.assert_allclose(np.asarray(batched), scipy.signal.welch(xs.T, nperseg=8, axis=0)[1], rtol=2e-4,
                               atol=2e-6)


def test_edge_cases():
    # Empty signals give empty results of the input's shape.
    f, p = csig.welch(np.zeros((3, 0), np.float32))
    assert f.shape == p.shape == (3, 0) and np.asarray(p).dtype == np.float32
    with pytest.warns(UserWarning, match="nperseg=256 is greater than input_length=0"):
        f, t, Z = csig.stft(np.zeros((0,), np.float32))
    assert f.shape == t.shape == Z.shape == (0,) and np.asarray(Z).dtype == np.complex64
    f, p = csig.csd(np.zeros((3, 0), np.float32), np.ones((3, 5), np.float32))
    assert f.shape == p.shape == (3, 0) and np.asarray(p).dtype == np.complex64
    # nperseg longer than the signal: a warning and the whole signal.
    x = _signal((10,), np.float32, 19)
    with pytest.warns(UserWarning, match="nperseg=16 is greater than input_length=10, using nperseg=10"):
        got = csig.welch(x, nperseg=16)
    _assert_matches(got, _quiet(scipy.signal.welch, x, nperseg=16), np.float32)
    # Complex input: two-sided, with a warning.
    with pytest.warns(UserWarning, match="Input data is complex, switching to return_onesided=False"):
        f, p = csig.welch(x.astype(np.complex64), nperseg=4)
    assert f.shape == (4,)
    # Integers are promoted to the default float; nperseg=1 segments of one sample each.
    f, p = csig.welch(np.arange(12), nperseg=4)
    assert np.asarray(p).dtype == np.float32
    _assert_matches((f, p), scipy.signal.welch(np.arange(12.0), nperseg=4), np.float32)
    _assert_matches(csig.welch(x, nperseg=1, noverlap=0, detrend=False, window="boxcar"),
                    scipy.signal.welch(x, nperseg=1, noverlap=0, detrend=False, window="boxcar"), np.float32)
    # Steps wider than a segment (negative overlap) skip samples.
    _assert_matches(csig.stft(x, nperseg=3, noverlap=-2, boundary=None, padded=False),
                    scipy.signal.stft(x, nperseg=3, noverlap=-2, boundary=None, padded=False), np.float32)


def test_bad_arguments_raise():
    x = _signal((16,), np.float32, 20)
    cases = [
        (lambda: csig.welch(x, nperseg=8, noverlap=8), ValueError, "noverlap must be less than nperseg"),
        (lambda: csig.welch(x, nperseg=8, nfft=4), ValueError, "nfft must be greater than or equal to nperseg"),
        (lambda: csig.welch(x, nperseg=0), ValueError, "nperseg must be a positive integer"),
        (lambda: csig.welch(x, nperseg=8, scaling="psd"), ValueError, "Unknown scaling"),
        (lambda: csig.welch(x, nperseg=8, average="max"), ValueError, 'average must be "median" or "mean"'),
        (lambda: csig.welch(x, nperseg=8, detrend="quadratic"), ValueError, "Trend type"),
        (lambda: csig.welch(x, nperseg=8, detrend=True), ValueError, "Unsupported detrend type"),
        (lambda: csig.welch(x, window=np.ones((2, 4))), ValueError, "window must be 1-D"),
        (lambda: csig.welch(x, window=np.ones(20)), ValueError, "window is longer than input signal"),
        (lambda: csig.welch(x, window=np.ones(8), nperseg=4), ValueError, "different from length of window"),
        (lambda: csig.welch(x, axis=1), ValueError, "out of bounds"),
        (lambda: csig.welch([1.0, 2.0, 3.0]), TypeError, "list"),
        (lambda: csig.stft(x, nperseg=8, boundary="periodic"), ValueError, "Unknown boundary option"),
        (lambda: csig.csd(np.ones((2, 8)), np.ones(8)), ValueError, "same rank"),
        (lambda: csig.csd(np.ones((2, 8)), np.ones((3, 8))), ValueError, "cannot be broadcast together"),
        (lambda: csig.istft(np.ones(5, np.complex64)), ValueError, "at least 2d"),
        (lambda: csig.istft(np.ones((5, 5)), time_axis=0, freq_axis=0), ValueError, "differing time and frequency"),
        (lambda: csig.istft(np.ones((5, 5)), nperseg=4, nfft=3), ValueError, "must be longer than nperseg"),
        (lambda: csig.istft(np.ones((5, 5)), nperseg=4, noverlap=4), ValueError, "noverlap must be less than"),
        (lambda: csig.istft(np.ones((5, 5)), window=np.ones(5)), ValueError, "window must have length of 8"),
        (lambda: csig.istft(np.ones((5, 5)), window=np.ones((8, 1))), ValueError, "window must be 1-D"),
    ]
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()
    # A single segment is not averaged, so a bad `average` goes unnoticed (as in JAX).
    f, p = csig.welch(x, nperseg=16, average="max")
    assert p.shape == (9,)


def _jax_modules():
    pytest.importorskip("jax")
    import jax.numpy as jjnp
    import jax.scipy.signal as jsig
    return jjnp, jsig


def test_signatures_match_jax():
    _, jsig = _jax_modules()
    for name in SPECTRAL:
        ours = [(p.name, p.kind, p.default) for p in inspect.signature(getattr(csig, name)).parameters.values()]
        theirs = [(p.name, p.kind, p.default) for p in inspect.signature(getattr(jsig, name)).parameters.values()]
        assert ours == theirs, name
        assert name in csig.__all__


def test_bad_arguments_raise_jax_exception_types():
    jjnp, jsig = _jax_modules()
    x = _signal((16,), np.float32, 20)
    cases = [("welch", (x,), dict(nperseg=8, noverlap=8)), ("welch", (x,), dict(nperseg=8, nfft=4)),
             ("welch", (x,), dict(nperseg=0)), ("welch", (x,), dict(scaling="psd")),
             ("welch", (x,), dict(nperseg=8, average="max")), ("welch", (x,), dict(detrend="quadratic")),
             ("welch", (x,), dict(detrend=True)), ("welch", (x,), dict(window=np.ones((2, 4)))),
             ("welch", (x,), dict(window=np.ones(20))), ("welch", (x,), dict(window=np.ones(8), nperseg=4)),
             ("welch", (x,), dict(axis=1)), ("stft", (x,), dict(boundary="x")),
             ("csd", (np.ones((2, 8)), np.ones(8)), {}), ("csd", (np.ones((2, 8)), np.ones((3, 8))), {}),
             ("istft", (np.ones(5),), {}), ("istft", (np.ones((5, 5)),), dict(time_axis=0, freq_axis=0)),
             ("istft", (np.ones((5, 5)),), dict(nperseg=4, nfft=3)),
             ("istft", (np.ones((5, 5)),), dict(nperseg=4, noverlap=4)),
             ("istft", (np.ones((5, 5)),), dict(window=np.ones(5)))]
    for name, args, kwargs in cases:
        errors = []
        for module in (jsig, csig):
            try:
                _quiet(getattr(module, name), *args, **kwargs)
                errors.append(None)
            except Exception as error:  # noqa: BLE001 - the types are what is compared
                errors.append(error)
        assert errors[0] is not None and isinstance(errors[1], type(errors[0])), (name, kwargs, errors)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matches_jax(dtype, request):
    jjnp, jsig = _jax_modules()
    if dtype == np.float64:
        request.getfixturevalue("x64")
        request.getfixturevalue("jax_x64")
    x, y = _signal((2, 72), dtype, 21), _signal((2, 72), dtype, 22)

    def same(got, want):
        for g, w in zip(got, want):
            w = np.asarray(w)
            assert np.asarray(g).dtype == w.dtype and np.asarray(g).shape == w.shape
            np.testing.assert_allclose(np.asarray(g), w, **_tol(dtype))

    # Where JAX differs from SciPy: nperseg=None is the whole signal (SciPy: 256).
    long = _signal((300,), dtype, 23)
    same(csig.welch(long), jsig.welch(long))
    same(csig.csd(x, y, nperseg=16, average="median"), jsig.csd(x, y, nperseg=16, average="median"))
    # A callable detrend sees the segments with the segment axis last (JAX's arrangement).
    def demean(d):
        return d - d.mean(axis=-1, keepdims=True)
    same(csig.welch(x, nperseg=16, detrend=demean), jsig.welch(x, nperseg=16, detrend=lambda d: d - jjnp.mean(
        d, axis=-1, keepdims=True)))
    for options in (dict(nperseg=16), dict(nperseg=20, noverlap=18, boundary="odd", nfft=24),
                    dict(nperseg=16, window="hamming", return_onesided=False, padded=False)):
        want = jsig.stft(x, **options)
        got = csig.stft(x, **options)
        same(got, want)
        nperseg = options["nperseg"]
        noverlap = options.get("noverlap")
        onesided = options.get("return_onesided", True)
        window = options.get("window", "hann")
        same(csig.istft(np.asarray(want[2]), nperseg=nperseg, noverlap=noverlap, input_onesided=onesided,
                        window=window, nfft=options.get("nfft")),
             jsig.istft(want[2], nperseg=nperseg, noverlap=noverlap, input_onesided=onesided, window=window,
                        nfft=options.get("nfft")))
    # istft takes noverlap=0 as "not given" (nperseg // 2), as JAX does.
    Z = np.asarray(jsig.stft(x, nperseg=8, noverlap=4, window="boxcar")[2])
    same(csig.istft(Z, nperseg=8, noverlap=0, window="boxcar"), jsig.istft(Z, nperseg=8, noverlap=0, window="boxcar"))
