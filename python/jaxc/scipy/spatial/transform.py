"""`jaxc.scipy.spatial.transform`: `Rotation` and `Slerp`, the 3-D rotations
of `jax.scipy.spatial.transform` (SciPy's API on scalar-last unit
quaternions). Both are NamedTuples, and so pytrees: they pass through `jit`,
`vmap` and `grad` as their arrays.

    r = Rotation.from_euler("zyx", jnp.array([[90, 0, 0], [0, 45, 0]]), degrees=True)
    v = r.apply(jnp.array([1.0, 0.0, 0.0]))         # (2, 3): both rotations
    m = (r[0] * r[1].inv()).as_matrix()              # composition, (3, 3)
    s = Slerp.init(jnp.array([0.0, 1.0]), r)
    halfway = s(0.5).as_rotvec()
"""
from __future__ import annotations

import re
from typing import Any, NamedTuple, Sequence

import numpy as np

from ... import lax, numpy as _numpy, random as jrandom
from ...numpy._util import promote_dtypes_inexact

__all__ = ["Rotation", "Slerp"]

# jnp's elementwise functions (where, sin, arctan2, ...) are made from tables
# at import time, invisible to mypy: type the module as Any here.
jnp: Any = _numpy

# Below this angle (radians) the rotation-vector scales use their Taylor series.
_SMALL_ANGLE = 1e-3
# The middle Euler angle this close to 0 or pi is a gimbal lock (as SciPy and JAX).
_GIMBAL_EPS = 1e-7


# --- helpers: every quaternion is (..., 4), scalar last; batch axes broadcast

def _inexact(name: str, x: Any) -> Any:
    """`x` as an array of a floating dtype (ints and bools become floats),
    not weakly typed (as JAX's results, even from Python scalars)."""
    x = promote_dtypes_inexact(name, jnp.asarray(x))[0]
    return lax.convert_element_type(x, x.dtype, False)


def _check_last(name: str, x: Any, size: int, what: str) -> None:
    if x.ndim < 1 or x.shape[-1] != size:
        raise ValueError(f"{name}: expected {what} of shape (..., {size}), got shape {x.shape}")


def _batch_shape(name: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The broadcast batch shape, a ValueError (as JAX's) when there is none."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(f"{name}: incompatible shapes for broadcasting: shapes={list(shapes)}") from None


def _is_static(flag: Any) -> bool:
    return isinstance(flag, (bool, int, np.bool_, np.integer))


def _if(flag: Any, if_true: Any, if_false: Any) -> Any:
    """`if_true() if flag else if_false()` for a Python flag, `jnp.where` of
    both for a traced one (JAX takes `degrees` and `inverse` as arrays too)."""
    if _is_static(flag):
        return if_true() if flag else if_false()
    return jnp.where(flag, if_true(), if_false())


def _safe_norm(v: Any) -> Any:
    """The Euclidean norm over the last axis, differentiable (zero) at 0."""
    squared = jnp.sum(v * v, axis=-1)
    zero = squared == 0
    return jnp.where(zero, 0, jnp.sqrt(jnp.where(zero, 1, squared)))


def _normalize(q: Any) -> Any:
    return q / jnp.sqrt(jnp.sum(q * q, axis=-1, keepdims=True))


def _compose(p: Any, q: Any) -> Any:
    """The Hamilton product p q: the rotation q, then p."""
    _batch_shape("Rotation.__mul__", p.shape[:-1], q.shape[:-1])
    px, py, pz, pw = (p[..., n] for n in range(4))
    qx, qy, qz, qw = (q[..., n] for n in range(4))
    return jnp.stack([pw * qx + qw * px + (py * qz - pz * qy),
                      pw * qy + qw * py + (pz * qx - px * qz),
                      pw * qz + qw * pz + (px * qy - py * qx),
                      pw * qw - px * qx - py * qy - pz * qz], axis=-1)


def _as_matrix(q: Any) -> Any:
    x, y, z, w = (q[..., n] for n in range(4))
    xx, yy, zz, ww = x * x, y * y, z * z, w * w
    xy, xz, yz, xw, yw, zw = x * y, x * z, y * z, x * w, y * w, z * w
    rows = [[xx - yy - zz + ww, 2 * (xy - zw), 2 * (xz + yw)],
            [2 * (xy + zw), -xx + yy - zz + ww, 2 * (yz - xw)],
            [2 * (xz - yw), 2 * (yz + xw), -xx - yy + zz + ww]]
    return jnp.stack([jnp.stack(row, axis=-1) for row in rows], axis=-2)


def _from_matrix(m: Any) -> Any:
    """Shepperd's method: of the four formulas (one per diagonal entry and
    one for the trace) use the best conditioned, then normalize."""
    e = [[m[..., r, c] for c in range(3)] for r in range(3)]
    trace = e[0][0] + e[1][1] + e[2][2]
    candidates = jnp.stack([
        jnp.stack([1 - trace + 2 * e[0][0], e[1][0] + e[0][1], e[2][0] + e[0][2], e[2][1] - e[1][2]], axis=-1),
        jnp.stack([e[0][1] + e[1][0], 1 - trace + 2 * e[1][1], e[2][1] + e[1][2], e[0][2] - e[2][0]], axis=-1),
        jnp.stack([e[0][2] + e[2][0], e[1][2] + e[2][1], 1 - trace + 2 * e[2][2], e[1][0] - e[0][1]], axis=-1),
        jnp.stack([e[2][1] - e[1][2], e[0][2] - e[2][0], e[1][0] - e[0][1], 1 + trace], axis=-1),
    ], axis=-2)  # (..., 4 formulas, 4)
    choice = jnp.argmax(jnp.stack([e[0][0], e[1][1], e[2][2], trace], axis=-1), axis=-1)
    quat = jnp.take_along_axis(candidates, choice[..., None, None], axis=-2)[..., 0, :]
    return _normalize(quat)


def _from_rotvec(rotvec: Any) -> Any:
    """exp of a rotation vector (radians): [sin(t/2) v/t, cos(t/2)], t = |v|."""
    angle2 = jnp.sum(rotvec * rotvec, axis=-1)
    small = angle2 <= _SMALL_ANGLE ** 2
    angle = jnp.sqrt(jnp.where(small, 1, angle2))  # the large-angle branch only
    scale = jnp.where(small, 0.5 - angle2 / 48 + angle2 * angle2 / 3840, jnp.sin(angle / 2) / angle)
    w = jnp.where(small, 1 - angle2 / 8 + angle2 * angle2 / 384, jnp.cos(angle / 2))
    return jnp.concatenate([scale[..., None] * rotvec, w[..., None]], axis=-1)


def _as_rotvec(q: Any) -> Any:
    """log of a unit quaternion: a rotation vector of angle in [0, pi]."""
    q = jnp.where(q[..., 3:] < 0, -q, q)
    v, w = q[..., :3], q[..., 3]
    norm = _safe_norm(v)
    angle = 2 * jnp.arctan2(norm, w)
    small = angle <= _SMALL_ANGLE
    # Near 0, angle ~ 2|v|/w: its square has a derivative at v = 0.
    small2 = 4 * jnp.sum(v * v, axis=-1) / jnp.where(small, w * w, 1)
    safe = jnp.where(small, 1, angle)
    scale = jnp.where(small, 2 + small2 / 12 + 7 * small2 * small2 / 2880, safe / jnp.sin(safe / 2))
    return scale[..., None] * v


def _as_mrp(q: Any) -> Any:
    sign = jnp.where(q[..., 3:] < 0, -1.0, 1.0).astype(q.dtype)
    return sign * q[..., :3] / (1 + sign * q[..., 3:])


def _from_mrp(mrp: Any) -> Any:
    s = jnp.sum(mrp * mrp, axis=-1, keepdims=True) + 1
    return jnp.concatenate([2 * mrp, 2 - s], axis=-1) / s


def _canonical(q: Any) -> Any:
    """The sign of `q` whose first nonzero of (w, x, y, z) is positive."""
    x, y, z, w = (q[..., n] for n in range(4))
    neg = (w < 0) | ((w == 0) & ((x < 0) | ((x == 0) & ((y < 0) | ((y == 0) & (z < 0))))))
    return jnp.where(neg[..., None], -q, q)


def _parse_seq(seq: str, as_euler: bool) -> tuple[list[int], bool]:
    """The axis indices of an Euler sequence and whether it is extrinsic
    (lower case) or intrinsic (upper case), with JAX's ValueErrors."""
    if as_euler:
        if len(seq) != 3:
            raise ValueError(f"Expected 3 axes, got {seq}.")
    elif len(seq) < 1 or len(seq) > 3:
        raise ValueError(f"Expected axis specification to be a non-empty string of upto 3 characters, got {seq}")
    intrinsic = re.match(r"^[XYZ]{1,3}$", seq) is not None
    extrinsic = re.match(r"^[xyz]{1,3}$", seq) is not None
    if not (intrinsic or extrinsic):
        raise ValueError(f"Expected axes from `seq` to be from ['x', 'y', 'z'] or ['X', 'Y', 'Z'], got {seq}")
    if any(seq[n] == seq[n + 1] for n in range(len(seq) - 1)):
        raise ValueError(f"Expected consecutive axes to be different, got {seq}")
    return ["xyz".index(c) for c in seq.lower()], extrinsic


def _euler_from_quat(q: Any, axes: list[int], extrinsic: bool) -> Any:
    """Euler angles (radians, each in [-pi, pi)) of unit quaternions: the
    method of Bernardes and Viollet (2022), as SciPy. At a gimbal lock the
    third angle is 0."""
    i, j, k = axes if extrinsic else axes[::-1]
    symmetric = i == k
    if symmetric:
        k = 3 - i - j
    sign = (i - j) * (j - k) * (k - i) // 2
    qi, qj, qk, qw = q[..., i], q[..., j], q[..., k], q[..., 3]
    if symmetric:
        a, b, c, d = qw, qi, qj, qk * sign
    else:
        a, b, c, d = qw - qj, qi + qk * sign, qj + qw, qk * sign - qi
    middle = 2 * jnp.arctan2(jnp.hypot(c, d), jnp.hypot(a, b))
    half_sum, half_diff = jnp.arctan2(b, a), jnp.arctan2(d, c)
    near_zero = jnp.abs(middle) <= _GIMBAL_EPS
    regular = ~(near_zero | (jnp.abs(middle - np.pi) <= _GIMBAL_EPS))
    locked_first = jnp.where(near_zero, 2 * half_sum, 2 * half_diff * (-1 if extrinsic else 1))
    # Locked: angle 0 takes the whole rotation about its axis, angle 2 is 0.
    locked = [locked_first, jnp.zeros_like(middle)]
    first, third = (0, 2) if extrinsic else (2, 0)
    angles = [middle, middle, middle]
    angles[first] = jnp.where(regular, half_sum - half_diff, locked[first // 2])
    angles[third] = jnp.where(regular, half_sum + half_diff, locked[third // 2])
    if not symmetric:
        angles[third] = angles[third] * sign
        angles[1] = middle - np.pi / 2
    out = jnp.stack(angles, axis=-1)
    return (out + np.pi) % (2 * np.pi) - np.pi


class Rotation(NamedTuple):
    """Rotations in 3 dimensions, held as unit quaternions `quat` (x, y, z, w),
    shape ``(4,)`` for a single rotation or ``(N, 4)`` for a stack;
    `jax.scipy.spatial.transform.Rotation`.

        r = Rotation.from_rotvec(jnp.array([0.0, 0.0, jnp.pi / 2]))
        r.apply(jnp.array([1.0, 0.0, 0.0]))      # ~[0, 1, 0]
    """

    quat: Any

    @classmethod
    def concatenate(cls, rotations: Sequence[Rotation]) -> Rotation:
        """One stack of the rotations of a sequence of `Rotation`s (single
        rotations count as stacks of one)."""
        return cls(jnp.concatenate([jnp.reshape(r.quat, (-1, 4)) if r.quat.ndim == 1 else r.quat
                                    for r in rotations]))

    @classmethod
    def from_euler(cls, seq: str, angles: Any, degrees: bool = False) -> Rotation:
        """From Euler angles about the axes of `seq`: 1 to 3 of ``xyz``
        (extrinsic, fixed axes) or ``XYZ`` (intrinsic, moving axes). The last
        axis of `angles` holds one angle per axis (a scalar for one axis)."""
        axes, extrinsic = _parse_seq(seq, as_euler=False)
        angles = _inexact("Rotation.from_euler", jnp.atleast_1d(angles))
        if angles.shape[-1] != len(seq):
            raise ValueError(f"Rotation.from_euler: expected {len(seq)} angles for seq {seq!r} in the last axis "
                             f"of `angles`, got shape {angles.shape}")
        half = _if(degrees, lambda: jnp.deg2rad(angles), lambda: angles) / 2
        result = None
        for n, axis in enumerate(axes):
            parts = [jnp.zeros_like(half[..., n])] * 3 + [jnp.cos(half[..., n])]
            parts[axis] = jnp.sin(half[..., n])
            quat = jnp.stack(parts, axis=-1)
            if result is None:
                result = quat
            else:
                result = _compose(quat, result) if extrinsic else _compose(result, quat)
        return cls(result)

    @classmethod
    def from_matrix(cls, matrix: Any) -> Rotation:
        """From rotation matrices, shape ``(..., 3, 3)``."""
        matrix = _inexact("Rotation.from_matrix", matrix)
        if matrix.ndim < 2 or matrix.shape[-2:] != (3, 3):
            raise ValueError(f"Rotation.from_matrix: expected matrices of shape (..., 3, 3), got shape "
                             f"{matrix.shape}")
        return cls(_from_matrix(matrix))

    @classmethod
    def from_mrp(cls, mrp: Any) -> Rotation:
        """From Modified Rodrigues Parameters, shape ``(..., 3)``."""
        mrp = _inexact("Rotation.from_mrp", mrp)
        _check_last("Rotation.from_mrp", mrp, 3, "MRPs")
        return cls(_from_mrp(mrp))

    @classmethod
    def from_quat(cls, quat: Any) -> Rotation:
        """From quaternions (x, y, z, w), shape ``(..., 4)``; normalized."""
        quat = _inexact("Rotation.from_quat", quat)
        _check_last("Rotation.from_quat", quat, 4, "quaternions")
        return cls(_normalize(quat))

    @classmethod
    def from_rotvec(cls, rotvec: Any, degrees: bool = False) -> Rotation:
        """From rotation vectors (axis times angle), shape ``(..., 3)``."""
        rotvec = _inexact("Rotation.from_rotvec", rotvec)
        _check_last("Rotation.from_rotvec", rotvec, 3, "rotation vectors")
        return cls(_from_rotvec(_if(degrees, lambda: jnp.deg2rad(rotvec), lambda: rotvec)))

    @classmethod
    def identity(cls, num: int | None = None, dtype: Any = float) -> Rotation:
        """The identity rotation, or a stack of `num` of them."""
        quat = jnp.array([0.0, 0.0, 0.0, 1.0], dtype=dtype)
        if num is not None:
            quat = jnp.tile(quat, (_count("Rotation.identity", num), 1))
        return cls(quat)

    @classmethod
    def random(cls, random_key: Any, num: int | None = None) -> Rotation:
        """Uniformly distributed rotations (normalized Gaussian quaternions)
        from a `jaxc.random` key: one, or a stack of `num`."""
        shape = () if num is None else (_count("Rotation.random", num),)
        return cls(_normalize(jrandom.normal(random_key, (*shape, 4))))

    def __getitem__(self, indexer: Any) -> Rotation:
        """The rotation(s) of a stack at `indexer`."""
        if self.single:
            raise TypeError("Single rotation is not subscriptable.")
        return Rotation(self.quat[indexer])

    def __len__(self) -> int:
        """The number of rotations in a stack."""
        if self.single:
            raise TypeError("Single rotation has no len().")
        return int(self.quat.shape[0])

    def __mul__(self, other: Rotation) -> Rotation:  # type: ignore[override]
        """The composition: `other`, then this rotation (broadcast)."""
        return Rotation.from_quat(_compose(self.quat, other.quat))

    def apply(self, vectors: Any, inverse: bool = False) -> Any:
        """Rotate vectors, shape ``(..., 3)``, by this rotation (its inverse
        when `inverse`); rotations and vectors broadcast."""
        vectors = jnp.asarray(vectors)
        _check_last("Rotation.apply", vectors, 3, "vectors")
        _batch_shape("Rotation.apply", self.quat.shape[:-1], vectors.shape[:-1])
        matrix = self.as_matrix()
        matrix = _if(inverse, lambda: jnp.swapaxes(matrix, -1, -2), lambda: matrix)
        return jnp.matmul(matrix, vectors[..., None])[..., 0]

    def as_euler(self, seq: str, degrees: bool = False) -> Any:
        """Euler angles about the 3 axes of `seq` (``xyz``: extrinsic,
        ``XYZ``: intrinsic), each in [-pi, pi)."""
        axes, extrinsic = _parse_seq(seq, as_euler=True)
        angles = _euler_from_quat(self.quat, axes, extrinsic)
        return _if(degrees, lambda: jnp.rad2deg(angles), lambda: angles)

    def as_matrix(self) -> Any:
        """Rotation matrices, shape ``(..., 3, 3)``."""
        return _as_matrix(self.quat)

    def as_mrp(self) -> Any:
        """Modified Rodrigues Parameters (of norm at most 1)."""
        return _as_mrp(self.quat)

    def as_rotvec(self, degrees: bool = False) -> Any:
        """Rotation vectors: axis times angle, the angle in [0, pi]."""
        rotvec = _as_rotvec(self.quat)
        return _if(degrees, lambda: jnp.rad2deg(rotvec), lambda: rotvec)

    def as_quat(self, canonical: bool = False, scalar_first: bool = False) -> Any:
        """Quaternions (x, y, z, w), or (w, x, y, z) with `scalar_first`;
        `canonical` picks the sign with w > 0 (or the first nonzero of
        x, y, z positive when w = 0)."""
        quat = _canonical(self.quat) if canonical else self.quat
        return jnp.roll(quat, 1, axis=-1) if scalar_first else quat

    def inv(self) -> Rotation:
        """The inverse rotation(s)."""
        return Rotation(self.quat * jnp.array([-1, -1, -1, 1], dtype=self.quat.dtype))

    def magnitude(self) -> Any:
        """The rotation angle(s), in [0, pi]."""
        return 2 * jnp.arctan2(_safe_norm(self.quat[..., :3]), jnp.abs(self.quat[..., 3]))

    def mean(self, weights: Any = None) -> Rotation:
        """The (weighted) mean of a stack of rotations: the eigenvector of the
        largest eigenvalue of sum_i w_i q_i q_i^T (Markley et al. 2007)."""
        quat = self.quat
        w = (jnp.ones(quat.shape[0], dtype=quat.dtype) if weights is None
             else jnp.asarray(weights, dtype=quat.dtype))
        if w.ndim != 1:
            raise ValueError(f"Expected `weights` to be 1 dimensional, got shape {w.shape}.")
        if w.shape[0] != len(self):
            raise ValueError("Expected `weights` to have number of values equal to number of rotations, got "
                             f"{w.shape[0]} values and {len(self)} rotations.")
        if quat.ndim != 2:
            raise ValueError(f"Rotation.mean: expected a 1-D stack of rotations, got quaternions of shape "
                             f"{quat.shape}")
        _, vectors = jnp.linalg.eigh(jnp.matmul((w[:, None] * quat).T, quat))
        return Rotation(vectors[:, -1])

    @property
    def single(self) -> bool:
        """Whether this is a single rotation (not a stack)."""
        return bool(self.quat.ndim == 1)


def _count(name: str, num: Any) -> int:
    try:
        return int(num.__index__())
    except (AttributeError, TypeError):
        raise TypeError(f"{name}: `num` must be an integer or None, got {num!r}") from None


class Slerp(NamedTuple):
    """Spherical linear interpolation of rotations between key times;
    `jax.scipy.spatial.transform.Slerp`. Make one with `Slerp.init`.

        s = Slerp.init(jnp.array([0.0, 1.0, 3.0]), key_rotations)
        s(jnp.array([0.5, 2.0])).as_matrix()
    """

    times: Any
    timedelta: Any
    rotations: Rotation
    rotvecs: Any

    @classmethod
    def init(cls, times: Any, rotations: Rotation) -> Slerp:
        """Interpolate between the stack `rotations` (at least 2) at the
        increasing 1-D `times` (not checked, as in JAX: it may be traced)."""
        if not isinstance(rotations, Rotation):
            raise TypeError("`rotations` must be a `Rotation` instance.")
        if rotations.single or len(rotations) == 1:
            raise ValueError("`rotations` must be a sequence of at least 2 rotations.")
        times = jnp.asarray(times, dtype=rotations.quat.dtype)
        if times.ndim != 1:
            raise ValueError(f"Expected times to be specified in a 1 dimensional array, got {times.ndim} "
                             "dimensions.")
        if times.shape[0] != len(rotations):
            raise ValueError("Expected number of rotations to be equal to number of timestamps given, got "
                             f"{len(rotations)} rotations and {times.shape[0]} timestamps.")
        starts = Rotation(rotations.quat[:-1])
        steps = (starts.inv() * Rotation(rotations.quat[1:])).as_rotvec()
        return cls(times=times, timedelta=jnp.diff(times), rotations=starts, rotvecs=steps)

    def __call__(self, times: Any) -> Rotation:
        """The interpolated rotation at a scalar time, or a stack at 1-D
        `times`. Outside the key times the first or last interval continues
        (SciPy raises)."""
        t = jnp.asarray(times, dtype=self.times.dtype)
        if t.ndim > 1:
            raise ValueError("`times` must be at most 1-dimensional.")
        single_time = t.ndim == 0
        t = jnp.atleast_1d(t)
        # The interval [times[i], times[i + 1]] holding t (the first or last
        # one outside). JAX 0.10 leaves i = n - 1 past the last key time, so
        # its clamped gathers mix interval n - 2 with times[n - 1]: a jump.
        index = jnp.clip(jnp.searchsorted(self.times, t) - 1, 0, self.timedelta.shape[0] - 1)
        alpha = (t - self.times[index]) / self.timedelta[index]
        result = Rotation(self.rotations.quat[index]) * Rotation.from_rotvec(self.rotvecs[index] * alpha[:, None])
        return result[0] if single_time else result
