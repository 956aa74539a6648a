"""Device memory profiles: what lives on the devices now, and where it was made.

`device_memory_profile()` is a gzipped pprof profile like JAX's: sample
types ``allocations/count`` and ``space/bytes``; one sample per live array
(labels ``kind=buffer`` and ``device=cpu:0``) and per compiled executable
(``kind=executable``, the bytes of its machine code), each with the Python
stack, innermost frame first, where it was created. Read it with
``go tool pprof -top profile.prof``.
"""
from __future__ import annotations

import gc
import gzip
import os
from typing import Any

from .pprof import Frame, ProfileBuilder

# A device's name in the profile, as JAX labels it ("cpu:0", "cuda:0").
_DEVICE_LABEL = {"cpu": "cpu", "gpu": "cuda"}


def live_arrays(platform: str | None = None) -> list[Any]:
    """Every jaxc Array alive now (on `platform`'s devices when given)."""
    from jaxc.array import Array

    arrays = [obj for obj in gc.get_objects() if type(obj) is Array]
    if platform is None:
        return arrays
    from jaxc import api
    devices = set(map(id, api.devices(platform)))
    return [array for array in arrays if id(array.device) in devices]


def device_memory_profile(backend: str | None = None) -> bytes:
    """The live arrays and executables as a gzipped pprof profile (bytes);
    `backend` ("cpu", "gpu") keeps only that backend's arrays."""
    from jaxc.runtime import cpu

    arrays = live_arrays(backend)
    builder = ProfileBuilder([("allocations", "count"), ("space", "bytes")])
    lines: dict[tuple, int] = {}
    seen: set[int] = set()  # Arrays sharing one buffer count once
    for array in arrays:
        value = array._value
        if value is not None:
            if id(value) in seen:
                continue
            seen.add(id(value))
        device = array.device
        label = f"{_DEVICE_LABEL.get(device.platform, device.platform)}:{device.id}"
        builder.add_sample(_frames(array._traceback, lines), [1, array.nbytes],
                           {"kind": "buffer", "device": label})
    for executable in list(cpu.LIVE_EXECUTABLES):
        builder.add_sample(_frames(executable._traceback, lines), [1, executable.code_bytes],
                           {"kind": "executable"})
    return gzip.compress(builder.serialize())


def save_device_memory_profile(filename: os.PathLike | str, backend: str | None = None) -> None:
    """Write `device_memory_profile(backend)` to `filename`."""
    profile = device_memory_profile(backend)
    with open(filename, "wb") as file:
        file.write(profile)


def _frames(traceback: tuple, lines: dict[tuple, int]) -> list[Frame]:
    """`_fastcall.traceback()`'s (code, where, ...) as pprof frames."""
    frames = []
    for i in range(0, len(traceback), 2):
        code, where = traceback[i], traceback[i + 1]
        line = lines.get((code, where))
        if line is None:
            line = lines[code, where] = _line_of(code, where)
        frames.append((getattr(code, "co_qualname", code.co_name), code.co_filename,
                       code.co_firstlineno, line))
    return frames


def _line_of(code: Any, where: int) -> int:
    """The line of byte offset `where` in `code` (negative: minus the line itself)."""
    if where < 0:
        return -where
    for start, end, line in code.co_lines():
        if start <= where < end and line is not None:
            return line
    return code.co_firstlineno
