"""The Python Array API (2024.12) as JAX 0.10.2 speaks it: the namespace
version and inspection object, `__array_namespace__`, `device=` on the
creation functions, `to_device`, `jnp.from_dlpack`, and the array object's
dunders; eagerly and under jit, against JAX where it is installed."""
import inspect
import operator

import numpy as np
import pytest

import jaxc
import jaxc.numpy as jnp
from jaxc.sharding import Mesh, NamedSharding, PartitionSpec as P, SingleDeviceSharding

BAD_DEVICES = ["cpu", 3, object()]


def device0():
    return jaxc.devices()[0]


@pytest.fixture
def two_devices():
    before = jaxc.config.jax_num_cpu_devices
    jaxc.config.update("jax_num_cpu_devices", 2)
    yield jaxc.devices()
    jaxc.config.update("jax_num_cpu_devices", before)


# -- version, namespace ---------------------------------------------------------

def test_version_and_namespace():
    assert jnp.__array_api_version__ == "2024.12"
    x = jnp.arange(3.0)
    assert x.__array_namespace__() is jnp
    assert x.__array_namespace__(api_version="2024.12") is jnp
    assert x.__array_namespace__(api_version=None) is jnp
    seen = []
    jaxc.jit(lambda v: seen.append(v.__array_namespace__()) or v)(x)
    assert seen == [jnp]


@pytest.mark.parametrize("version", ["2023.12", "2022.12", "2025.12", "foo", 2024])
def test_unsupported_api_version(version):
    with pytest.raises(ValueError, match="is not available; available versions are: \\['2024.12'\\]"):
        jnp.arange(3).__array_namespace__(api_version=version)
    with pytest.raises(TypeError):  # keyword only, as in JAX
        jnp.arange(3).__array_namespace__(version)


def test_namespace_matches_jax():
    jax = pytest.importorskip("jax")
    assert jnp.__array_api_version__ == jax.numpy.__array_api_version__
    for version in ["2023.12", 2024]:
        with pytest.raises(ValueError) as ours:
            jnp.ones(2).__array_namespace__(api_version=version)
        with pytest.raises(ValueError) as theirs:
            jax.numpy.ones(2).__array_namespace__(api_version=version)
        assert str(ours.value) == str(theirs.value)


# -- __array_namespace_info__ -------------------------------------------------------

KINDS = [None, "bool", "signed integer", "unsigned integer", "integral", "real floating",
         "complex floating", "numeric", ("bool", "integral"), ("real floating", "complex floating"), ()]


def test_namespace_info():
    info = jnp.__array_namespace_info__()
    assert info.capabilities() == {"boolean indexing": False, "data-dependent shapes": False,
                                   "max dimensions": 64}
    assert info.default_device() is None
    assert info.devices() == [None] + jaxc.devices()
    assert info.default_dtypes() == {"real floating": np.dtype("float32"), "complex floating":
                                     np.dtype("complex64"), "integral": np.dtype("int32"),
                                     "indexing": np.dtype("int32")}
    assert info.default_dtypes(device=device0()) == info.default_dtypes()
    assert info.dtypes() == {n: np.dtype(n) for n in ["bool", "int8", "int16", "int32", "uint8", "uint16",
                                                      "uint32", "float32", "complex64"]}
    assert info.dtypes(kind="signed integer") == {n: np.dtype(n) for n in ["int8", "int16", "int32"]}
    assert info.dtypes(kind=("bool", "real floating")) == {"bool": np.dtype(bool),
                                                           "float32": np.dtype("float32")}
    assert info.dtypes(kind=()) == {}
    assert info.dtypes(device=device0(), kind="bool") == {"bool": np.dtype(bool)}


def test_namespace_info_x64(x64):
    info = jnp.__array_namespace_info__()
    assert info.default_dtypes() == {"real floating": np.dtype("float64"), "complex floating":
                                     np.dtype("complex128"), "integral": np.dtype("int64"),
                                     "indexing": np.dtype("int64")}
    assert set(info.dtypes()) == {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                  "uint64", "float32", "float64", "complex64", "complex128"}
    assert info.dtypes(kind="complex floating") == {"complex64": np.dtype("complex64"),
                                                    "complex128": np.dtype("complex128")}


@pytest.mark.parametrize("kind, error", [("bad", KeyError), (3, KeyError), ("float", KeyError),
                                         (("bool", "nope"), KeyError), (["bool"], TypeError)])
def test_namespace_info_bad_kind(kind, error):
    with pytest.raises(error):
        jnp.__array_namespace_info__().dtypes(kind=kind)
    with pytest.raises(TypeError):  # keyword only
        jnp.__array_namespace_info__().dtypes(None, "bool")


def test_namespace_info_matches_jax():
    jax = pytest.importorskip("jax")
    ours, theirs = jnp.__array_namespace_info__(), jax.numpy.__array_namespace_info__()
    assert ours.capabilities() == theirs.capabilities()
    assert ours.default_device() is theirs.default_device() is None
    assert len(ours.devices()) == len(theirs.devices())
    if not jax.config.jax_enable_x64:
        assert ours.default_dtypes() == theirs.default_dtypes()
        for kind in KINDS:
            assert ours.dtypes(kind=kind) == theirs.dtypes(kind=kind), kind
    for kind in ["bad", ("bool", "nope")]:
        with pytest.raises(KeyError):
            theirs.dtypes(kind=kind)


def test_namespace_info_matches_jax_x64(jax_x64, x64):
    ours, theirs = jnp.__array_namespace_info__(), jax_x64.numpy.__array_namespace_info__()
    assert ours.default_dtypes() == theirs.default_dtypes()
    for kind in KINDS:
        assert ours.dtypes(kind=kind) == theirs.dtypes(kind=kind), kind


# -- device= ----------------------------------------------------------------------------------

# name -> make(m, device), m being jaxc.numpy or jax.numpy.
CREATORS = {
    "arange": lambda m, device: m.arange(1, 7, 2, device=device),
    "array": lambda m, device: m.array([[1, 2], [3, 4]], device=device),
    "array_numpy": lambda m, device: m.array(np.arange(4.0), device=device),
    "array_of_array": lambda m, device: m.array(m.arange(4.0), m.int32, device=device),
    "asarray": lambda m, device: m.asarray([1.5, 2.5], device=device),
    "asarray_of_array": lambda m, device: m.asarray(m.ones(3), device=device),
    "empty": lambda m, device: m.empty((2, 3), device=device),
    "empty_like": lambda m, device: m.empty_like(m.ones(3, m.int32), device=device),
    "eye": lambda m, device: m.eye(3, 4, 1, device=device),
    "full": lambda m, device: m.full((2, 2), 7.0, device=device),
    "full_like": lambda m, device: m.full_like(m.ones(3), 2, device=device),
    "linspace": lambda m, device: m.linspace(0.0, 1.0, 5, device=device),
    "ones": lambda m, device: m.ones(3, m.int8, device=device),
    "ones_like": lambda m, device: m.ones_like(np.zeros((2, 2)), device=device),
    "zeros": lambda m, device: m.zeros((3,), device=device),
    "zeros_like": lambda m, device: m.zeros_like(m.ones(2, bool), device=device),
    "astype": lambda m, device: m.astype(m.arange(3.5), m.int32, device=device),
    "fft.fftfreq": lambda m, device: m.fft.fftfreq(5, 0.5, device=device),
    "fft.rfftfreq": lambda m, device: m.fft.rfftfreq(5, device=device),
    "from_dlpack": lambda m, device: m.from_dlpack(np.arange(3.0, dtype=np.float32), device=device),
    "to_device": lambda m, device: m.arange(3).to_device(device),
}
# Where JAX itself checks the device (ValueError); its other functions fail
# on a bad one with an AttributeError from inside lax.full.
JAX_VALUE_ERRORS = {"array", "array_numpy", "array_of_array", "asarray", "asarray_of_array", "eye",
                    "linspace", "astype", "fft.rfftfreq", "from_dlpack", "to_device"}


@pytest.mark.parametrize("name", sorted(CREATORS))
def test_device_argument(name):
    make = CREATORS[name]
    want = np.asarray(make(jnp, None))
    for target in [device0(), SingleDeviceSharding(device0())]:
        out = make(jnp, target)
        assert isinstance(out, jaxc.Array) and out.device is device0()
        np.testing.assert_array_equal(np.asarray(out), want)
        assert out.dtype == want.dtype
        traced = jaxc.jit(lambda target=target: make(jnp, target))()  # tracing is not disturbed
        np.testing.assert_array_equal(np.asarray(traced), want)
        added = jaxc.jit(lambda x, target=target: x + make(jnp, target))(jnp.zeros(want.shape, want.dtype))
        np.testing.assert_array_equal(np.asarray(added), want)


@pytest.mark.parametrize("name", sorted(CREATORS))
@pytest.mark.parametrize("bad", BAD_DEVICES, ids=["str", "int", "object"])
def test_bad_device(name, bad):
    with pytest.raises(ValueError, match="must be a jaxc Device or a Sharding"):
        CREATORS[name](jnp, bad)
    with pytest.raises(ValueError, match="must be a jaxc Device or a Sharding"):
        jaxc.jit(lambda: CREATORS[name](jnp, bad))()


def test_linspace_retstep_device():
    samples, step = jnp.linspace(0.0, 1.0, 3, retstep=True, device=device0())
    assert samples.device is step.device is device0()
    assert float(step) == 0.5


def test_device_keyword_where_jax_has_it():
    """Every jnp function whose JAX signature has `device` takes it, keyword
    only where JAX's is."""
    jax = pytest.importorskip("jax")
    found = []
    for space, ours in [(jax.numpy, jnp), (jax.numpy.fft, jnp.fft), (jax.numpy.linalg, jnp.linalg)]:
        for name in dir(space):
            fn = getattr(space, name)
            try:
                theirs = inspect.signature(fn).parameters
            except (TypeError, ValueError):
                continue
            if "device" not in theirs or not callable(fn):
                continue
            found.append(name)
            param = inspect.signature(getattr(ours, name)).parameters.get("device")
            assert param is not None, name
            if theirs["device"].kind is inspect.Parameter.KEYWORD_ONLY and name != "astype":
                assert param.kind is inspect.Parameter.KEYWORD_ONLY, name
            assert param.default is None, name
    assert {"zeros", "arange", "from_dlpack", "fftfreq"} <= set(found)
    assert "device" not in inspect.signature(jnp.identity).parameters  # nor in JAX's


@pytest.mark.parametrize("name", sorted(CREATORS))
def test_device_argument_matches_jax(name):
    jax = pytest.importorskip("jax")
    make = CREATORS[name]
    ours, theirs = make(jnp, device0()), make(jax.numpy, jax.devices("cpu")[0])
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
    assert ours.dtype == theirs.dtype
    if name != "full":  # JAX's eager full(device=) drops the weak type (its jit keeps it); jaxc keeps it
        assert ours.weak_type == theirs.weak_type
    if name in JAX_VALUE_ERRORS:
        with pytest.raises(ValueError):
            make(jax.numpy, "cpu")


def test_device_on_several_devices(two_devices):
    first, second = two_devices
    for name, make in CREATORS.items():
        out = make(jnp, second)
        assert out.device is second, name
        assert out.devices() == {second}, name
        np.testing.assert_array_equal(np.asarray(out), np.asarray(make(jnp, None)))
    moved = jnp.arange(4.0).to_device(second)
    assert moved.device is second and (moved + 1).device is second
    assert moved.to_device(first).device is first
    mesh = Mesh(np.array(two_devices), ("x",))
    sharded = jnp.zeros((4, 2), device=NamedSharding(mesh, P("x")))
    assert sharded.sharding == NamedSharding(mesh, P("x"))
    assert [s.data.shape for s in sharded.addressable_shards] == [(2, 2), (2, 2)]
    assert jnp.arange(6).to_device(NamedSharding(mesh, P())).sharding.is_fully_replicated
    with pytest.raises(ValueError, match="singular device"):
        jnp.from_dlpack(np.ones(4), device=NamedSharding(mesh, P("x")))
    one = jnp.from_dlpack(np.ones(4), device=SingleDeviceSharding(second))
    assert one.device is second


# -- to_device ------------------------------------------------------------------------------------

def test_to_device():
    x = jnp.arange(3.0)
    assert x.to_device(device0()) is x  # already there
    assert x.to_device(None) is x
    with pytest.raises(NotImplementedError, match="stream argument of array.to_device"):
        x.to_device(device0(), stream=1)
    with pytest.raises(NotImplementedError):
        x.to_device(device0(), stream=0)
    with pytest.raises(TypeError):  # stream is keyword only
        x.to_device(device0(), None)
    assert list(inspect.signature(jaxc.Array.to_device).parameters) == ["self", "device", "stream"]

    def f(v):
        return v.to_device(device0()) * 2
    np.testing.assert_array_equal(np.asarray(jaxc.jit(f)(x)), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(np.asarray(jaxc.grad(lambda v: f(v).sum())(x)), [2.0, 2.0, 2.0])
    with pytest.raises(NotImplementedError):
        jaxc.jit(lambda v: v.to_device(device0(), stream=1))(x)


def test_to_device_matches_jax():
    jax = pytest.importorskip("jax")
    with pytest.raises(NotImplementedError) as theirs:
        jax.numpy.arange(3.0).to_device(jax.devices()[0], stream=1)
    with pytest.raises(NotImplementedError) as ours:
        jnp.arange(3.0).to_device(device0(), stream=1)
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(ValueError):
        jax.numpy.arange(3.0).to_device("cpu")


# -- from_dlpack ----------------------------------------------------------------------------------

class Producer:
    """A minimal DLPack producer (NumPy does the exporting)."""

    def __init__(self, value):
        self.value = value

    def __dlpack__(self, **kwargs):
        return self.value.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.value.__dlpack_device__()


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "int64", "uint8", "uint32", "uint64",
                                   "float16", "float32", "float64", "complex64", "complex128"])
def test_from_dlpack_dtypes(dtype):
    value = (np.arange(6) % 3).astype(dtype).reshape(2, 3)
    out = jnp.from_dlpack(value)
    assert isinstance(out, jaxc.Array) and out.dtype == jaxc.dtypes.canonicalize(np.dtype(dtype))
    assert not out.weak_type
    np.testing.assert_array_equal(np.asarray(out), value.astype(out.dtype))


def test_from_dlpack_sources():
    value = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = jnp.asarray(value)
    for source, want in [(value, value), (x, value), (Producer(value), value), (Producer(x), value),
                         (value.T, value.T), (value[:, ::2], value[:, ::2])]:
        np.testing.assert_array_equal(np.asarray(jnp.from_dlpack(source)), want)
    copied = jnp.from_dlpack(value, copy=True)
    value[0, 0] = 100.0  # the Array holds a copy
    assert float(copied[0, 0]) == 0.0
    assert jnp.from_dlpack(np.array(2.5, np.float32)).shape == ()
    # Under jit: host data becomes a constant; a jaxc Array is read as it is.
    f = jaxc.jit(lambda v: v + jnp.from_dlpack(np.ones(3, np.float32), device=device0()))
    np.testing.assert_array_equal(np.asarray(f(jnp.ones(3))), [2.0, 2.0, 2.0])


def test_from_dlpack_bad_inputs():
    with pytest.raises(TypeError, match="__dlpack_device__"):
        jnp.from_dlpack([1, 2])
    with pytest.raises(TypeError, match="__dlpack_device__"):
        jnp.from_dlpack(3.0)

    class NoDevice:
        def __dlpack__(self, **kwargs):
            return np.ones(2).__dlpack__(**kwargs)
    with pytest.raises(TypeError, match="__dlpack_device__"):
        jnp.from_dlpack(NoDevice())
    with pytest.raises(BufferError):
        jnp.from_dlpack(np.array(["a", "b"]))
    for needs_copy, why in [(np.ones(2), "float64 becomes float32"),
                            (np.arange(8, dtype=np.float32)[::2], "not contiguous"),
                            (np.zeros(9, np.uint8)[1:].view(np.float32), "not aligned")]:
        with pytest.raises(ValueError, match=f"requires a copy since .*{why}.*copy=False"):
            jnp.from_dlpack(needs_copy, copy=False)
    with pytest.raises(TypeError):  # x is positional only
        jnp.from_dlpack(x=np.ones(2))
    params = inspect.signature(jnp.from_dlpack).parameters
    assert [p.kind for p in params.values()] == [inspect.Parameter.POSITIONAL_ONLY,
                                                 inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.KEYWORD_ONLY]


def test_from_dlpack_shares_memory_unless_it_must_copy():
    """As JAX on the CPU: the Array is a read-only view of the producer's
    memory (later writes show in it) unless copy=True or a copy is needed."""
    for copy in (None, False):
        value = np.arange(6, dtype=np.float32).reshape(2, 3)
        shared = jnp.from_dlpack(Producer(value), copy=copy)
        value[0, 0] = 100.0
        assert float(shared[0, 0]) == 100.0 and float(jaxc.jit(lambda v: v.sum())(shared)) == 115.0
        with pytest.raises(ValueError):
            np.asarray(shared)[0, 0] = 1.0  # jaxc's view is read-only
    x = jnp.arange(4.0)
    assert np.shares_memory(np.asarray(jnp.from_dlpack(x, copy=False)), np.asarray(x))
    copied = jnp.from_dlpack(x, copy=True)
    assert not np.shares_memory(np.asarray(copied), np.asarray(x))
    assert jnp.from_dlpack(np.zeros((0, 3), np.float32), copy=False).shape == (0, 3)
    strided = np.arange(8, dtype=np.float32)[::2]
    copy_made = jnp.from_dlpack(strided)  # copy=None copies what it cannot share
    strided[0] = 9.0
    np.testing.assert_array_equal(np.asarray(copy_made), [0.0, 2.0, 4.0, 6.0])


def test_from_dlpack_matches_jax():
    jax = pytest.importorskip("jax")
    for value in [np.arange(5, dtype=np.int64), np.linspace(0, 1, 4), np.array(True), np.ones((2, 3), np.uint8)]:
        ours, theirs = jnp.from_dlpack(value), jax.numpy.from_dlpack(value)
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
    x = jnp.arange(4.0)
    np.testing.assert_array_equal(np.asarray(jax.numpy.from_dlpack(x)), np.asarray(x))  # JAX reads ours
    np.testing.assert_array_equal(np.asarray(jnp.from_dlpack(jax.numpy.arange(4.0))), np.asarray(x))
    for bad in [[1, 2], 3.0]:
        with pytest.raises(TypeError):
            jax.numpy.from_dlpack(bad)
    with pytest.raises(BufferError):
        jax.numpy.from_dlpack(np.array(["a"]))


# -- the array object --------------------------------------------------------------------------

ARRAY_API_ATTRIBUTES = [
    "__abs__", "__add__", "__and__", "__array_namespace__", "__bool__", "__complex__", "__dlpack__",
    "__dlpack_device__", "__eq__", "__float__", "__floordiv__", "__ge__", "__getitem__", "__gt__",
    "__index__", "__int__", "__invert__", "__le__", "__lshift__", "__lt__", "__matmul__", "__mod__",
    "__mul__", "__ne__", "__neg__", "__or__", "__pos__", "__pow__", "__rshift__", "__setitem__",
    "__sub__", "__truediv__", "__xor__", "__radd__", "__rsub__", "__rmul__", "__rtruediv__",
    "__rfloordiv__", "__rpow__", "__rmod__", "__rmatmul__", "__rand__", "__ror__", "__rxor__",
    "__rlshift__", "__rrshift__", "to_device", "device", "dtype", "mT", "ndim", "shape", "size", "T",
]


def test_array_object_has_the_array_api():
    x = jnp.ones((2, 3))
    missing = [name for name in ARRAY_API_ATTRIBUTES if not hasattr(x, name)]
    assert not missing
    assert x.device is device0() and x.mT.shape == (3, 2)


def test_array_object_dir_matches_jax():
    jax = pytest.importorskip("jax")
    theirs = set(dir(jax.numpy.ones(2)))
    ours = set(dir(jnp.ones(2)))
    wanted = set(ARRAY_API_ATTRIBUTES) | {"__round__", "__iter__", "__len__", "__array__"}
    assert wanted & theirs <= ours
    # In-place operators: neither has them; `x += 1` rebinds x.
    assert not {"__iadd__", "__isub__", "__imul__", "__itruediv__"} & (theirs | ours)


def test_array_dunders():
    x = jnp.arange(4)
    y = x
    y += 1  # a new array; x is unchanged
    assert np.asarray(x).tolist() == [0, 1, 2, 3] and np.asarray(y).tolist() == [1, 2, 3, 4]
    y @= jnp.ones(4, jnp.int32)
    assert int(y) == 10
    assert bool(jnp.asarray(0.5)) is True and int(jnp.asarray(2.7)) == 2
    assert float(jnp.asarray(3)) == 3.0 and complex(jnp.asarray(1.5)) == 1.5 + 0j
    assert operator.index(jnp.asarray(3, jnp.uint8)) == 3 and [5, 6, 7][jnp.asarray(2)] == 7
    with pytest.raises(TypeError):
        operator.index(jnp.asarray(True))  # bool is not an index, as in JAX
    with pytest.raises(TypeError):
        operator.index(jnp.asarray(2.0))
    with pytest.raises(TypeError):
        operator.index(jnp.arange(2))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(jnp.ones(2))
    with pytest.raises(TypeError):
        int(jnp.ones(2))
    with pytest.raises(TypeError, match="immutable"):
        x[0] = 1
    with pytest.raises(ValueError):
        _ = jnp.ones(3).mT
    assert round(jnp.asarray(2.5)).dtype == np.int32 and round(jnp.asarray(3.5)).tolist() == 4
    assert float(round(jnp.asarray(2.567), 2)) == pytest.approx(2.57)
    np.testing.assert_array_equal(np.asarray(round(jnp.asarray([1.4, 2.6]))), [1, 3])


def test_array_dunders_under_jit():
    def f(x):
        with pytest.raises(TypeError, match="immutable"):
            x[0] = 1.0
        with pytest.raises(TypeError):
            operator.index(x > 0)
        with pytest.raises(TypeError):
            operator.index(x)  # traced: no concrete value
        assert x.mT.shape == (3, 2)
        return round(x.sum()) + x.mT.sum()
    out = jaxc.jit(f)(jnp.ones((2, 3)))
    assert out.dtype == np.float32 and float(out) == 12.0


def test_array_dunders_match_jax():
    jax = pytest.importorskip("jax")

    def outcome(check, module):
        try:
            value = np.asarray(check(module))
        except (TypeError, ValueError) as error:
            return TypeError if isinstance(error, TypeError) else ValueError
        return value.tolist(), value.dtype
    for name, check in [
        ("index bool", lambda m: operator.index(m.asarray(True))),
        ("index float", lambda m: operator.index(m.asarray(1.0))),
        ("index vector", lambda m: operator.index(m.arange(2))),
        ("setitem", lambda m: m.ones(2).__setitem__(0, 1)),
        ("bool", lambda m: bool(m.ones(2))),
        ("int", lambda m: int(m.ones(2))),
        ("mT", lambda m: m.ones(2).mT),
        ("round", lambda m: round(m.asarray([0.5, 1.5, 2.5]))),
        ("round digits", lambda m: round(m.asarray([0.125, 1.55]), 1)),
        ("float of complex", lambda m: float(m.asarray(1j))),
    ]:
        assert outcome(check, jnp) == outcome(check, jax.numpy), name


def test_dlpack_export():
    x = jnp.arange(4.0)
    np.testing.assert_array_equal(np.from_dlpack(x), [0.0, 1.0, 2.0, 3.0])
    assert x.__dlpack_device__() == (1, 0)
    # A consumer before DLPack 1.0 (no max_version) gets a copy: it cannot be
    # told that jaxc's buffer is read-only.
    assert "dltensor" in repr(x.__dlpack__())
    assert "dltensor" in repr(x.__dlpack__(stream=None))
    assert "versioned" in repr(x.__dlpack__(max_version=(1, 0)))
    with pytest.raises(BufferError):
        x.__dlpack__(copy=False)
    jax = pytest.importorskip("jax")
    np.testing.assert_array_equal(np.asarray(jax.dlpack.from_dlpack(x)), np.asarray(x))


def test_asarray_copy_false():
    value = np.arange(3.0)
    np.testing.assert_array_equal(np.asarray(jnp.asarray(value, copy=False)), value)  # on the CPU
    np.testing.assert_array_equal(np.asarray(jnp.asarray(value, copy=False, device=device0())), value)

    class OtherPlatform(jaxc.dispatch.Device):  # a GPU as far as asarray can tell
        platform = "gpu"
    with pytest.raises(ValueError, match="platform=gpu with copy=False"):
        jnp.asarray(value, copy=False, device=OtherPlatform(7))
    with pytest.raises(ValueError, match="platform=gpu with copy=False"):
        jnp.asarray(value, copy=False, device=SingleDeviceSharding(OtherPlatform(7)))
    x = jnp.asarray(value)
    assert jnp.asarray(x, copy=False, device=device0()) is x


# -- scalar types compared with anything ------------------------------------------

@pytest.mark.parametrize("other", ["foo bar, baz", "float32", None, 3, object(), [1, 2]])
def test_scalar_type_equality_with_any_object_is_false_and_never_raises(other):
    assert (jnp.float32 == other) is False
    assert (jnp.float64 != other) is True


def test_scalar_type_equals_its_numpy_type_and_dtype():
    assert jnp.float32 == np.float32 and jnp.float32 == np.dtype("float32")
    assert np.dtype("int8") == jnp.int8 and jnp.ones(2).dtype == jnp.float32
    assert jnp.float32 != jnp.float64 and jnp.single == jnp.float32
    jax = pytest.importorskip("jax")
    for other in ["float32", None, np.float32, np.dtype("float32"), jax.numpy.float32]:
        assert (jnp.float32 == other) == (jax.numpy.float32 == other), other


# -- finfo / iinfo: of the dtype named, not the one x64 would compute with -------

@pytest.mark.parametrize("name,bits", [("float16", 16), ("bfloat16", 16), ("float32", 32), ("float64", 64),
                                       ("complex64", 32), ("complex128", 64)])
def test_finfo_describes_the_dtype_named_even_without_x64(name, bits):
    info = jnp.finfo(getattr(jnp, name))
    assert info.bits == bits and jnp.finfo(name).bits == bits
    if name != "bfloat16":
        assert info.max == np.finfo(name).max and info.eps == np.finfo(name).eps


@pytest.mark.parametrize("name", ["int8", "uint8", "int16", "int32", "uint32", "int64", "uint64"])
def test_iinfo_describes_the_dtype_named_even_without_x64(name):
    info = jnp.iinfo(getattr(jnp, name))
    assert (info.min, info.max, info.bits) == (np.iinfo(name).min, np.iinfo(name).max, np.iinfo(name).bits)


def test_finfo_iinfo_of_python_types_and_wrong_kinds_as_jax():
    assert jnp.finfo(float).bits == 64 and jnp.iinfo(int).bits == 64
    with pytest.raises(ValueError):
        jnp.finfo(jnp.int32)
    with pytest.raises(ValueError):
        jnp.iinfo(jnp.float32)
    jax = pytest.importorskip("jax")
    for dtype in [float, int, "float64", np.int64]:
        info = jnp.finfo if dtype in (float, "float64") else jnp.iinfo
        reference = jax.numpy.finfo if info is jnp.finfo else jax.numpy.iinfo
        assert info(dtype).bits == reference(dtype).bits and info(dtype).max == reference(dtype).max


# -- found by the Array API conformance suite (tools/array_api_conformance.py) -----

def test_vecdot_conjugates_its_complex_first_argument():
    v = np.array([1 + 2j, 3 - 1j], np.complex64)
    w = np.array([[2 - 1j, 1 + 1j], [0.5j, -1]], np.complex64)
    expected = np.sum(np.conj(v) * w, axis=-1)
    for fn in (jnp.vecdot, jnp.linalg.vecdot, jaxc.jit(jnp.vecdot)):
        np.testing.assert_allclose(np.asarray(fn(v, w)), expected, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jnp.vecdot(v.real, w.real)), np.sum(v.real * w.real, -1), rtol=1e-6)


@pytest.mark.parametrize("dtype,expected", [("bool", "int32"), ("int8", "int32"), ("uint8", "uint32"),
                                            ("uint16", "uint32"), ("int32", "int32"), ("float16", "float16")])
def test_cumulative_sum_widens_bools_and_narrow_ints_as_sum(dtype, expected):
    x = np.array([1, 1, 0, 1]).astype(dtype)
    out = jnp.cumulative_sum(x, include_initial=True)
    assert out.dtype == np.dtype(expected)
    np.testing.assert_array_equal(np.asarray(out), np.concatenate([[0], np.cumsum(x.astype(np.int64))]))
    assert jnp.cumulative_sum(x, dtype=jnp.int8).dtype == np.int8
    assert jnp.cumulative_prod(np.array([1, 2], np.int8)).dtype == np.int8  # JAX widens the sum only
