"""A `perftools.profiles.Profile` (pprof's profile.proto) written by hand:
the few protobuf rules it needs (varints, length-delimited fields, packed
repeated integers) and a builder that interns strings, functions and
locations.

    builder = ProfileBuilder([("allocations", "count"), ("space", "bytes")])
    builder.add_sample([("f", "a.py", 1, 3), ("<module>", "a.py", 1, 9)], [1, 4000],
                       {"kind": "buffer", "device": "cpu:0"})
    data = builder.serialize()        # gzip it for `go tool pprof`

Field numbers (profile.proto): Profile{sample_type=1, sample=2, location=4,
function=5, string_table=6}; ValueType{type=1, unit=2}; Sample{location_id=1,
value=2, label=3}; Label{key=1, str=2}; Location{id=1, line=4};
Line{function_id=1, line=2}; Function{id=1, name=2, system_name=3,
filename=4, start_line=5}.
"""
from __future__ import annotations

from typing import Sequence

Frame = tuple[str, str, int, int]  # function name, file name, its first line, the line


def varint(value: int) -> bytes:
    """A protobuf varint; negative int64 values as their 64-bit two's complement."""
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def int_field(number: int, value: int) -> bytes:
    """Field `number` as a varint (omitted when 0, protobuf's default)."""
    return varint(number << 3) + varint(value) if value else b""


def bytes_field(number: int, payload: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def packed_field(number: int, values: Sequence[int]) -> bytes:
    return bytes_field(number, b"".join(varint(v) for v in values)) if values else b""


class ProfileBuilder:
    """Samples with their stacks (innermost frame first) and string labels."""

    def __init__(self, sample_types: Sequence[tuple[str, str]]) -> None:
        self.strings: dict[str, int] = {"": 0}
        self.functions: dict[tuple[str, str, int], int] = {}
        self.locations: dict[tuple[int, int], int] = {}
        self.sample_types = [(self.string(t), self.string(u)) for t, u in sample_types]
        self.samples: list[bytes] = []

    def string(self, text: str) -> int:
        return self.strings.setdefault(text, len(self.strings))

    def location(self, frame: Frame) -> int:
        name, filename, start_line, line = frame
        key = (name, filename, start_line)
        function = self.functions.get(key)
        if function is None:
            function = self.functions[key] = len(self.functions) + 1
            self.string(name)
            self.string(filename)
        return self.locations.setdefault((function, line), len(self.locations) + 1)

    def add_sample(self, stack: Sequence[Frame], values: Sequence[int], labels: dict[str, str]) -> None:
        if len(values) != len(self.sample_types):
            raise ValueError(f"a sample needs {len(self.sample_types)} values, got {len(values)}")
        message = packed_field(1, [self.location(frame) for frame in stack]) + packed_field(2, values)
        for key, value in labels.items():
            message += bytes_field(3, int_field(1, self.string(key)) + int_field(2, self.string(value)))
        self.samples.append(message)

    def serialize(self) -> bytes:
        out = [bytes_field(1, int_field(1, t) + int_field(2, u)) for t, u in self.sample_types]
        out += [bytes_field(2, sample) for sample in self.samples]
        for (function, line), location in self.locations.items():
            out.append(bytes_field(4, int_field(1, location)
                                   + bytes_field(4, int_field(1, function) + int_field(2, line))))
        for (name, filename, start_line), function in self.functions.items():
            name_index = self.strings[name]
            out.append(bytes_field(5, int_field(1, function) + int_field(2, name_index)
                                   + int_field(3, name_index) + int_field(4, self.strings[filename])
                                   + int_field(5, start_line)))
        out += [bytes_field(6, text.encode("utf-8")) for text in self.strings]
        return b"".join(out)
