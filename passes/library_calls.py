"""`jaxc-library-calls`: a linalg.generic on memrefs that `jaxc-schedule`
marked with ``library_call = "jaxc_gemm_<family>"`` (a matrix product,
passes/schedules/library.py) becomes a call of that function of the
precompiled library (`jaxc.runtime`'s gemm.c), with each operand's aligned
pointer, offset and the strides along m, n and k (0 for a loop it does not
read); batch loops must have been tiled to one iteration:

    linalg.generic {indexing_maps = [(m, n, k) -> (m, k), (m, n, k) -> (k, n), (m, n, k) -> (m, n)],
                    iterator_types = [parallel, parallel, reduction],
                    library_call = "jaxc_gemm_f32_avx512", jaxc.gemm_overwrite}
        ins(%a, %b : memref<500x1000xf32, strided<[1000, 1], offset: ?>>, memref<1000x1000xf32>)
        outs(%c : memref<500x1000xf32, strided<[1000, 1], offset: ?>>) { mulf, addf }
  ->
    %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %a
    %pa = memref.extract_aligned_pointer_as_index %a
    ...
    func.call @jaxc_gemm_f32_avx512(%c500, %c1000, %c1000, %pa, %offset, %strides#0, %strides#1,
                                    %pb, ..., %pc, ..., %c1) : (index, ...) -> ()

A DFT's generic
marked ``library_call = "jaxc_dft_f32"`` (or f64) calls fft.c with the
counts (points, outputs: the frequencies kept, sequences, parts: 2 for
complex elements, 1 for real), each
operand's pointer, then its offset, part stride and strides along the
sequences and the points, all counted in parts (a complex element is two),
the sign and the scale:

    func.call @jaxc_dft_f32(%n, %outputs, %sequences, %parts, %px, %offset_x, %part_stride_x, %strides_x#0,
                            %strides_x#1, %py, ..., %sign, %scale) : (index x 15, f64) -> ()

A `jaxc.hermitian_dft`'s (``"jaxc_hermitian_dft_f32"``, a real output)
passes the output's points and the sequences, no outputs or parts, and no
part stride for the real output: (index x 12, f64).

A call of lu.c, triangular_solve.c, cholesky.c, qr.c, eigh.c, svd.c, top_k.c or eig.c that `jaxc-to-linalg` made
(``@jaxc_lu_f32``, ``@jaxc_triangular_solve_f64``, ...: its buffers unranked
memrefs so that bufferization saw them) passes their aligned pointers
instead, and its declaration becomes all index:

    func.call @jaxc_lu_f32(%c2, %c5, %c3, %a, %f, %p, %q) : (index, index, index, memref<*xf32>, ...) -> ()
  ->
    %pa = memref.extract_aligned_pointer_as_index %a : memref<*xf32> -> index    (and %pf, %pp, %pq)
    func.call @jaxc_lu_f32(%c2, %c5, %c3, %pa, %pf, %pp, %pq) : (index x 7) -> ()
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, func, memref
from mlir.passmanager import ExternalPass

from .ir import declare_function, function_named, module_of, ops_named
from .lowering.reduction import DFT_SCALE, DFT_SIGN
from .registry import register_pass
from .schedules.library import (
    DFT_PREFIX,
    FAMILIES,
    HERMITIAN_PREFIX,
    OVERWRITE_ATTR,
    PREFIX,
    dft_in_columns,
    is_dft,
    is_hermitian_dft,
    is_plain_product,
    layout,
)

ARGUMENTS = 16  # m, n, k; pointer, offset and two strides of A, B and C; overwrite
ELEMENT_OF_FAMILY = {name: name.split("_")[0] for name, _, _ in FAMILIES.values()}  # f32_avx2 -> f32


class LibraryCallError(Exception):
    """A marked op that the library cannot compute: what is wrong with it."""


@register_pass("jaxc-library-calls",
               "linalg.generic ops marked library_call = \"jaxc_gemm_...\", \"jaxc_dft_...\" or "
               "\"jaxc_hermitian_dft_...\" become calls "
               "of the compiled library; calls of jaxc_lu_..., jaxc_triangular_solve_..., jaxc_cholesky_..., "
               "jaxc_qr_..., jaxc_eigh_..., jaxc_svd_..., jaxc_top_k_..., jaxc_hessenberg_..., jaxc_schur_... "
               "and jaxc_eig_... pass "
               "pointers")
def library_calls(op: ir.Operation, pass_: ExternalPass) -> None:
    with op.context:
        _pointer_calls(op)
        for generic in ops_named(op, ["linalg.generic"]):
            if "library_call" not in generic.attributes:
                continue
            name = ir.StringAttr(generic.attributes["library_call"]).value
            if not name.startswith((PREFIX, DFT_PREFIX, HERMITIAN_PREFIX)):
                continue
            try:
                (_call if name.startswith(PREFIX) else _call_dft)(generic, name)
            except LibraryCallError as error:
                generic.location.emit_error(f"library_call \"{name}\": {error}")
                pass_.signal_pass_failure()
                return


def _call(op: ir.Operation, name: str) -> None:
    family = name.removeprefix(PREFIX)
    if family not in ELEMENT_OF_FAMILY:
        known = ", ".join(PREFIX + f for f in sorted(ELEMENT_OF_FAMILY))
        raise LibraryCallError(f"no such function in the library (it has {known})")
    if len(op.operands) != 3 or len(op.results) != 0 or not all(
            isinstance(v.type, ir.MemRefType) for v in op.operands):
        raise LibraryCallError("the op must have two memref inputs and one memref output "
                               "(this pass runs after bufferization)")
    elements = {str(ir.MemRefType(v.type).element_type) for v in op.operands}
    if elements != {ELEMENT_OF_FAMILY[family]}:
        raise LibraryCallError(f"the operands' element types ({', '.join(sorted(elements))}) "
                               f"are not {ELEMENT_OF_FAMILY[family]}")
    if not is_plain_product(op):
        raise LibraryCallError("the body must be yield(acc + a * b) (arith.mulf, arith.addf)")
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    reads: list[list[int] | None] = []
    for amap in maps:
        dims = [e.position if isinstance(e, ir.AffineDimExpr) else None for e in amap.results]
        reads.append(None if None in dims else [d for d in dims if d is not None])
    iterators = tuple(str(a).split("<")[-1].rstrip(">") for a in ir.ArrayAttr(op.attributes["iterator_types"]))
    where = layout(reads, iterators)
    if where is None:
        raise LibraryCallError("the indexing maps are not those of a matrix product C(m, n) += A(m, k) * B(k, n) "
                               "(each operand reading its two loops, in any order, and the same batch loops)")
    for value, read in zip(op.operands, reads):
        shape = ir.MemRefType(value.type).shape
        if any(shape[read.index(d)] != 1 for d in where.batch if read is not None and d in read):
            raise LibraryCallError("a batch loop has more than one iteration: tile the batch loops to 1 first")
    index = ir.IndexType.get()
    _declare(op, name, [index] * ARGUMENTS)
    with ir.InsertionPoint(op), op.location:
        extents: dict[int, ir.Value] = {}
        arguments: list[ir.Value] = []
        parts = []
        for value, read in zip(op.operands, reads):
            assert read is not None
            rank = len(read)
            meta = memref.ExtractStridedMetadataOp(value)
            offset, sizes, strides = meta.results[1], meta.results[2:2 + rank], meta.results[2 + rank:]
            for position, d in enumerate(read):
                extents.setdefault(d, sizes[position])
            pointer = memref.extract_aligned_pointer_as_index(value)
            parts.append((pointer, offset, dict(zip(read, strides))))
        zero = arith.ConstantOp(index, 0).result
        arguments += [extents[where.m], extents[where.n], extents[where.k]]
        for (pointer, offset, stride), (rows, cols) in zip(parts, ((where.m, where.k), (where.k, where.n),
                                                                  (where.m, where.n))):
            arguments += [pointer, offset, stride.get(rows, zero), stride.get(cols, zero)]
        arguments.append(arith.ConstantOp(index, 1 if OVERWRITE_ATTR in op.attributes else 0).result)
        func.CallOp([], ir.FlatSymbolRefAttr.get(name), arguments)
    op.erase()


# library functions whose buffers jaxc-to-linalg passes as unranked memrefs
POINTER_CALLS = ("jaxc_lu_", "jaxc_triangular_solve_", "jaxc_cholesky_", "jaxc_qr_", "jaxc_eigh_", "jaxc_svd_",
                 "jaxc_top_k_", "jaxc_hessenberg_", "jaxc_schur_", "jaxc_eig_")


def _pointer_calls(op: ir.Operation) -> None:
    """Each call of a POINTER_CALLS function passes its buffers' aligned
    pointers; the functions are declared with index arguments."""
    index = ir.IndexType.get()
    for call in ops_named(op, ["func.call"]):
        name = ir.FlatSymbolRefAttr(call.attributes["callee"]).value
        if not name.startswith(POINTER_CALLS):
            continue
        with ir.InsertionPoint(call), call.location:
            arguments = [memref.extract_aligned_pointer_as_index(v)
                         if isinstance(v.type, (ir.MemRefType, ir.UnrankedMemRefType)) else v for v in call.operands]
            func.CallOp([], ir.FlatSymbolRefAttr.get(name), arguments)
        call.erase()
        declaration = function_named(module_of(op), name)
        if declaration is not None:
            declaration.erase()
        _declare(op, name, [index] * len(arguments))


DFT_ELEMENTS = ("f32", "f64")


def _call_dft(op: ir.Operation, name: str) -> None:
    hermitian = name.startswith(HERMITIAN_PREFIX)
    prefix = HERMITIAN_PREFIX if hermitian else DFT_PREFIX
    part = name.removeprefix(prefix)
    if part not in DFT_ELEMENTS:
        known = ", ".join(prefix + e for e in DFT_ELEMENTS)
        raise LibraryCallError(f"no such function in the library (it has {known})")
    what = "jaxc.hermitian_dft" if hermitian else "jaxc.dft"
    if not is_dft(op) or DFT_SCALE not in op.attributes:
        raise LibraryCallError(f"the op is not the generic of a {what} (no {DFT_SIGN} and {DFT_SCALE})")
    if len(op.operands) != 2 or len(op.results) != 0 or not all(
            isinstance(v.type, ir.MemRefType) and ir.MemRefType(v.type).rank == 2 for v in op.operands):
        raise LibraryCallError("the op must have one rank-2 memref input and one rank-2 memref output "
                               "(this pass runs after bufferization)")
    x_type, y_type = (ir.MemRefType(v.type) for v in op.operands)
    inputs, output = ([f"complex<{part}>"], part) if hermitian else ([part, f"complex<{part}>"], f"complex<{part}>")
    if str(x_type.element_type) not in inputs or str(y_type.element_type) != output or \
            hermitian != is_hermitian_dft(op):
        raise LibraryCallError(f"the input ({x_type.element_type}) must be {' or '.join(inputs)} and the "
                               f"output ({y_type.element_type}) {output}")
    index = ir.IndexType.get()
    _declare(op, name, [index] * (12 if hermitian else 15) + [ir.F64Type.get()])
    sequence_dim, point_dim = (1, 0) if dft_in_columns(op) else (0, 1)
    with ir.InsertionPoint(op), op.location:
        two = arith.ConstantOp(index, 2).result
        # the transform's points n (a DFT's input's; a Hermitian DFT's output's: its input
        # holds n//2 + 1), a DFT's outputs (its first frequencies), the sequences (the tiles'
        # sizes may be dynamic), and a DFT's parts of the input
        metas = [memref.ExtractStridedMetadataOp(v) for v in op.operands]
        x_sizes, y_sizes = (meta.results[2:4] for meta in metas)
        if hermitian:
            arguments: list[ir.Value] = [y_sizes[point_dim], y_sizes[sequence_dim]]
        else:
            complex_input = isinstance(x_type.element_type, ir.ComplexType)
            arguments = [x_sizes[point_dim], y_sizes[point_dim], y_sizes[sequence_dim],
                         arith.ConstantOp(index, 2 if complex_input else 1).result]
        for value, meta in zip(op.operands, metas):
            strides = meta.results[4:6]
            complex_ = isinstance(ir.MemRefType(value.type).element_type, ir.ComplexType)
            # a complex element is two parts: offsets and strides in parts, the imaginary one next;
            # a Hermitian call's real output has no part stride
            in_parts = (lambda v: arith.muli(v, two)) if complex_ else (lambda v: v)
            arguments += [memref.extract_aligned_pointer_as_index(value), in_parts(meta.results[1])]
            if not (hermitian and not complex_):
                arguments.append(arith.ConstantOp(index, 1 if complex_ else 0).result)
            arguments += [in_parts(strides[sequence_dim]), in_parts(strides[point_dim])]
        sign = ir.IntegerAttr(op.attributes[DFT_SIGN]).value
        arguments += [arith.ConstantOp(index, sign).result,
                      arith.ConstantOp(ir.F64Type.get(), ir.FloatAttr(op.attributes[DFT_SCALE]).value).result]
        func.CallOp([], ir.FlatSymbolRefAttr.get(name), arguments)
    op.erase()


def _declare(op: ir.Operation, name: str, inputs: list[ir.Type]) -> None:
    if not declare_function(op, name, inputs):
        raise LibraryCallError(f"@{name} is already a function of another type in the module")
