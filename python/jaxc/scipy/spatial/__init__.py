"""`jaxc.scipy.spatial`: 3-D rotations (`transform.Rotation`, `transform.Slerp`),
as `jax.scipy.spatial`.

    r = jaxc.scipy.spatial.transform.Rotation.from_euler("z", 90, degrees=True)
"""
from . import transform  # noqa: F401
