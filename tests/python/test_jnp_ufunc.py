"""jnp.ufunc and jnp.frompyfunc (issue #17): the 14 built-in ufuncs and a
frompyfunc ufunc, every method (call, reduce, accumulate, at, reduceat,
outer) against NumPy's ufunc methods, eagerly, under jit and vmap; grads
where JAX has them; JAX's dtypes and exceptions; and JAX itself where
installed."""
import operator

import numpy as np
import pytest
from jnp_check import assert_close, rand

import jaxc
import jaxc.numpy as jnp
from jaxc.test_util import check_grads

BINARY = ["add", "subtract", "multiply", "maximum", "minimum", "bitwise_and", "bitwise_or", "bitwise_xor",
          "logical_and", "logical_or", "logical_xor", "logaddexp", "logaddexp2"]
UFUNCS = BINARY + ["negative"]
# JAX's identities (None: no identity).
IDENTITY = {"add": 0, "subtract": None, "multiply": 1, "maximum": None, "minimum": None, "bitwise_and": -1,
            "bitwise_or": 0, "bitwise_xor": 0, "logical_and": True, "logical_or": False, "logical_xor": False,
            "logaddexp": -np.inf, "logaddexp2": -np.inf, "negative": None}


def operand(name, shape):
    """Test values of a dtype the ufunc is meant for."""
    if name.startswith("bitwise"):
        return rand(shape, np.int32, 0, 16)
    if name.startswith("logical"):
        return rand(shape, np.bool_)
    return rand(shape, np.float32, -2, 2)


def same(actual, expected, what=""):
    """The values (a list is one array here, not a pytree)."""
    assert_close(actual, np.asarray(expected) if isinstance(expected, list) else expected, rtol=1e-5, atol=1e-5,
                 what=what)


def eager_jit_vmap(fn, *arrays):
    """fn eagerly; under jit it gives the same values and dtype, under vmap
    (over a stack of two copies of the first argument) the stacked results."""
    eager = fn(*arrays)
    jitted = jaxc.jit(fn)(*arrays)
    same(jitted, np.asarray(eager), "jit")
    assert jitted.dtype == eager.dtype
    stacked = np.stack([arrays[0], arrays[0]])
    mapped = jaxc.vmap(lambda first: fn(first, *arrays[1:]))(stacked)
    same(mapped, np.stack([np.asarray(eager)] * 2), "vmap")
    return eager


# ---------------------------------------------------------------------------
# The objects
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", UFUNCS)
def test_builtin_ufunc_attributes(name):
    u = getattr(jnp, name)
    assert isinstance(u, jnp.ufunc)
    assert u.__name__ == name and repr(u) == f"<jnp.ufunc '{name}'>"
    nin = 1 if name == "negative" else 2
    assert (u.nin, u.nout, u.nargs) == (nin, 1, nin)
    assert u.identity == IDENTITY[name] and type(u.identity) is type(IDENTITY[name])
    with pytest.raises(AttributeError):
        u.identity = 5
    assert u == getattr(jnp, name) and hash(u) == hash(getattr(jnp, name))
    assert u != jnp.add or name == "add"


def test_frompyfunc_objects():
    add = jnp.frompyfunc(operator.add, 2, 1, identity=0)
    assert (add.nin, add.nout, add.nargs, add.identity, add.__name__) == (2, 1, 2, 0, "add")
    assert add == jnp.frompyfunc(operator.add, 2, 1, identity=0)
    assert hash(add) == hash(jnp.frompyfunc(operator.add, 2, 1, identity=0))
    assert add != jnp.frompyfunc(operator.add, 2, 1)
    custom = jnp.ufunc(operator.mul, 2, 1, name="times", nargs=3, identity=1, call=lambda a, b: a * b * 2)
    assert (custom.__name__, custom.nargs) == ("times", 3)
    assert int(custom(2, 3)) == 12  # `call` replaces the vectorized function
    assert int(custom.reduce(jnp.arange(1, 5))) == 384  # the generic reduce calls the ufunc: `call` (as JAX)
    with pytest.raises(TypeError):
        jnp.ufunc(operator.mul, 2.0, 1)


@pytest.mark.parametrize("name", BINARY)
def test_call_is_the_elementwise_function(name):
    x, y = operand(name, (2, 3)), operand(name, (3,))
    u = getattr(jnp, name)
    same(eager_jit_vmap(u, x, y), getattr(np, name)(x, y))
    with pytest.raises(NotImplementedError):
        u(x, y, out=x)
    with pytest.raises(NotImplementedError):
        u(x, y, where=True)
    with pytest.raises(TypeError):
        u([1, 2], y)
    with pytest.raises(TypeError):
        u(x)


def test_call_keeps_promotion_and_errors():
    i8 = np.arange(3, dtype=np.int8)
    assert jnp.add(i8, 1).dtype == np.int8
    assert jnp.add(1, 2).weak_type and jnp.add(1.0, i8).dtype == np.float32
    assert jnp.logaddexp(1, 2).dtype == np.float32
    assert jnp.maximum(True, False).dtype == np.bool_
    with pytest.raises(TypeError):
        jnp.subtract(True, False)
    with pytest.raises(TypeError):
        jnp.bitwise_and(1.0, 2.0)
    with pytest.raises(TypeError):
        jnp.negative(np.array([True]))
    x = jnp.arange(3.0)
    same(x + x, [0.0, 2.0, 4.0])  # operators still go through jnp.add


# ---------------------------------------------------------------------------
# reduce
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", BINARY)
def test_reduce(name):
    x = operand(name, (3, 4))
    u, ref = getattr(jnp, name), getattr(np, name)
    for axis in (0, 1, -1):
        same(eager_jit_vmap(lambda a: u.reduce(a, axis=axis), x), ref.reduce(x, axis=axis), f"axis={axis}")
    # axis None: the flattened array (NumPy refuses it for subtract)
    same(eager_jit_vmap(lambda a: u.reduce(a, axis=None), x), ref.reduce(x.ravel()))
    same(u.reduce(x, axis=None, keepdims=True), ref.reduce(x.ravel()).reshape(1, 1))
    same(u.reduce(x, axis=1, keepdims=True), ref.reduce(x, axis=1, keepdims=True))
    initial = {"logical_and": True, "logical_or": False, "logical_xor": True}.get(name, 1)
    same(u.reduce(x, axis=0, initial=initial), ref.reduce(x, axis=0, initial=initial))
    mask = rand((3, 4), np.bool_)
    mask[0] = True
    same(eager_jit_vmap(lambda a, m: u.reduce(a, axis=0, where=m, initial=initial), x, mask),
         ref.reduce(x, axis=0, where=mask, initial=initial))


def test_reduce_dtypes_follow_jax():
    i8 = np.arange(1, 7, dtype=np.int8).reshape(2, 3)
    assert jnp.add.reduce(i8).dtype == np.int32  # jnp.sum's promotion
    assert jnp.multiply.reduce(i8).dtype == np.int32
    assert jnp.subtract.reduce(i8).dtype == np.int8  # generic: the ufunc's own result dtype
    assert jnp.bitwise_and.reduce(i8).dtype == np.int8
    assert jnp.maximum.reduce(i8).dtype == np.int8
    assert jnp.add.reduce(i8 > 2).dtype == np.int32
    assert jnp.logaddexp.reduce(i8).dtype == np.float32
    assert jnp.logical_or.reduce(i8, axis=1, dtype=np.int32).dtype == np.int32
    assert jnp.subtract.reduce(i8, axis=1, dtype=np.float32).dtype == np.float32
    same(jnp.add.reduce(i8, axis=(0, 1)), 21)  # built-in reductions take tuples of axes
    same(jnp.bitwise_and.reduce(i8 > 2, axis=1), [False, True])
    same(jnp.logaddexp.reduce(np.zeros((0,), np.float32)), -np.inf)
    same(jnp.subtract.reduce(np.zeros((0, 2), np.float32), initial=1.0), [1.0, 1.0])


def test_reduce_errors():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    with pytest.raises(ValueError, match="binary"):
        jnp.negative.reduce(x)
    with pytest.raises(NotImplementedError, match="tuple of axes"):
        jnp.subtract.reduce(x, axis=(0, 1))
    with pytest.raises(NotImplementedError):
        jnp.add.reduce(x, out=1)
    with pytest.raises(ValueError):  # out is static (as in JAX): an array is unhashable
        jnp.add.reduce(x, out=x)
    with pytest.raises(ValueError, match="identity"):
        jnp.subtract.reduce(x, where=x > 1)
    with pytest.raises(ValueError, match="identity"):
        jnp.maximum.reduce(x, where=x > 1)
    with pytest.raises(ValueError, match="dtype=bool"):
        jnp.add.reduce(x, where=x)
    with pytest.raises(ValueError, match="zero-size"):
        jnp.subtract.reduce(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="zero-size"):
        jnp.maximum.reduce(np.zeros((0,)))
    with pytest.raises(ValueError, match="integer"):
        jnp.bitwise_or.reduce(x)
    with pytest.raises(ValueError):  # an axis beyond the dimensions
        jnp.subtract.reduce(x, axis=2)
    with pytest.raises(ValueError):  # axis is static: lists are unhashable
        jnp.add.reduce(x, axis=[0])
    with pytest.raises(TypeError):
        jnp.add.reduce([1.0, 2.0])
    with pytest.raises(TypeError):
        jnp.subtract.reduce(x > 1)  # subtract of bools


# ---------------------------------------------------------------------------
# accumulate
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", BINARY)
def test_accumulate(name):
    x = operand(name, (3, 4))
    u, ref = getattr(jnp, name), getattr(np, name)
    for axis in (0, 1, -1):
        same(eager_jit_vmap(lambda a: u.accumulate(a, axis=axis), x), ref.accumulate(x, axis=axis))


def test_accumulate_dtypes_and_errors():
    i8 = np.arange(1, 7, dtype=np.int8).reshape(2, 3)
    assert jnp.add.accumulate(i8, axis=1).dtype == np.int8  # cumsum keeps the dtype
    assert jnp.add.accumulate(i8 > 2, axis=1).dtype == np.int32  # bools count
    assert jnp.subtract.accumulate(i8, axis=1).dtype == np.int8
    assert jnp.subtract.accumulate(i8, axis=0, dtype=np.float32).dtype == np.float32
    same(jnp.add.accumulate(i8, axis=None), np.cumsum(i8))  # cumsum flattens
    assert jnp.subtract.accumulate(np.zeros((0, 2), np.int8)).shape == (0, 2)
    same(jnp.logaddexp.accumulate(np.array([1, 2])), np.logaddexp.accumulate([1.0, 2.0]))
    with pytest.raises(ValueError, match="multiple axes"):
        jnp.subtract.accumulate(i8, axis=None)
    with pytest.raises(ValueError, match="binary"):
        jnp.negative.accumulate(i8)
    with pytest.raises(NotImplementedError):
        jnp.add.accumulate(i8, out=1)
    with pytest.raises(ValueError):
        jnp.add.accumulate(np.int32(3))  # 0-d: axis 0 is out of bounds
    with pytest.raises(TypeError):
        jnp.bitwise_and.accumulate(i8.astype(np.float32))


# ---------------------------------------------------------------------------
# at
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", UFUNCS)
def test_at(name):
    x = operand(name, (3, 5))
    u, ref = getattr(jnp, name), getattr(np, name)
    rows, cols = np.array([0, 2, 0, 0]), np.array([1, 4, 1, 3])  # (0, 1) repeats
    expected = x.copy()
    if name == "negative":
        ref.at(expected, (rows, cols))
        same(eager_jit_vmap(lambda a: u.at(a, (rows, cols), inplace=False), x), expected)
        return
    b = operand(name, (4,))
    ref.at(expected, (rows, cols), b)
    same(eager_jit_vmap(lambda a, v: u.at(a, (rows, cols), v, inplace=False), x, b), expected)
    expected = x.copy()
    ref.at(expected, 1, b[0])  # one position, a scalar value
    same(u.at(x, 1, b[0], inplace=False), expected)
    expected = x.copy()
    ref.at(expected, np.array([2, 2]), x[:2])  # whole rows, twice (JAX: values for each index)
    same(u.at(x, np.array([2, 2]), x[:2], inplace=False), expected)


def test_at_rules():
    x = np.arange(5, dtype=np.int32)
    with pytest.raises(NotImplementedError, match="inplace=False"):
        jnp.add.at(x, 0, 1)
    with pytest.raises(TypeError):
        jnp.add.at(x, [0, 1], 1, inplace=False)  # lists are not indices
    with pytest.raises(TypeError):
        jnp.maximum.at(x, slice(1, 3), 7, inplace=False)  # indices are traced: no slices
    with pytest.raises(TypeError):
        jnp.negative.at(x, 0, 1, inplace=False)  # unary: no values
    b = np.array([True, False, False])
    same(jnp.add.at(b, np.array([1, 1]), True, inplace=False), [True, True, False])
    same(jnp.multiply.at(b, 0, False, inplace=False), [False, False, False])
    assert jnp.maximum.at(x, 2, 7.5, inplace=False).dtype == np.float32  # the ufunc's result dtype
    assert jnp.maximum.at(x.astype(np.int8), 2, 7, inplace=False).dtype == np.int8
    same(jnp.subtract.at(x.astype(np.uint8), np.array([1, 1]), 2, inplace=False), [0, 253, 2, 3, 4])
    same(jnp.add.at(x, (), 1, inplace=False), x + 1)  # () is the whole array
    same(jnp.maximum.at(x, (), 3, inplace=False), x)  # generic: no indices, no change (as JAX)


# ---------------------------------------------------------------------------
# reduceat
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", BINARY)
def test_reduceat(name):
    x = operand(name, (4, 7))
    u, ref = getattr(jnp, name), getattr(np, name)
    indices = np.array([0, 3, 2, 5])  # 3 > 2: a single element
    same(eager_jit_vmap(lambda a: u.reduceat(a, indices, axis=1), x), ref.reduceat(x, indices, axis=1))
    same(u.reduceat(x, np.array([1, 3]), axis=0), ref.reduceat(x, np.array([1, 3]), axis=0))


def test_reduceat_rules():
    x = np.arange(8, dtype=np.int8)
    assert jnp.add.reduceat(x, np.array([0, 2])).dtype == np.int8
    assert jnp.add.reduceat(x, np.array([0, 2]), dtype=np.float32).dtype == np.int8  # as JAX: unused
    same(jnp.add.reduceat(x > 3, np.array([0, 2, 5])), [False, True, True])
    for bad in (lambda: jnp.add.reduceat(np.int32(1), np.array([0])),
                lambda: jnp.add.reduceat(x, np.array([[0]])),
                lambda: jnp.add.reduceat(x, 1),
                lambda: jnp.add.reduceat(x, np.array([0]), axis=None),
                lambda: jnp.negative.reduceat(x, np.array([0]))):
        with pytest.raises(ValueError):
            bad()
    with pytest.raises(NotImplementedError):
        jnp.add.reduceat(x, np.array([0]), out=1)
    with pytest.raises(TypeError):
        jnp.add.reduceat(x, [0, 2])


# ---------------------------------------------------------------------------
# outer
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", BINARY)
def test_outer(name):
    a, b = operand(name, (2, 3)), operand(name, (4,))
    u, ref = getattr(jnp, name), getattr(np, name)
    same(eager_jit_vmap(u.outer, a, b), ref.outer(a, b))
    assert u.outer(a[0, 0], b[0]).shape == ()


def test_outer_rules():
    out = jnp.add.outer(np.arange(2, dtype=np.int32), 1.5)
    assert out.dtype == np.float32 and out.weak_type  # as JAX: int32 + weak float
    assert jnp.add.outer(1, 2).weak_type
    with pytest.raises(ValueError, match="binary"):
        jnp.negative.outer(np.ones(2), np.ones(2))
    with pytest.raises(TypeError):
        jnp.add.outer([1], 2)
    with pytest.raises(TypeError):
        jnp.subtract.outer(np.ones(2, bool), np.ones(2, bool))


# ---------------------------------------------------------------------------
# frompyfunc
# ---------------------------------------------------------------------------

def affine(a, b):
    return a * b + 1


def test_frompyfunc_methods():
    fu, ref = jnp.frompyfunc(affine, 2, 1), np.frompyfunc(affine, 2, 1)
    x, y = rand((3, 4), np.float32, -1, 1), rand((4,), np.float32, -1, 1)

    def np_ref(result):
        return np.asarray(result, dtype=np.float32)

    same(eager_jit_vmap(fu, x, y), np_ref(ref(x, y)))
    same(eager_jit_vmap(lambda a: fu.reduce(a, axis=1), x), np_ref(ref.reduce(x, axis=1)))
    same(fu.reduce(x, axis=None), np_ref(ref.reduce(x.ravel())))
    same(eager_jit_vmap(lambda a: fu.accumulate(a, axis=1), x), np_ref(ref.accumulate(x, axis=1)))
    expected = x.astype(object)
    ref.at(expected, (np.array([0, 0, 2]), np.array([1, 1, 3])), y[:3])
    same(eager_jit_vmap(lambda a: fu.at(a, (np.array([0, 0, 2]), np.array([1, 1, 3])), y[:3], inplace=False), x),
         np_ref(expected))
    same(fu.reduceat(x, np.array([0, 2]), axis=1), np_ref(ref.reduceat(x, np.array([0, 2]), axis=1)))
    same(eager_jit_vmap(fu.outer, x, y), np_ref(ref.outer(x, y)))


def test_frompyfunc_identity_dtypes_and_errors():
    add = jnp.frompyfunc(operator.add, 2, 1, identity=0)
    i8 = np.arange(6, dtype=np.int8).reshape(2, 3)
    assert add(i8, 1).dtype == np.int8 and add(1, 2).weak_type
    assert add.reduce(i8).dtype == np.int8  # no sum promotion: the generic reduce
    same(add.reduce(np.zeros((0, 2), np.int32)), [0, 0])  # the identity
    same(add.reduce(i8, axis=1, where=i8 > 1), [2, 12])
    same(add.at(np.arange(4), np.array([1, 1]), 2.5, inplace=False), [0.0, 6.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="zero-size"):
        jnp.frompyfunc(affine, 2, 1).reduce(np.zeros((0,)))
    with pytest.raises(TypeError):
        add(1)
    with pytest.raises(TypeError):
        add([1], 2)
    pair = jnp.frompyfunc(lambda a, b: (a + b, a * b), 2, 2)
    total, product = pair(np.arange(3), 2)
    same(total, [2, 3, 4])
    same(product, [0, 2, 4])
    for method in (lambda: pair.reduce(np.arange(3)), lambda: pair.accumulate(np.arange(3)),
                   lambda: pair.outer(np.arange(3), 2), lambda: pair.reduceat(np.arange(3), np.array([0]))):
        with pytest.raises(ValueError, match="single value"):
            method()
    neg = jnp.frompyfunc(lambda a: -a, 1, 1)
    same(neg(np.arange(3)), [0, -1, -2])
    same(neg.at(np.arange(3), np.array([1, 1, 2]), inplace=False), [0, 1, -2])


# ---------------------------------------------------------------------------
# Gradients
# ---------------------------------------------------------------------------

X = np.array([[0.3, -1.2, 0.8, 2.0], [1.5, 0.1, -0.7, 0.4]], np.float32)
IDX = np.array([0, 0, 2])
GRADS = {  # fast paths and generic (scan/fori_loop) methods
    "add.reduce": lambda v: jnp.add.reduce(v, axis=1),
    "multiply.reduce": lambda v: jnp.multiply.reduce(v, axis=None),
    "subtract.reduce": lambda v: jnp.subtract.reduce(v, axis=1),
    "subtract.reduce where": lambda v: jnp.subtract.reduce(v, axis=0, where=X > 0, initial=1.0),
    "maximum.reduce": lambda v: jnp.maximum.reduce(v, axis=0),
    "logaddexp.reduce": lambda v: jnp.logaddexp.reduce(v, axis=1),
    "logaddexp2.reduce": lambda v: jnp.logaddexp2.reduce(v, axis=None, initial=0.5),
    "multiply.accumulate": lambda v: jnp.multiply.accumulate(v, axis=1),
    "maximum.accumulate": lambda v: jnp.maximum.accumulate(v, axis=1),
    "logaddexp.accumulate": lambda v: jnp.logaddexp.accumulate(v, axis=1),
    "add.at": lambda v: jnp.add.at(v, (0, IDX), v[1, :3], inplace=False),
    "subtract.at": lambda v: jnp.subtract.at(v, (1, IDX), 1.5, inplace=False),
    "maximum.at": lambda v: jnp.maximum.at(v, (0, IDX), np.array([0.5, -3.0, 1.0], np.float32), inplace=False),
    "logaddexp.at": lambda v: jnp.logaddexp.at(v, (1, IDX), v[0, :3], inplace=False),
    "negative.at": lambda v: jnp.negative.at(v, (0, IDX), inplace=False),
    "add.reduceat": lambda v: jnp.add.reduceat(v, np.array([0, 2]), axis=1),
    "subtract.reduceat": lambda v: jnp.subtract.reduceat(v, np.array([0, 1]), axis=1),
    "logaddexp.outer": lambda v: jnp.logaddexp.outer(v, v[0]),
    "frompyfunc.reduce": lambda v: jnp.frompyfunc(affine, 2, 1).reduce(v, axis=1),
    "frompyfunc.accumulate": lambda v: jnp.frompyfunc(affine, 2, 1).accumulate(v, axis=0),
}


@pytest.mark.parametrize("case", sorted(GRADS))
def test_grads(case):
    check_grads(GRADS[case], (X,), order=1, modes=("rev",), atol=2e-2, rtol=2e-2)


def test_grad_values():
    grad = jaxc.grad(lambda v: jnp.sum(jnp.subtract.reduce(v, axis=1)))(X)
    same(grad, [[1, -1, -1, -1], [1, -1, -1, -1]])
    grad = jaxc.grad(lambda v: jnp.sum(jnp.logaddexp.reduce(v, axis=1)))(X)
    softmax = np.exp(X) / np.exp(X).sum(axis=1, keepdims=True)
    same(grad, softmax)


# ---------------------------------------------------------------------------
# Against JAX
# ---------------------------------------------------------------------------

def _jax_cases(np_):
    """(label, function of a module `m` with jnp's API) for the JAX comparison."""
    i8 = np.arange(1, 7, dtype=np.int8).reshape(2, 3)
    f = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)
    idx = np.array([0, 0, 2])
    cases = []
    for name in BINARY:
        x = i8 > 2 if name.startswith("logical") else i8 if name.startswith("bitwise") else f
        cases += [
            (f"{name}.reduce", lambda m, n=name, x=x: getattr(m, n).reduce(x, axis=1)),
            (f"{name}.reduce None", lambda m, n=name, x=x: getattr(m, n).reduce(x, axis=None, keepdims=True)),
            (f"{name}.accumulate", lambda m, n=name, x=x: getattr(m, n).accumulate(x, axis=1)),
            (f"{name}.at", lambda m, n=name, x=x: getattr(m, n).at(x, (1, idx), x[0, 1], inplace=False)),
            (f"{name}.reduceat", lambda m, n=name, x=x: getattr(m, n).reduceat(x, np.array([0, 2]), axis=1)),
            (f"{name}.outer", lambda m, n=name, x=x: getattr(m, n).outer(x[0], x[1])),
        ]
        if not name.startswith(("logical", "subtract")):
            cases.append((f"{name}.reduce int8", lambda m, n=name: getattr(m, n).reduce(i8, axis=0)))
            cases.append((f"{name}.accumulate int8", lambda m, n=name: getattr(m, n).accumulate(i8, axis=0)))
            cases.append((f"{name}.at int8", lambda m, n=name: getattr(m, n).at(i8, (0, idx), 3, inplace=False)))
    cases += [
        ("subtract.reduce int8", lambda m: m.subtract.reduce(i8, axis=1)),
        ("subtract.reduce initial", lambda m: m.subtract.reduce(f, axis=1, initial=2)),
        ("add.reduce bool", lambda m: m.add.reduce(i8 > 2, axis=0)),
        ("add.accumulate bool", lambda m: m.add.accumulate(i8 > 2, axis=1)),
        ("logical_or.reduce dtype", lambda m: m.logical_or.reduce(i8, axis=1, dtype=np.int32)),
        ("maximum.at float", lambda m: m.maximum.at(np.arange(5), 2, 7.5, inplace=False)),
        ("negative.at", lambda m: m.negative.at(np.arange(5), np.array([1, 3, 3]), inplace=False)),
        ("add.outer weak", lambda m: m.add.outer(np.arange(2), 1.5)),
        ("frompyfunc", lambda m: m.frompyfunc(affine, 2, 1)(i8, 2)),
        ("frompyfunc.reduce", lambda m: m.frompyfunc(affine, 2, 1).reduce(i8, axis=1)),
        ("frompyfunc.accumulate", lambda m: m.frompyfunc(affine, 2, 1).accumulate(f, axis=0)),
        ("frompyfunc.at", lambda m: m.frompyfunc(affine, 2, 1).at(f, (0, idx), 2.0, inplace=False)),
        ("frompyfunc.reduceat", lambda m: m.frompyfunc(affine, 2, 1).reduceat(i8, np.array([0, 1]), axis=1)),
        ("frompyfunc.outer", lambda m: m.frompyfunc(affine, 2, 1).outer(i8[0], f[1])),
    ]
    return cases


@pytest.mark.parametrize("label,case", _jax_cases(np), ids=[label for label, _ in _jax_cases(np)])
def test_against_jax(label, case):
    jax = pytest.importorskip("jax")
    theirs = case(jax.numpy)
    ours = case(jnp)
    same(ours, np.asarray(theirs), label)
    assert ours.dtype == theirs.dtype, f"{label}: {ours.dtype}, JAX {theirs.dtype}"
    assert ours.weak_type == theirs.weak_type, f"{label}: weak_type {ours.weak_type}, JAX {theirs.weak_type}"


def test_signatures_match_jax():
    jax = pytest.importorskip("jax")
    import inspect

    def params(f):
        return [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]

    for method in ("__init__", "__call__", "reduce", "accumulate", "at", "reduceat", "outer"):
        assert params(getattr(jnp.ufunc, method)) == params(getattr(jax.numpy.ufunc, method)), method
        assert params(getattr(jnp.add, method)) == params(getattr(jax.numpy.add, method)), method
    assert params(jnp.frompyfunc) == params(jax.numpy.frompyfunc)
