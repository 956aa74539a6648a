"""jaxc.scipy.spatial.transform (`Rotation`, `Slerp`) against
scipy.spatial.transform: every conversion both ways (quaternions, matrices,
rotation vectors, MRPs, Euler angles in all 24 sequences), apply,
composition, inverse, magnitude, mean, concatenate, indexing, Slerp; float32
and float64; under jit and vmap; gradients; JAX's exception types; and JAX
itself where it is installed."""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from jnp_check import assert_close
from scipy.spatial.transform import Rotation as SR, Slerp as SSlerp

import jaxc
import jaxc.numpy as jnp
import jaxc.scipy.spatial as spatial
import jaxc.scipy.spatial.transform as transform
from jaxc.test_util import check_grads

R = transform.Rotation
Slerp = transform.Slerp
RNG = np.random.default_rng(11)

# All 12 axis sequences of 3 Euler angles, extrinsic (lower) and intrinsic (upper).
SEQS3 = ["".join(p) for p in itertools.product("xyz", repeat=3) if p[0] != p[1] and p[1] != p[2]]
SEQS = SEQS3 + [s.upper() for s in SEQS3]
TOL32 = dict(rtol=2e-5, atol=2e-5)
TOL64 = dict(rtol=1e-12, atol=1e-12)

# `dir` of JAX 0.10's classes (the public names, and the special methods).
JAX_ROTATION_NAMES = ["__getitem__", "__len__", "__mul__", "apply", "as_euler", "as_matrix", "as_mrp", "as_quat",
                      "as_rotvec", "concatenate", "count", "from_euler", "from_matrix", "from_mrp", "from_quat",
                      "from_rotvec", "identity", "index", "inv", "magnitude", "mean", "quat", "random", "single"]
JAX_SLERP_NAMES = ["__call__", "__getitem__", "__len__", "__mul__", "count", "index", "init", "rotations",
                   "rotvecs", "timedelta", "times"]


def _names(cls):
    return [n for n in dir(cls) if not n.startswith("_") or n in ("__getitem__", "__len__", "__mul__", "__call__")]


def random_quats(n, dtype=np.float32):
    return RNG.normal(size=(n, 4)).astype(dtype)


def canonical(q):
    """NumPy: the sign of each quaternion (x, y, z, w) with the first nonzero
    of (w, x, y, z) positive."""
    q = np.array(q, np.float64)
    flat = q.reshape(-1, 4)
    for row in flat:
        for c in (3, 0, 1, 2):
            if row[c] != 0:
                if row[c] < 0:
                    row *= -1
                break
    return flat.reshape(q.shape)


def assert_same_rotation(a, b, rtol=2e-5, atol=2e-5):
    """Quaternions `a` and `b` rotate alike (q and -q are one rotation)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    assert a.shape == b.shape
    sign = np.where(np.sum(a * b, axis=-1, keepdims=True) < 0, -1.0, 1.0)
    np.testing.assert_allclose(a * sign, b, rtol=rtol, atol=atol)


def assert_angles_close(a, b, atol):
    """Angles equal modulo 2 pi."""
    diff = np.asarray(a, np.float64) - np.asarray(b, np.float64)
    np.testing.assert_allclose((diff + np.pi) % (2 * np.pi) - np.pi, 0.0, atol=atol)


# --- surface -----------------------------------------------------------------

def test_public_names_and_layout():
    assert spatial.transform is transform
    assert transform.__all__ == ["Rotation", "Slerp"]
    assert _names(R) == JAX_ROTATION_NAMES
    assert _names(Slerp) == JAX_SLERP_NAMES
    assert isinstance(R.identity(), tuple) and R._fields == ("quat",)
    assert Slerp._fields == ("times", "timedelta", "rotations", "rotvecs")


def test_public_names_match_jax():
    pytest.importorskip("jax")
    import jax.scipy.spatial.transform as jax_transform

    assert _names(R) == _names(jax_transform.Rotation)
    assert _names(Slerp) == _names(jax_transform.Slerp)


def test_rotation_and_slerp_are_pytrees():
    r = R.from_quat(random_quats(3))
    assert jaxc.tree_util.tree_leaves(r) == [r.quat]
    single = r[0]
    assert len(jaxc.tree_util.tree_leaves(single)) == 1  # no len() on a single rotation: no matter
    s = Slerp.init(jnp.arange(3.0), r)
    leaves = jaxc.tree_util.tree_leaves(s)
    assert len(leaves) == 4 and leaves[2] is s.rotations.quat
    back = jaxc.tree_util.tree_unflatten(jaxc.tree_util.tree_structure(s), leaves)
    assert isinstance(back, Slerp) and isinstance(back.rotations, R)
    doubled = jaxc.tree_util.tree_map(lambda x: 2 * x, r)
    assert isinstance(doubled, R)
    out = jaxc.jit(lambda rot: rot.inv())(r)
    assert isinstance(out, R)
    assert_close(out.quat, np.asarray(r.quat) * np.array([-1, -1, -1, 1]))
    out = jaxc.jit(lambda sl: sl(jnp.array([0.5, 1.5])))(s)
    assert isinstance(out, R) and out.quat.shape == (2, 4)


# --- conversions against SciPy -------------------------------------------------

@pytest.mark.parametrize("shape", [(4,), (7, 4)])
def test_quaternions_both_ways(shape):
    q = RNG.normal(size=shape).astype(np.float32)
    r = R.from_quat(q)
    ref = SR.from_quat(q.astype(np.float64))
    assert r.single == (len(shape) == 1) and r.quat.dtype == np.float32
    assert_close(r.quat, ref.as_quat(), **TOL32)  # normalized, sign kept
    assert_close(r.as_quat(), ref.as_quat(), **TOL32)
    assert_close(r.as_quat(canonical=True), ref.as_quat(canonical=True), **TOL32)
    assert_close(r.as_quat(scalar_first=True), ref.as_quat(scalar_first=True), **TOL32)
    assert_close(r.as_quat(canonical=True, scalar_first=True), ref.as_quat(canonical=True, scalar_first=True), **TOL32)
    assert_close(R.from_quat(r.as_quat()).quat, np.asarray(r.quat), **TOL32)


def test_canonical_sign_when_w_is_zero():
    q = np.array([[0.0, 0.0, 0.0, -1.0], [-1.0, 0.0, 0.0, 0.0], [0.0, -1.0, 0.0, 0.0], [0.0, 0.0, -1.0, 0.0],
                  [0.0, -0.6, 0.8, 0.0], [0.6, 0.0, -0.8, 0.0]], np.float32)
    got = R.from_quat(q).as_quat(canonical=True)
    assert_close(got, SR.from_quat(q).as_quat(canonical=True), **TOL32)
    assert_close(got, canonical(q), **TOL32)


@pytest.mark.parametrize("n", [None, 9])
def test_matrices_both_ways(n):
    q = random_quats(1 if n is None else n)
    if n is None:
        q = q[0]
    ref = SR.from_quat(q.astype(np.float64))
    r = R.from_quat(q)
    assert_close(r.as_matrix(), ref.as_matrix(), **TOL32)
    matrices = ref.as_matrix().astype(np.float32)
    back = R.from_matrix(matrices)
    assert back.quat.shape == q.shape
    assert_close(back.as_quat(canonical=True), ref.as_quat(canonical=True), **TOL32)
    assert_close(back.as_matrix(), matrices, **TOL32)


def test_from_matrix_takes_each_branch():
    """Matrices where each of m00, m11, m22 and the trace is largest (the
    four formulas of Shepperd's method), rotations by pi among them."""
    rotvecs = np.array([[np.pi, 0, 0], [0, np.pi, 0], [0, 0, np.pi], [0.1, 0.2, 0.3], [2.5, 1.0, 0.2],
                        [0.3, 2.6, -0.4], [-0.1, 0.5, 2.9], [0.0, 0.0, 0.0]])
    ref = SR.from_rotvec(rotvecs)
    matrices = ref.as_matrix()
    diag = np.concatenate([np.diagonal(matrices, axis1=1, axis2=2), np.trace(matrices, axis1=1, axis2=2)[:, None]],
                          axis=1)
    assert set(np.argmax(diag, axis=1)) == {0, 1, 2, 3}
    got = R.from_matrix(matrices.astype(np.float32))
    assert_same_rotation(got.quat, ref.as_quat())
    assert_close(got.as_matrix(), matrices, **TOL32)


@pytest.mark.parametrize("degrees", [False, True])
def test_rotation_vectors_both_ways(degrees):
    rotvecs = np.concatenate([RNG.normal(size=(6, 3)),
                              [[0.0, 0.0, 0.0], [1e-5, -2e-5, 3e-6], [4e-4, 3e-4, 0.0], [0.0, 0.0, np.pi - 1e-3],
                               [(np.pi - 2e-3) / np.sqrt(3)] * 3]])
    if degrees:
        rotvecs = np.rad2deg(rotvecs)
    rotvecs32 = rotvecs.astype(np.float32)
    ref = SR.from_rotvec(rotvecs32.astype(np.float64), degrees=degrees)
    r = R.from_rotvec(rotvecs32, degrees=degrees)
    assert_close(r.quat, ref.as_quat(), **TOL32)
    scale = 57.3 if degrees else 1.0
    assert_close(r.as_rotvec(degrees=degrees), ref.as_rotvec(degrees=degrees), rtol=2e-5, atol=5e-5 * scale)
    assert_close(R.from_rotvec(rotvecs32[0], degrees=degrees).as_rotvec(degrees=degrees), rotvecs32[0],
                 rtol=2e-5, atol=5e-5 * scale)
    # A quaternion with w < 0 gives the rotation vector of angle <= pi.
    q = ref.as_quat().astype(np.float32)
    assert_close(R.from_quat(-q).as_rotvec(degrees=degrees), ref.as_rotvec(degrees=degrees), rtol=2e-5,
                 atol=5e-5 * scale)


def test_modified_rodrigues_parameters_both_ways():
    mrps = np.concatenate([RNG.normal(size=(6, 3)) * 0.5, [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0]]]).astype(np.float32)
    ref = SR.from_mrp(mrps.astype(np.float64))
    r = R.from_mrp(mrps)
    assert_close(r.quat, ref.as_quat(), **TOL32)
    assert_close(r.as_mrp(), ref.as_mrp(), **TOL32)
    # |mrp| <= 1 for either sign of the quaternion (but at angle pi, where both are).
    assert_close(R.from_quat(-np.asarray(r.quat[:7])).as_mrp(), ref.as_mrp()[:7], **TOL32)
    q = random_quats(8)
    assert_close(R.from_quat(q).as_mrp(), SR.from_quat(q).as_mrp(), **TOL32)


@pytest.mark.parametrize("seq", SEQS)
@pytest.mark.parametrize("degrees", [False, True])
def test_from_euler_every_sequence(seq, degrees):
    angles = RNG.uniform(-np.pi, np.pi, size=(5, 3))
    if degrees:
        angles = np.rad2deg(angles)
    angles = angles.astype(np.float32)
    ref = SR.from_euler(seq, angles.astype(np.float64), degrees=degrees)
    r = R.from_euler(seq, angles, degrees=degrees)
    assert_close(r.quat, ref.as_quat(), **TOL32)
    single = R.from_euler(seq, angles[0], degrees=degrees)
    assert single.single
    assert_close(single.quat, ref.as_quat()[0], **TOL32)


@pytest.mark.parametrize("seq", SEQS)
@pytest.mark.parametrize("degrees", [False, True])
def test_as_euler_every_sequence(seq, degrees):
    q = random_quats(8)
    ref = SR.from_quat(q.astype(np.float64))
    got = R.from_quat(q).as_euler(seq, degrees=degrees)
    want = ref.as_euler(seq, degrees=degrees)
    assert got.shape == (8, 3) and got.dtype == np.float32
    if degrees:
        got, want = np.deg2rad(np.asarray(got)), np.deg2rad(want)
    assert_angles_close(got, want, atol=1e-4)
    got = np.asarray(got)
    assert np.all(got >= -np.pi - 1e-6) and np.all(got <= np.pi + 1e-6)
    # Round trip: the angles make the same rotation.
    back = R.from_euler(seq, R.from_quat(q).as_euler(seq, degrees=degrees), degrees=degrees)
    assert_close(back.as_matrix(), ref.as_matrix(), **TOL32)
    single = R.from_quat(q[3]).as_euler(seq, degrees=degrees)
    assert single.shape == (3,)


@pytest.mark.parametrize("seq", ["x", "Y", "z", "xy", "ZX", "yz", "YX"])
def test_from_euler_one_and_two_axes(seq):
    angles = RNG.uniform(-3, 3, size=(4, len(seq))).astype(np.float32)
    ref = SR.from_euler(seq, angles.astype(np.float64))
    assert_close(R.from_euler(seq, angles).quat, ref.as_quat(), **TOL32)
    assert_close(R.from_euler(seq, angles, degrees=True).quat,
                 SR.from_euler(seq, angles.astype(np.float64), degrees=True).as_quat(), **TOL32)
    if len(seq) == 1:
        scalar = R.from_euler(seq, np.float32(0.7))
        assert scalar.single
        assert_close(scalar.quat, SR.from_euler(seq, 0.7).as_quat(), **TOL32)


def test_from_euler_docstring_example():
    r = R.from_euler("z", 90, degrees=True)
    assert r.single and r.quat.dtype == np.float32 and not r.quat.weak_type  # as JAX
    assert_close(r.as_rotvec(), np.array([0.0, 0.0, np.pi / 2]), **TOL32)
    r3 = r * R.from_euler("x", 90, degrees=True)
    assert_close(r3.as_matrix(), np.array([[0.0, 0, 1], [1, 0, 0], [0, 1, 0]]), **TOL32)


@pytest.mark.parametrize("seq", ["xyz", "ZYX", "zxz", "XZX", "yxz", "YZY"])
@pytest.mark.parametrize("middle", ["low", "high"])
def test_as_euler_gimbal_lock(seq, middle, x64):
    """The middle angle at a gimbal lock: the third angle is 0 and the first
    takes the rotation, as SciPy (with its warning silenced)."""
    symmetric = seq[0] == seq[2]
    value = {("low", True): 0.0, ("high", True): np.pi, ("low", False): -np.pi / 2, ("high", False): np.pi / 2}
    angles = np.array([[0.4, value[middle, symmetric], -0.3], [1.2, value[middle, symmetric], 0.0]])
    ref = SR.from_euler(seq, angles)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = ref.as_euler(seq)
    got = R.from_quat(ref.as_quat()).as_euler(seq)
    assert_angles_close(got, want, atol=1e-7)
    assert np.all(np.asarray(got)[:, 2] == 0)  # SciPy zeroes the last angle, either convention
    assert_close(R.from_euler(seq, got).as_matrix(), ref.as_matrix(), rtol=1e-9, atol=1e-9)


# --- operations ------------------------------------------------------------------

@pytest.mark.parametrize("rot_shape, vec_shape, out_shape", [
    ((4,), (3,), (3,)), ((4,), (6, 3), (6, 3)), ((6, 4), (3,), (6, 3)), ((6, 4), (6, 3), (6, 3)),
    ((1, 4), (6, 3), (6, 3))])
@pytest.mark.parametrize("inverse", [False, True])
def test_apply(rot_shape, vec_shape, out_shape, inverse):
    q = RNG.normal(size=rot_shape).astype(np.float32)
    v = RNG.normal(size=vec_shape).astype(np.float32)
    got = R.from_quat(q).apply(v, inverse=inverse)
    want = SR.from_quat(q.astype(np.float64)).apply(v.astype(np.float64), inverse=inverse)
    assert got.shape == out_shape and got.dtype == np.float32
    assert_close(got, want.reshape(out_shape), **TOL32)
    assert_close(jaxc.jit(lambda r, x: r.apply(x, inverse))(R.from_quat(q), v), np.asarray(got), **TOL32)


def test_apply_list_and_integer_vectors():
    r = R.from_euler("z", 90, degrees=True)
    assert_close(r.apply([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]), **TOL32)
    out = r.apply(np.array([[1, 0, 0], [0, 2, 0]]))
    assert out.dtype == np.float32
    assert_close(out, np.array([[0.0, 1.0, 0.0], [-2.0, 0.0, 0.0]]), **TOL32)


def test_composition_inverse_magnitude_identity():
    q1, q2 = random_quats(5), random_quats(5)
    r1, r2 = R.from_quat(q1), R.from_quat(q2)
    s1, s2 = SR.from_quat(q1), SR.from_quat(q2)
    assert_same_rotation((r1 * r2).quat, (s1 * s2).as_quat())
    assert_same_rotation((r1[2] * r2).quat, (s1[2] * s2).as_quat())
    assert_same_rotation((r1 * r2[3]).quat, (s1 * s2[3]).as_quat())
    assert (r1[2] * r2[3]).single
    assert_close(r1.inv().quat, s1.inv().as_quat(), **TOL32)
    assert_close((r1 * r1.inv()).as_matrix(), np.broadcast_to(np.eye(3), (5, 3, 3)), **TOL32)
    assert_close(r1.magnitude(), s1.magnitude(), **TOL32)
    assert r1[0].magnitude().shape == ()
    assert_close(R.from_quat(-q1).magnitude(), s1.magnitude(), **TOL32)
    ident = R.identity()
    assert ident.single and ident.quat.dtype == np.float32
    assert_close(ident.quat, np.array([0.0, 0.0, 0.0, 1.0]))
    assert R.identity(dtype=jnp.float16).quat.dtype == np.float16
    assert_close((r1 * ident).quat, np.asarray(r1.quat), **TOL32)
    assert_close(ident.as_matrix(), np.eye(3))
    # Broadcasting keeps batch axes, as JAX's vectorized functions.
    assert (R.from_quat(random_quats(3)[:, None]) * R.from_quat(random_quats(4))).quat.shape == (3, 4, 4)


@pytest.mark.parametrize("weighted", [False, True])
def test_mean(weighted):
    # Rotations near one another (their mean is well defined).
    rotvecs = np.array([0.3, -0.2, 0.5]) + 0.3 * RNG.normal(size=(10, 3))
    q = SR.from_rotvec(rotvecs).as_quat().astype(np.float32)
    q[::3] *= -1  # the mean does not care about the quaternions' signs
    weights = RNG.uniform(0.1, 2.0, size=10).astype(np.float32) if weighted else None
    got = R.from_quat(q).mean(weights)
    want = SR.from_quat(q.astype(np.float64)).mean(weights)
    assert got.single
    assert_close(got.as_matrix(), want.as_matrix(), rtol=1e-4, atol=1e-4)
    if weighted:
        # A list of weights, and all the weight on one rotation.
        assert_close(R.from_quat(q).mean(list(map(float, weights))).as_matrix(), want.as_matrix(), rtol=1e-4,
                     atol=1e-4)
        one_hot = np.zeros(10, np.float32)
        one_hot[4] = 1
        assert_close(R.from_quat(q).mean(one_hot).as_matrix(), SR.from_quat(q[4]).as_matrix(), rtol=1e-4,
                     atol=1e-4)


def test_concatenate_indexing_len_single():
    q = random_quats(6)
    r = R.from_quat(q)
    both = R.concatenate([r[:2], r[2:]])
    assert len(both) == 6
    assert_close(both.quat, np.asarray(r.quat))
    assert_close(R.concatenate([r[:2], r[3:5]]).quat,
                 SR.concatenate([SR.from_quat(q[:2]), SR.from_quat(q[3:5])]).as_quat(), **TOL32)
    assert len(r) == 6 and not r.single
    assert r[1].single and r[1].quat.shape == (4,)
    assert r[1:4].quat.shape == (3, 4) and len(r[1:4]) == 3
    assert_close(r[np.array([0, 5])].quat, np.asarray(r.quat)[[0, 5]])
    assert len(r[2:3]) == 1
    with pytest.raises(TypeError, match="not subscriptable"):
        r[0][0]
    with pytest.raises(TypeError, match="no len"):
        len(r[0])


def test_random():
    key = jaxc.random.key(0)
    one = R.random(key)
    assert one.single and one.quat.dtype == np.float32
    many = R.random(key, 2000)
    assert many.quat.shape == (2000, 4) and len(many) == 2000
    assert_close(jnp.linalg.norm(many.quat, axis=-1), np.ones(2000), **TOL32)
    assert_close(R.random(key, 2000).quat, np.asarray(many.quat))  # one key, one answer
    assert not np.allclose(np.asarray(R.random(jaxc.random.key(1), 2000).quat), np.asarray(many.quat))
    # Uniform on SO(3): the mean rotation matrix is ~0 and the angles have
    # density (1 - cos t) / pi, mean pi/2 + 2/pi.
    assert np.abs(np.mean(np.asarray(many.as_matrix()), axis=0)).max() < 0.05
    assert abs(float(jnp.mean(many.magnitude())) - (np.pi / 2 + 2 / np.pi)) < 0.05
    assert R.random(jaxc.random.PRNGKey(3), 2).quat.shape == (2, 4)


# --- Slerp ---------------------------------------------------------------------

def _key_rotations(n=5):
    return SR.from_rotvec(RNG.normal(size=(n, 3)))


def test_slerp_against_scipy():
    keys = _key_rotations()
    times = np.array([0.0, 0.5, 2.0, 2.25, 4.0])
    q = keys.as_quat().astype(np.float32)
    ours = Slerp.init(times, R.from_quat(q))
    theirs = SSlerp(times, SR.from_quat(q.astype(np.float64)))
    assert_close(ours.times, times) and assert_close(ours.timedelta, np.diff(times))
    # At the key frames, between them, and at the ends.
    queries = np.concatenate([times, [0.1, 0.3, 1.0, 1.99, 2.1, 3.0, 3.9999]]).astype(np.float32)
    got = ours(queries)
    assert got.quat.shape == (len(queries), 4) and got.quat.dtype == np.float32
    assert_same_rotation(got.quat, theirs(queries).as_quat(), rtol=1e-4, atol=1e-4)
    assert_same_rotation(ours(queries[:5]).quat, q, rtol=1e-4, atol=1e-4)
    one = ours(1.0)
    assert one.single
    assert_same_rotation(one.quat, theirs(1.0).as_quat(), rtol=1e-4, atol=1e-4)
    assert_same_rotation(ours([1.0, 3.0]).quat, theirs([1.0, 3.0]).as_quat(), rtol=1e-4, atol=1e-4)


def test_slerp_docstring_example():
    rots = jnp.array([[90, 0, 0], [0, 45, 0], [0, 0, -30]])
    slerp = Slerp.init([0, 1, 2], R.from_euler("zxy", rots, degrees=True))
    got = slerp(jnp.array([0, 0.5, 1, 1.5, 2])).as_euler("zxy")
    want = np.array([[1.5707963e+00, 0.0, 0.0], [8.5309029e-01, 3.8711953e-01, 1.7768645e-01],
                     [0.0, 7.8539824e-01, 0.0], [-5.6668043e-02, 3.9213133e-01, -2.8347540e-01],
                     [0.0, 0.0, -5.2359891e-01]])
    assert_angles_close(got, want, atol=2e-5)


def test_slerp_extrapolates_the_end_intervals():
    """Outside the key times the first and last intervals continue at their
    angular velocity (SciPy raises; JAX 0.10 does so before the first key
    but jumps back past the last one, see `Slerp.__call__`)."""
    axis = np.array([0.0, 0.0, 1.0])
    keys = R.from_rotvec(np.outer([0.0, 0.2, 0.6], axis).astype(np.float32))
    slerp = Slerp.init(np.array([0.0, 1.0, 2.0]), keys)
    got = slerp(np.array([-1.0, -0.5, 2.0, 2.25, 2.5, 3.0], np.float32)).as_rotvec()
    assert_close(got, np.outer([-0.2, -0.1, 0.6, 0.7, 0.8, 1.0], axis), **TOL32)


def test_slerp_float64(x64):
    keys = _key_rotations(4)
    times = np.array([0.0, 1.0, 1.5, 3.0])
    ours = Slerp.init(times, R.from_quat(keys.as_quat()))
    assert ours.times.dtype == np.float64
    queries = np.linspace(0, 3, 13)
    assert_same_rotation(ours(queries).quat, SSlerp(times, keys)(queries).as_quat(), rtol=1e-12, atol=1e-12)


# --- float64 -------------------------------------------------------------------

def test_float64_conversions_against_scipy(x64):
    q = random_quats(10, np.float64)
    ref = SR.from_quat(q)
    r = R.from_quat(q)
    assert r.quat.dtype == np.float64 and R.identity().quat.dtype == np.float64
    assert_close(r.as_matrix(), ref.as_matrix(), **TOL64)
    assert_same_rotation(R.from_matrix(ref.as_matrix()).quat, ref.as_quat(), **TOL64)
    assert_close(r.as_rotvec(), ref.as_rotvec(), **TOL64)
    assert_close(R.from_rotvec(ref.as_rotvec()).quat, ref.as_quat(canonical=True), **TOL64)
    assert_close(r.as_mrp(), ref.as_mrp(), **TOL64)
    assert_close(R.from_mrp(ref.as_mrp()).quat, ref.as_quat(canonical=True), **TOL64)
    assert_close(r.magnitude(), ref.magnitude(), **TOL64)
    v = RNG.normal(size=(10, 3))
    assert_close(r.apply(v), ref.apply(v), **TOL64)
    assert_close(r.apply(v, inverse=True), ref.apply(v, inverse=True), **TOL64)
    for seq in SEQS:
        assert_angles_close(r.as_euler(seq), ref.as_euler(seq), atol=1e-11)
        angles = RNG.uniform(-3, 3, size=(10, 3))
        assert_close(R.from_euler(seq, angles).quat, SR.from_euler(seq, angles).as_quat(), **TOL64)
    w = RNG.uniform(size=10)
    assert_close(r.mean(w).as_matrix(), ref.mean(w).as_matrix(), rtol=1e-10, atol=1e-10)
    # Small angles: the series branches.
    small = np.array([[1e-9, 0, 0], [3e-4, -2e-4, 5e-4], [0, 0, 0]])
    assert_close(R.from_rotvec(small).quat, SR.from_rotvec(small).as_quat(), rtol=1e-15, atol=1e-15)
    assert_close(R.from_rotvec(small).as_rotvec(), small, rtol=1e-13, atol=1e-20)


# --- jit, vmap, grad -------------------------------------------------------------

def test_under_jit():
    q = random_quats(6)
    v = RNG.normal(size=(6, 3)).astype(np.float32)

    def many(quat, vectors):
        r = R.from_quat(quat)
        return (r.as_matrix(), r.as_rotvec(), r.as_mrp(), r.as_euler("zyx"), r.as_euler("XZX", degrees=True),
                r.apply(vectors), r.magnitude(), r.mean().as_matrix(), (r * r.inv()[0]).quat,
                R.from_matrix(r.as_matrix()).as_quat(canonical=True), R.from_rotvec(vectors).quat,
                R.from_mrp(vectors).quat, R.from_euler("xYz".lower(), vectors).quat,
                Slerp.init(jnp.arange(6.0), r)(jnp.array([0.5, 4.25])).quat)

    eager = many(q, v)
    jitted = jaxc.jit(many)(q, v)
    for a, b in zip(jitted, eager):
        assert_close(a, np.asarray(b), rtol=1e-5, atol=1e-5)


def test_traced_flags_under_jit():
    """`degrees` and `inverse` may be arrays, as in JAX (a jnp.where)."""
    r = R.from_quat(random_quats(1)[0])
    v = np.array([1.0, 2.0, 3.0], np.float32)
    f = jaxc.jit(lambda rot, flag: (rot.apply(v, flag), rot.as_rotvec(flag), rot.as_euler("xyz", flag),
                                    R.from_rotvec(v, flag).quat, R.from_euler("XY", v[:2], flag).quat))
    for flag in (True, False):
        got = f(r, flag)
        want = (r.apply(v, flag), r.as_rotvec(flag), r.as_euler("xyz", flag), R.from_rotvec(v, flag).quat,
                R.from_euler("XY", v[:2], flag).quat)
        for a, b in zip(got, want):
            assert_close(a, np.asarray(b), **TOL32)


def test_vmap_matches_a_loop():
    rotvecs = RNG.normal(size=(5, 3)).astype(np.float32)
    vectors = RNG.normal(size=(5, 4, 3)).astype(np.float32)
    got = jaxc.vmap(lambda rv, vs: R.from_rotvec(rv).apply(vs))(rotvecs, vectors)
    want = np.stack([np.asarray(R.from_rotvec(rotvecs[n]).apply(vectors[n])) for n in range(5)])
    assert_close(got, want, **TOL32)

    q = random_quats(5)
    got = jaxc.vmap(lambda r: r.as_euler("ZXZ"))(R.from_quat(q))
    want = np.stack([np.asarray(R.from_quat(q[n]).as_euler("ZXZ")) for n in range(5)])
    assert_close(got, want, **TOL32)

    stacks = random_quats(15).reshape(3, 5, 4)
    got = jaxc.vmap(lambda qs: R.from_quat(qs).mean().as_matrix())(stacks)
    want = np.stack([np.asarray(R.from_quat(stacks[n]).mean().as_matrix()) for n in range(3)])
    assert_close(got, want, rtol=1e-4, atol=1e-4)

    slerp = Slerp.init(np.array([0.0, 1.0, 3.0]), R.from_quat(random_quats(3)))
    times = np.array([0.25, 1.5, 2.9], np.float32)
    got = jaxc.vmap(lambda t: slerp(t).quat)(times)
    want = np.stack([np.asarray(slerp(t).quat) for t in times])
    assert_close(got, want, **TOL32)


def test_gradients(x64):
    rotvec = np.array([0.3, -0.7, 0.5])
    v = np.array([1.0, 2.0, -0.5])
    check_grads(lambda r, x: R.from_rotvec(r).apply(x), (rotvec, v), order=1, modes=("fwd", "rev"))
    check_grads(lambda r, x: R.from_rotvec(r).apply(x, inverse=True), (rotvec, v), order=1, modes=("fwd", "rev"))
    check_grads(lambda q: R.from_quat(q).as_rotvec(), (np.array([0.1, 0.2, -0.3, 0.9]),), order=1,
                modes=("fwd", "rev"))
    check_grads(lambda a: R.from_euler("zyx", a).as_matrix(), (np.array([0.4, -0.3, 1.1]),), order=1,
                modes=("fwd", "rev"))
    check_grads(lambda q: R.from_quat(q).as_euler("XZX"), (np.array([0.1, 0.2, -0.3, 0.9]),), order=1,
                modes=("fwd", "rev"))
    check_grads(lambda m: R.from_mrp(m).as_mrp(), (np.array([0.2, -0.1, 0.4]),), order=1, modes=("fwd", "rev"))
    check_grads(lambda r: R.from_rotvec(r).magnitude(), (rotvec,), order=1, modes=("fwd", "rev"))
    slerp = Slerp.init(np.array([0.0, 1.0, 2.0]), R.from_rotvec(RNG.normal(size=(3, 3))))
    check_grads(lambda t: slerp(t).as_matrix(), (np.array([0.3, 1.4]),), order=1, modes=("fwd", "rev"))
    # The magnitude along a fixed axis is the angle: derivative 1.
    axis = rotvec / np.linalg.norm(rotvec)
    assert_close(jaxc.grad(lambda t: R.from_rotvec(t * axis).magnitude())(0.8), 1.0, rtol=1e-12)


def test_gradient_at_the_identity_is_finite(x64):
    """d/dr R(r) v at r = 0 is the cross product r x v (the series branch
    keeps it finite; JAX 0.10's gives NaN there)."""
    v = np.array([1.0, 2.0, -0.5])
    jac = jaxc.jacfwd(lambda r: R.from_rotvec(r).apply(v))(np.zeros(3))
    cross = np.array([[0.0, v[2], -v[1]], [-v[2], 0.0, v[0]], [v[1], -v[0], 0.0]])  # d(r x v)/dr
    assert_close(jac, cross, rtol=1e-12, atol=1e-12)
    jac = jaxc.jacrev(lambda r: R.from_rotvec(r).as_rotvec())(np.zeros(3))
    assert_close(jac, np.eye(3), rtol=1e-12, atol=1e-12)


# --- dtypes and errors -------------------------------------------------------------

def test_dtypes():
    half = np.array([0.0, 0.0, 0.0, 1.0], np.float16)
    r = R.from_quat(half)
    assert r.quat.dtype == np.float16
    for out in (r.as_matrix(), r.as_euler("xyz"), r.as_rotvec(), r.as_mrp(), r.magnitude(), r.inv().quat,
                R.from_matrix(np.eye(3, dtype=np.float16)).quat, R.from_mrp(half[:3]).quat,
                R.from_rotvec(half[:3]).quat, R.from_euler("xyz", half[:3]).quat):
        assert out.dtype == np.float16
    for out in (R.from_quat(np.array([0, 0, 0, 1])).quat, R.from_matrix(np.eye(3, dtype=int)).quat,
                R.from_rotvec(np.array([0, 0, 1])).quat, R.from_mrp(np.array([0, 0, 1])).quat,
                R.from_euler("xyz", np.array([1, 2, 3]), degrees=True).quat, R.from_quat([0.0, 0.0, 0.0, 1.0]).quat,
                r.apply(np.ones(3)), Slerp.init(np.arange(2), R.from_quat(np.eye(4)[2:])).times):
        assert out.dtype == np.float32
    assert_close(R.from_matrix(np.eye(3, dtype=int)).quat, np.array([0.0, 0.0, 0.0, 1.0]))


def test_dtypes_match_jax():
    jax = pytest.importorskip("jax")
    from jax.scipy.spatial.transform import Rotation as JR

    for q in (np.array([0.0, 0.0, 0.6, 0.8], np.float16), np.array([0.0, 0.0, 0.6, 0.8], np.float32),
              np.array([0, 0, 1, 1])):
        ours, theirs = R.from_quat(q), JR.from_quat(q)
        for name in ("as_matrix", "as_rotvec", "as_mrp", "magnitude", "as_quat"):
            assert getattr(ours, name)().dtype == getattr(theirs, name)().dtype, name
        assert ours.as_euler("xyz").dtype == theirs.as_euler("xyz").dtype
        assert ours.apply(np.ones(3)).dtype == theirs.apply(np.ones(3)).dtype
    assert jax is not None


# Bad inputs: (name, call on a Rotation/Slerp pair of classes, the exception JAX raises).
_STACK = np.array([[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0]], np.float32)
BAD_INPUTS = [
    ("from_euler empty seq", lambda R, S: R.from_euler("", np.ones(3)), ValueError),
    ("from_euler 4 axes", lambda R, S: R.from_euler("xyzx", np.ones(4)), ValueError),
    ("from_euler mixed case", lambda R, S: R.from_euler("xYz", np.ones(3)), ValueError),
    ("from_euler repeated axis", lambda R, S: R.from_euler("xxz", np.ones(3)), ValueError),
    ("from_euler bad letters", lambda R, S: R.from_euler("abc", np.ones(3)), ValueError),
    ("from_euler angle count", lambda R, S: R.from_euler("xyz", np.ones((2, 2))), ValueError),
    ("from_euler list", lambda R, S: R.from_euler("z", [10.0, 20.0]), TypeError),
    ("as_euler 2 axes", lambda R, S: R.from_quat(_STACK).as_euler("xy"), ValueError),
    ("as_euler mixed case", lambda R, S: R.from_quat(_STACK).as_euler("xYz"), ValueError),
    ("as_euler repeated axis", lambda R, S: R.from_quat(_STACK).as_euler("xxz"), ValueError),
    ("as_euler bad letters", lambda R, S: R.from_quat(_STACK).as_euler("abc"), ValueError),
    ("from_quat scalar", lambda R, S: R.from_quat(1.0), ValueError),
    ("from_matrix vector", lambda R, S: R.from_matrix(np.ones(3)), ValueError),
    ("single getitem", lambda R, S: R.from_quat(_STACK[0])[0], TypeError),
    ("single len", lambda R, S: len(R.from_quat(_STACK[0])), TypeError),
    ("compose mismatch", lambda R, S: R.from_quat(_STACK) * R.from_quat(_STACK[:2]), ValueError),
    ("compose non-rotation", lambda R, S: R.from_quat(_STACK) * 2, AttributeError),
    ("apply mismatch", lambda R, S: R.from_quat(_STACK).apply(np.ones((2, 3))), ValueError),
    ("apply 2-vectors", lambda R, S: R.from_quat(_STACK).apply(np.ones(2)), ValueError),
    ("mean of a single rotation", lambda R, S: R.from_quat(_STACK[0]).mean(), TypeError),
    ("mean 2-D weights", lambda R, S: R.from_quat(_STACK).mean(np.ones((3, 1))), ValueError),
    ("mean weight count", lambda R, S: R.from_quat(_STACK).mean(np.ones(4)), ValueError),
    ("slerp of arrays", lambda R, S: S.init([0.0, 1.0], _STACK[:2]), TypeError),
    ("slerp single", lambda R, S: S.init([0.0], R.from_quat(_STACK[0])), ValueError),
    ("slerp one rotation", lambda R, S: S.init([0.0], R.from_quat(_STACK[:1])), ValueError),
    ("slerp 2-D times", lambda R, S: S.init(np.ones((3, 1)), R.from_quat(_STACK)), ValueError),
    ("slerp time count", lambda R, S: S.init([0.0, 1.0], R.from_quat(_STACK)), ValueError),
    ("slerp 2-D query", lambda R, S: S.init([0.0, 1.0, 2.0], R.from_quat(_STACK))(np.ones((2, 2))), ValueError),
]


@pytest.mark.parametrize("name, call, error", BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_inputs(name, call, error):
    with pytest.raises(error):
        call(R, Slerp)


@pytest.mark.parametrize("name, call, error", BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_inputs_raise_what_jax_raises(name, call, error):
    pytest.importorskip("jax")
    import jax.scipy.spatial.transform as jax_transform

    with pytest.raises(error):
        call(jax_transform.Rotation, jax_transform.Slerp)


@pytest.mark.parametrize("call", [
    lambda: R.from_quat(np.ones(3)), lambda: R.from_quat(np.ones((2, 5))), lambda: R.from_rotvec(np.ones(4)),
    lambda: R.from_rotvec(np.ones((2, 2))), lambda: R.from_mrp(np.ones(4)), lambda: R.from_matrix(np.eye(2)),
    lambda: R.from_matrix(np.ones((3, 4)))])
def test_wrong_last_axis_sizes_raise(call):
    """Where JAX returns a result of the wrong shape, jaxc raises ValueError."""
    with pytest.raises(ValueError, match="expected"):
        call()


def test_what_jax_leaves_unimplemented():
    """JAX 0.10 asserts `num is None` in `identity`, raises NotImplementedError
    in `random` and makes an (8,) quaternion from two single rotations in
    `concatenate`; jaxc does what SciPy does."""
    stack = R.identity(3)
    assert stack.quat.shape == (3, 4) and len(stack) == 3
    assert_close(stack.as_matrix(), np.broadcast_to(np.eye(3), (3, 3, 3)))
    assert R.identity(2, dtype=jnp.float16).quat.dtype == np.float16
    with pytest.raises(TypeError):
        R.identity(1.5)
    r = R.from_quat(random_quats(2))
    joined = R.concatenate([r[0], r[1]])
    assert joined.quat.shape == (2, 4)
    assert_close(joined.quat, np.asarray(r.quat))
    assert R.concatenate([r[0], r]).quat.shape == (3, 4)


# --- JAX itself ---------------------------------------------------------------------

def test_against_jax():
    pytest.importorskip("jax")
    from jax.scipy.spatial.transform import Rotation as JR, Slerp as JSlerp

    q = random_quats(8)
    ours, theirs = R.from_quat(q), JR.from_quat(q)
    assert_close(ours.quat, np.asarray(theirs.quat), **TOL32)
    for name in ("as_matrix", "as_rotvec", "as_mrp", "magnitude"):
        assert_close(getattr(ours, name)(), np.asarray(getattr(theirs, name)()), **TOL32)
    for flags in itertools.product([False, True], repeat=2):
        assert_close(ours.as_quat(*flags), np.asarray(theirs.as_quat(*flags)), **TOL32)
    assert_close(ours.as_rotvec(degrees=True), np.asarray(theirs.as_rotvec(degrees=True)), rtol=2e-5, atol=2e-3)
    for seq in SEQS:
        assert_angles_close(ours.as_euler(seq), np.asarray(theirs.as_euler(seq)), atol=1e-4)
        angles = RNG.uniform(-3, 3, size=(8, 3)).astype(np.float32)
        assert_close(R.from_euler(seq, angles).quat, np.asarray(JR.from_euler(seq, angles).quat), **TOL32)
    m = np.asarray(theirs.as_matrix())
    assert_close(R.from_matrix(m).quat, np.asarray(JR.from_matrix(m).quat), **TOL32)  # the same sign too
    rv = RNG.normal(size=(8, 3)).astype(np.float32)
    assert_close(R.from_rotvec(rv).quat, np.asarray(JR.from_rotvec(rv).quat), **TOL32)
    assert_close(R.from_mrp(rv).quat, np.asarray(JR.from_mrp(rv).quat), **TOL32)
    v = RNG.normal(size=(8, 3)).astype(np.float32)
    for inverse in (False, True):
        assert_close(ours.apply(v, inverse), np.asarray(theirs.apply(v, inverse)), **TOL32)
        assert_close(ours.apply(v[0], inverse), np.asarray(theirs.apply(v[0], inverse)), **TOL32)
    assert_close((ours * ours[3]).quat, np.asarray((theirs * theirs[3]).quat), **TOL32)
    assert_close(ours.inv().quat, np.asarray(theirs.inv().quat), **TOL32)
    w = RNG.uniform(size=8).astype(np.float32)
    assert_same_rotation(ours.mean(w).quat, np.asarray(theirs.mean(w).quat), rtol=1e-4, atol=1e-4)
    assert_close(R.concatenate([ours, ours[:2]]).quat, np.asarray(JR.concatenate([theirs, theirs[:2]]).quat))
    # Gimbal locks (float32 detection threshold) and the [-pi, pi) wrap.
    locked = np.array([[0.4, 0.0, -0.3], [0.1, np.pi, 0.3], [0.2, np.pi / 2, 0.1], [np.pi, 0.5, -np.pi]],
                      np.float32)
    for seq in ("zxz", "ZXZ", "zyx", "ZYX"):
        a, b = R.from_euler(seq, locked).as_euler(seq), JR.from_euler(seq, locked).as_euler(seq)
        assert_angles_close(a, np.asarray(b), atol=1e-4)
    times = np.array([0.0, 1.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0], np.float32)
    queries = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, 2.5, 5.9, 8.0], np.float32)  # not past the end (see above)
    assert_close(Slerp.init(times, ours)(queries).quat, np.asarray(JSlerp.init(times, theirs)(queries).quat),
                 rtol=1e-4, atol=1e-4)
    ours_slerp, theirs_slerp = Slerp.init(times, ours), JSlerp.init(times, theirs)
    for a, b in zip(jaxc.tree_util.tree_leaves(ours_slerp), [np.asarray(x) for x in
                                                             [theirs_slerp.times, theirs_slerp.timedelta,
                                                              theirs_slerp.rotations.quat, theirs_slerp.rotvecs]]):
        assert_close(a, b, rtol=1e-4, atol=1e-4)
