"""`jaxc.export`: a jitted function exported for one signature, serialized to
bytes and called again later, in another process (JAX's `jax.export`).

    exported = jaxc.export.export(jaxc.jit(f))(jaxc.ShapeDtypeStruct((3,), np.float32))
    blob = exported.serialize()                 # a bytearray: store it anywhere
    again = jaxc.export.deserialize(blob)
    again.call(np.ones(3, np.float32))          # also under jit, vmap and grad

What is exported is the program at jaxc's `traced` stage (`mlir_module()`,
the IR `jit(f).lower(...).as_text()` prints), with the pytree structures and
avals of its arguments and results, and the arrays it closes over. `call`
checks the arguments against them, copies the program's functions into the
program being traced under fresh names and calls its main function, so jit,
vmap and grad transform it like any traced code (JAX needs a serialized VJP
for grad; here the IR is enough, and `has_vjp()` is True).

The bytes: ``MAGIC``, a little-endian u64 length, a JSON header (version,
function name, platforms, avals, the two pytree structures, the module text),
then an .npz of the closed-over arrays. Pytree nodes in the structures are
tuples, lists, dicts (str or int keys), None, float0 results and the types
registered with `register_pytree_node_serialization` /
`register_namedtuple_serialization`; another type is a ValueError naming it.
Not supported: shape polymorphism (`symbolic_shape`), platforms other than
"cpu", and programs with shardings or pmap.
"""
from __future__ import annotations

import base64
import dataclasses
import io
import json
import struct
import zipfile
from typing import Any, Callable, Sequence

import numpy as np
import optree

from . import core, dtypes, tree_util
from .core import ShapedArray

MAGIC = b"jaxc-export\x00"
CALLING_CONVENTION_VERSION = 1  # of the bytes above; a blob of another version is refused
PLATFORMS = ("cpu",)


def minimum_supported_calling_convention_version() -> int:
    return CALLING_CONVENTION_VERSION


def maximum_supported_calling_convention_version() -> int:
    return CALLING_CONVENTION_VERSION


def default_export_platform() -> str:
    return "cpu"


class DisabledSafetyCheck:
    """A safety check the caller turns off (JAX's): `platform()` lets a
    program exported for another platform run here; `custom_call(name)` is
    accepted (jaxc programs have no custom calls)."""

    def __init__(self, what: str) -> None:
        self._what = what

    @classmethod
    def platform(cls) -> "DisabledSafetyCheck":
        return cls("platform")

    @classmethod
    def custom_call(cls, target_name: str) -> "DisabledSafetyCheck":
        return cls(f"custom_call:{target_name}")

    def is_custom_call(self) -> str | None:
        return self._what.split(":", 1)[1] if self._what.startswith("custom_call:") else None

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, DisabledSafetyCheck) and other._what == self._what

    def __hash__(self) -> int:
        return hash(self._what)

    def __repr__(self) -> str:
        return f"DisabledSafetyCheck({self._what})"


@dataclasses.dataclass(frozen=True, eq=False)
class Exported:
    """A jitted function exported for one signature (JAX's fields: `in_tree`
    is the structure of (args, kwargs) without static arguments; the avals
    are flat)."""

    fun_name: str
    in_tree: Any
    in_avals: tuple[ShapedArray, ...]
    out_tree: Any
    out_avals: tuple[ShapedArray, ...]
    platforms: tuple[str, ...]
    disabled_safety_checks: tuple[DisabledSafetyCheck, ...]
    mlir_module_serialized: bytes
    main: str  # the public function of the module
    consts: tuple[np.ndarray, ...]  # what the function closes over: its last arguments
    calling_convention_version: int = CALLING_CONVENTION_VERSION
    nr_devices: int = 1
    ordered_effects: tuple = ()
    unordered_effects: tuple = ()

    @property
    def in_shardings_hlo(self) -> tuple[None, ...]:
        return (None,) * len(self.in_avals)

    @property
    def out_shardings_hlo(self) -> tuple[None, ...]:
        return (None,) * len(self.out_avals)

    def mlir_module(self) -> str:
        """The program's jaxc IR (the `traced` stage)."""
        return self.mlir_module_serialized.decode()

    def has_vjp(self) -> bool:
        """True: `call` inlines the program, which grad differentiates as it is."""
        return True

    def serialize(self, vjp_order: int = 0) -> bytearray:
        """The bytes `deserialize` reads back. `vjp_order` is accepted for JAX's
        signature: derivatives of any order come from the program itself."""
        if vjp_order < 0:
            raise ValueError(f"serialize: vjp_order must be >= 0, got {vjp_order}")
        header = {
            "version": CALLING_CONVENTION_VERSION, "fun_name": self.fun_name, "main": self.main,
            "platforms": list(self.platforms),
            "disabled_checks": [c._what for c in self.disabled_safety_checks],
            "in_tree": _encode_tree(self.in_tree), "out_tree": _encode_tree(self.out_tree),
            "in_avals": [_encode_aval(a) for a in self.in_avals],
            "out_avals": [_encode_aval(a) for a in self.out_avals],
            "module": self.mlir_module(),
        }
        text = json.dumps(header).encode()
        consts = io.BytesIO()
        np.savez(consts, *self.consts)
        return bytearray(MAGIC + struct.pack("<Q", len(text)) + text + consts.getvalue())

    def call(self, *args: Any, **kwargs: Any) -> Any:
        """Call the exported function on arguments of its structure, shapes
        and dtypes (a ValueError otherwise); eagerly it is compiled once per
        Exported, under a trace it is inlined."""
        if core.current_scope() is None:
            return _jitted_call(self)(*args, **kwargs)
        return _call_traced(self, args, kwargs)

    def vjp(self) -> "Exported":
        """The Exported of the function's VJP: it takes the flat arguments and
        then the flat output cotangents, and returns the flat cotangents of the
        arguments (JAX's calling convention)."""
        from . import api
        n_in = len(self.in_avals)

        def flat_vjp(*values: Any) -> tuple:
            primals, cts = values[:n_in], values[n_in:]

            def flat_call(*xs: Any) -> list:
                a, k = tree_util.tree_unflatten(self.in_tree, xs)
                return tree_util.tree_leaves(self.call(*a, **k))

            from ._autodiff import vjp
            _, pullback = vjp(flat_call, *primals)
            return tuple(pullback(list(cts)))

        specs = [_spec(a) for a in self.in_avals] + [_spec(a) for a in self.out_avals]
        flat_vjp.__name__ = f"{self.fun_name}_vjp"
        return export(api.jit(flat_vjp), platforms=self.platforms,
                      disabled_checks=self.disabled_safety_checks)(*specs)


def export(fun_jit: Any, *, platforms: Sequence[str] | None = None,
           disabled_checks: Sequence[DisabledSafetyCheck] = ()) -> Callable[..., Exported]:
    """``export(jit(f))(*args_specs, **kwargs_specs)``: the Exported of `f`
    for the signature of the specs (`ShapeDtypeStruct`s, or anything with
    .shape and .dtype; static arguments as values)."""
    from . import api
    if not isinstance(fun_jit, api.JitFunction):
        raise ValueError(f"Function to be exported must be the result of `jit` but is: {fun_jit!r}")
    platforms = tuple(PLATFORMS if platforms is None else platforms)
    for platform in platforms:
        if platform not in PLATFORMS:
            raise ValueError(f"export: unsupported platform '{platform}' (jaxc exports for {list(PLATFORMS)})")
    checks = tuple(disabled_checks)

    def do_export(*args: Any, **kwargs: Any) -> Exported:
        from ._api_more import abstract_arguments
        lowered = fun_jit.lower(*args, **kwargs)
        traced = lowered.traced
        if traced.module.operation.attributes:  # jaxc.spmd_axes (pmap), shardings
            raise ValueError(f"export: {traced.label} is a pmap or sharded program; only plain jit "
                             "programs can be exported")
        abstract_args, abstract_kwargs = abstract_arguments(fun_jit, args, kwargs, "export")
        key, _, _ = fun_jit._signature(abstract_args, abstract_kwargs)
        return Exported(fun_name=traced.name.removeprefix("jit_"), in_tree=key[0], in_avals=tuple(key[1]),
                        out_tree=traced.out_tree, out_avals=tuple(traced.out_avals), platforms=platforms,
                        disabled_safety_checks=checks,
                        mlir_module_serialized=traced.text().encode(), main=traced.name,
                        consts=tuple(np.asarray(c) for c in traced.consts))

    return do_export


def deserialize(blob: bytes | bytearray) -> Exported:
    """The Exported that `Exported.serialize` wrote."""
    blob = bytes(blob)
    if not blob.startswith(MAGIC) or len(blob) < len(MAGIC) + 8:
        raise ValueError("deserialize: not a serialized jaxc Exported (it does not start with "
                         f"{MAGIC!r})")
    (size,) = struct.unpack_from("<Q", blob, len(MAGIC))
    start = len(MAGIC) + 8
    try:
        header = json.loads(blob[start:start + size])
        version = header["version"]
    except (UnicodeDecodeError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"deserialize: the header is damaged ({type(error).__name__}: {error})") from None
    if version != CALLING_CONVENTION_VERSION:
        raise ValueError(f"deserialize: calling convention version {version} is not supported (this jaxc "
                         f"reads version {CALLING_CONVENTION_VERSION})")
    try:
        return _from_header(header, blob[start + size:])
    # a field or the arrays missing or cut off
    except (KeyError, TypeError, OSError, EOFError, zipfile.BadZipFile) as error:
        raise ValueError(f"deserialize: the serialized Exported is damaged ({type(error).__name__}: "
                         f"{error})") from None


def _from_header(header: dict, arrays_bytes: bytes) -> Exported:
    checks = tuple(DisabledSafetyCheck(w) for w in header["disabled_checks"])
    if "cpu" not in header["platforms"] and DisabledSafetyCheck.platform() not in checks:
        raise ValueError(f"deserialize: the function was exported for {header['platforms']}, not for the cpu")
    with np.load(io.BytesIO(arrays_bytes)) as arrays:
        consts = tuple(arrays[f"arr_{i}"] for i in range(len(arrays.files)))
    return Exported(fun_name=header["fun_name"], in_tree=_decode_tree(header["in_tree"]),
                    in_avals=tuple(_decode_aval(a) for a in header["in_avals"]),
                    out_tree=_decode_tree(header["out_tree"]),
                    out_avals=tuple(_decode_aval(a) for a in header["out_avals"]),
                    platforms=tuple(header["platforms"]), disabled_safety_checks=checks,
                    mlir_module_serialized=header["module"].encode(), main=header["main"], consts=consts)


# --- calling ------------------------------------------------------------------------

def _jitted_call(exported: Exported) -> Any:
    """One jit of the call per Exported, kept on it (a repeated call compiles once)."""
    from . import api
    fn = exported.__dict__.get("_jitted")
    if fn is None:
        def call(*args: Any, **kwargs: Any) -> Any:
            return _call_traced(exported, args, kwargs)
        call.__name__ = exported.fun_name
        fn = api.jit(call)
        object.__setattr__(exported, "_jitted", fn)  # frozen: set past the dataclass
    return fn


def _call_traced(exported: Exported, args: tuple, kwargs: dict) -> Any:
    from mlir import ir
    from mlir.dialects import func as func_d

    from ._autodiff import _emit, _fresh_symbol, _trace_module
    leaves, tree = tree_util.tree_flatten((args, kwargs))
    if tree != exported.in_tree:
        raise ValueError(f"The invocation args and kwargs must have the same pytree structure as the args "
                         f"and kwargs of {exported.fun_name} at export: got {tree}, expected {exported.in_tree}")
    operands = [core.as_operand(x, f"the call of the exported {exported.fun_name}") for x in leaves]
    for i, (x, want) in enumerate(zip(operands, exported.in_avals)):
        if tuple(x.shape) != tuple(want.shape) or x.dtype != want.dtype:
            raise ValueError(f"the call of the exported {exported.fun_name}: argument {i} has type "
                             f"{x.dtype.name}{list(x.shape)}, but the function was exported for "
                             f"{want.dtype.name}{list(want.shape)}")
    scope = core.current_scope()
    assert scope is not None  # called by the jitted `call` of _jitted, while it is traced
    module = _trace_module(scope)
    with core.context(), ir.Location.unknown(core.context()):
        program = ir.Module.parse(exported.mlir_module())
        body = module.regions[0].blocks[0]
        renamed = {}
        for op in list(program.body.operations):
            old = ir.StringAttr(op.operation.attributes["sym_name"]).value
            renamed[old] = _fresh_symbol(module, f"exported_{exported.fun_name}_{old}")
        for old, new in renamed.items():
            ir.SymbolTable.replace_all_symbol_uses(old, new, program.operation)
        for op in list(program.body.operations):
            name = ir.StringAttr(op.operation.attributes["sym_name"]).value
            ir.SymbolTable.set_symbol_name(op.operation, renamed[name])
            op.operation.attributes["sym_visibility"] = ir.StringAttr.get("private")
            body.append(op.operation)
    main = renamed[exported.main]
    consts = [core.as_operand(c, "an exported constant") for c in exported.consts]
    outs = _emit(lambda values, types: func_d.CallOp(types, main, values), [*operands, *consts],
                 list(exported.out_avals))
    return tree_util.tree_unflatten(exported.out_tree, outs)


def _spec(aval: ShapedArray) -> Any:
    from ._api_more import ShapeDtypeStruct
    return ShapeDtypeStruct(aval.shape, aval.dtype, weak_type=aval.weak_type)


# --- avals and pytree structures as JSON ------------------------------------------

def _encode_aval(aval: ShapedArray) -> list:
    return [list(aval.shape), aval.dtype.name, bool(aval.weak_type)]


def _decode_aval(data: list) -> ShapedArray:
    shape, dtype, weak = data
    return ShapedArray(tuple(shape), dtypes.canonicalize(np.dtype(dtype) if dtype != "bfloat16" else dtypes.bfloat16),
                       weak)


# serialized name -> (type, serialize_auxdata, deserialize_auxdata, from_children); and type -> name
_SERIALIZABLE: dict[str, tuple[type, Callable, Callable, Callable | None]] = {}
_NAMES: dict[type, str] = {}


def register_pytree_node_serialization(nodetype: type, *, serialized_name: str,
                                       serialize_auxdata: Callable[[Any], bytes],
                                       deserialize_auxdata: Callable[[bytes], Any],
                                       from_children: Callable[[Any, list], Any] | None = None) -> type:
    """Make pytree node type `nodetype` serializable in Exported structures
    under `serialized_name`: its aux data as the bytes `serialize_auxdata`
    gives; `from_children(aux, children)` rebuilds a node (default: the
    registered unflatten function)."""
    if serialized_name in _SERIALIZABLE and _SERIALIZABLE[serialized_name][0] is not nodetype:
        raise ValueError(f"Duplicate serialization registration for serialized_name '{serialized_name}'")
    if nodetype in _NAMES and _NAMES[nodetype] != serialized_name:
        raise ValueError(f"Duplicate serialization registration for type {nodetype}")
    _SERIALIZABLE[serialized_name] = (nodetype, serialize_auxdata, deserialize_auxdata, from_children)
    _NAMES[nodetype] = serialized_name
    return nodetype


def register_namedtuple_serialization(nodetype: type, *, serialized_name: str) -> type:
    """Make namedtuple type `nodetype` serializable under `serialized_name`."""
    if not (issubclass(nodetype, tuple) and hasattr(nodetype, "_fields")):
        raise ValueError(f"Cannot register namedtuple serialization for {nodetype}: it is not a namedtuple")
    return register_pytree_node_serialization(
        nodetype, serialized_name=serialized_name, serialize_auxdata=lambda _: b"",
        deserialize_auxdata=lambda _: None, from_children=lambda _aux, children: nodetype(*children))


class _Leaf:
    """Where a leaf goes in the sample object of a structure."""


_LEAF = _Leaf()


def _encode_tree(spec: Any) -> Any:
    return _encode(tree_util.tree_unflatten(spec, [_LEAF] * spec.num_leaves))


def _encode(node: Any) -> Any:
    if node is _LEAF:
        return "*"
    if node is None:
        return None
    if dtypes.is_float0(node):  # a float0 result (structure: `tree_util._Float0Node`)
        return {"float0": list(node.shape)}
    kind = type(node)
    if kind is tuple:
        return {"tuple": [_encode(c) for c in node]}
    if kind is list:
        return {"list": [_encode(c) for c in node]}
    if kind is dict:
        if not all(isinstance(k, (str, int)) and not isinstance(k, bool) for k in node):
            raise ValueError(f"Cannot serialize a dict with keys {sorted(map(repr, node))}: only str and int keys")
        return {"dict": [[k, _encode(node[k])] for k in node]}
    name = _NAMES.get(kind)
    if name is None:
        raise ValueError(f"Cannot serialize PyTreeDef containing an unregistered type {kind.__module__}."
                         f"{kind.__qualname__}. Use `export.register_pytree_node_serialization` or "
                         "`export.register_namedtuple_serialization`.")
    children, aux, _ = optree.tree_flatten_one_level(node, none_is_leaf=False, namespace=tree_util.NAMESPACE)[:3]
    aux_bytes = _SERIALIZABLE[name][1](aux)
    return {"custom": name, "aux": base64.b64encode(bytes(aux_bytes)).decode(),
            "children": [_encode(c) for c in children]}


def _decode_tree(data: Any) -> Any:
    return tree_util.tree_structure(_decode(data))


def _decode(data: Any) -> Any:
    if data == "*":
        return _LEAF
    if data is None:
        return None
    if "float0" in data:
        return tree_util._Float0Node(tuple(data["float0"]))
    if "tuple" in data:
        return tuple(_decode(c) for c in data["tuple"])
    if "list" in data:
        return [_decode(c) for c in data["list"]]
    if "dict" in data:
        return {k: _decode(c) for k, c in data["dict"]}
    name = data["custom"]
    if name not in _SERIALIZABLE:
        raise ValueError(f"Cannot deserialize a PyTreeDef with the unregistered serialized name '{name}'. "
                         "Use `export.register_pytree_node_serialization` first.")
    nodetype, _, deserialize_aux, from_children = _SERIALIZABLE[name]
    aux = deserialize_aux(base64.b64decode(data["aux"]))
    children = [_decode(c) for c in data["children"]]
    if from_children is not None:
        return from_children(aux, children)
    entry = optree.register_pytree_node.get(nodetype, namespace=tree_util.NAMESPACE)
    assert entry is not None, f"{nodetype} is not a registered pytree node"  # as serialization requires
    return entry.unflatten_func(aux, children)


__all__ = ["DisabledSafetyCheck", "Exported", "default_export_platform", "deserialize", "export",
           "maximum_supported_calling_convention_version", "minimum_supported_calling_convention_version",
           "register_namedtuple_serialization", "register_pytree_node_serialization"]
