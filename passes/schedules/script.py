"""A small writer of transform-dialect scripts with fresh handle names.

    s = Script(kernel_id=3)
    op = s.match_kernel()
    tiled, loop = s.tile(op, [0, 16])
    s.vectorize(tiled)
    print(s.text())   # module { transform.named_sequence @__transform_main ... }
"""
from __future__ import annotations

import dataclasses

ANY = "!transform.any_op"
FOR = '!transform.op<"scf.for">'
LINALG_OPS = '["linalg.generic", "linalg.fill", "linalg.reduce", "linalg.transpose"]'  # a kernel's tiles


class Script:
    """Transform ops for one kernel, applied to the module that holds it."""

    def __init__(self, kernel_id: int) -> None:
        self.kernel_id = kernel_id
        self.lines: list[str] = []
        self.count = 0

    def fresh(self, stem: str = "h") -> str:
        self.count += 1
        return f"%{stem}{self.count}"

    def emit(self, line: str) -> None:
        self.lines.append("    " + line)

    def match_kernel(self, attribute: str = "jaxc.kernel", value: int | None = None,
                     where: str = "%root") -> str:
        """Every linalg op with `attribute` = `value` (default: this kernel's id):
        the kernel and its tiles (tiling keeps the attribute; the fill and
        combining reduce of split reductions are annotated)."""
        h = self.fresh("k")
        value = self.kernel_id if value is None else value
        self.emit(f'{h} = transform.structured.match ops{{{LINALG_OPS}}} '
                  f'attributes {{{attribute} = {value} : i64}} in {where} : ({ANY}) -> {ANY}')
        return h

    def match(self, op_name: str, where: str) -> str:
        h = self.fresh("m")
        self.emit(f'{h} = transform.structured.match ops{{["{op_name}"]}} in {where} : ({ANY}) -> {ANY}')
        return h

    def parent_func(self, handle: str) -> str:
        return self.parent(handle, "func.func")

    def parent(self, handle: str, op_name: str) -> str:
        """The closest enclosing `op_name` of the ops of `handle`, once each."""
        h = self.fresh("p")
        self.emit(f'{h} = transform.get_parent_op {handle} {{deduplicate, op_name = "{op_name}"}} '
                  f': ({ANY}) -> {ANY}')
        return h

    def tile(self, handle: str, sizes: list[int], interchange: list[int] | None = None) -> tuple[str, list[str]]:
        """tile_using_for: (tiled op, one loop per non-zero size)."""
        n = sum(1 for s in sizes if s)
        op, loops = self.fresh("t"), [self.fresh("l") for _ in range(n)]
        inter = f" interchange = {interchange}" if interchange else ""
        results = ", ".join([ANY] * (n + 1))
        self.emit(f"{', '.join([op, *loops])} = transform.structured.tile_using_for {handle} "
                  f"tile_sizes {sizes}{inter} : ({ANY}) -> ({results})")
        return op, loops

    def tile_forall(self, handle: str, num_threads: list[int]) -> tuple[str, str]:
        op, forall = self.fresh("t"), self.fresh("fa")
        self.emit(f"{op}, {forall} = transform.structured.tile_using_forall {handle} "
                  f"num_threads {num_threads} : ({ANY}) -> ({ANY}, {ANY})")
        return op, forall

    def tile_forall_sizes(self, handle: str, sizes: list[int]) -> tuple[str, str]:
        op, forall = self.fresh("t"), self.fresh("fa")
        self.emit(f"{op}, {forall} = transform.structured.tile_using_forall {handle} "
                  f"tile_sizes {sizes} : ({ANY}) -> ({ANY}, {ANY})")
        return op, forall

    def tile_reduction(self, handle: str, sizes: list[int]) -> tuple[str, str, str, str]:
        """tile_reduction_using_for: (fill, partial op, combining op, loop)."""
        names = [self.fresh(s) for s in ("fill", "part", "comb", "rl")]
        self.emit(f"{', '.join(names)} = transform.structured.tile_reduction_using_for {handle} "
                  f"by tile_sizes = {sizes} : ({ANY}) -> ({', '.join([ANY] * 4)})")
        return tuple(names)  # type: ignore[return-value]

    def tile_reduction_forall(self, handle: str, num_threads: list[int]) -> tuple[str, str, str, str]:
        names = [self.fresh(s) for s in ("fill", "part", "comb", "rfa")]
        self.emit(f"{', '.join(names)} = transform.structured.tile_reduction_using_forall {handle} "
                  f"by num_threads = {num_threads} : ({ANY}) -> ({', '.join([ANY] * 4)})")
        return tuple(names)  # type: ignore[return-value]

    def producer_of_operand(self, handle: str, index: int) -> str:
        h = self.fresh("prod")
        self.emit(f"{h} = transform.get_producer_of_operand {handle}[{index}] : ({ANY}) -> {ANY}")
        return h

    def fuse_into(self, producer: str, container: str) -> tuple[str, str]:
        """fuse_into_containing_op: (the fused producer, the new container)."""
        fused, new = self.fresh("fused"), self.fresh("fa")
        self.emit(f"{fused}, {new} = transform.structured.fuse_into_containing_op {producer} into {container} "
                  f": ({ANY}, {ANY}) -> ({ANY}, {ANY})")
        return fused, new

    def flatten(self, handle: str) -> str:
        h = self.fresh("flat")
        self.emit(f"{h} = transform.structured.flatten_elementwise {handle} : ({ANY}) -> {ANY}")
        self.annotate(h)  # the flat op is new: give it the kernel's id again
        return h

    def annotate(self, handle: str, attribute: str = "jaxc.kernel", value: int | None = None) -> None:
        """Set `attribute` (default: the kernel id) on every op of `handle`."""
        p = self.fresh("id")
        value = self.kernel_id if value is None else value
        self.emit(f"{p} = transform.param.constant {value} : i64 -> !transform.param<i64>")
        self.emit(f'transform.annotate {handle} "{attribute}" = {p} : {ANY}, !transform.param<i64>')

    def mark(self, handle: str, attribute: str) -> None:
        """Set the unit attribute `attribute` on every op of `handle`."""
        self.emit(f'transform.annotate {handle} "{attribute}" : {ANY}')

    def peel(self, loop: str) -> tuple[str, str]:
        """Peel the last partial iteration: (main loop, remainder loop)."""
        cast, main, rem = self.fresh("c"), self.fresh("main"), self.fresh("rem")
        self.emit(f"{cast} = transform.cast {loop} : {ANY} to {FOR}")
        self.emit(f"{main}, {rem} = transform.loop.peel {cast} : ({FOR}) -> ({ANY}, {ANY})")
        return main, rem

    def vectorize(self, handle: str) -> None:
        self.emit(f"transform.structured.vectorize {handle} {{vectorize_nd_extract}} : {ANY}")

    def patterns(self, where: str, *names: str) -> None:
        body = " ".join(f"transform.apply_patterns.{n}" for n in names)
        self.emit(f"transform.apply_patterns to {where} {{ {body} }} : {ANY}")

    def cse(self, where: str) -> None:
        """CSE inside the one op of `where`."""
        self.emit(f"transform.apply_cse to {where} : {ANY}")

    def clean_each(self, where: str, *patterns: str) -> None:
        """In each function of `where`, one at a time (CSE and match take a
        single op, and the kernels of one script can be in several functions,
        as outlined kernels are): apply `patterns`, CSE, and hoist the
        loop-invariant transfers out of every loop."""
        each = self.fresh("each")
        self.emit(f"transform.foreach {where} : {ANY} {{")
        self.emit(f"^bb0({each}: {ANY}):")
        body = " ".join(f"transform.apply_patterns.{n}" for n in patterns)
        self.emit(f"  transform.apply_patterns to {each} {{ {body} }} : {ANY}")
        self.emit(f"  transform.apply_cse to {each} : {ANY}")
        loops = self.fresh("m")
        self.emit(f'  {loops} = transform.structured.match ops{{["scf.for"]}} in {each} : ({ANY}) -> {ANY}')
        self.emit(f"  transform.loop.hoist_loop_invariant_subsets {loops} : {ANY}")
        self.emit("}")

    def text(self) -> str:
        return ("module attributes {transform.with_named_sequence} {\n"
                f"  transform.named_sequence @__transform_main(%root: {ANY} {{transform.readonly}}) {{\n"
                + "\n".join(self.lines) + "\n    transform.yield\n  }\n}\n")


@dataclasses.dataclass(frozen=True)
class Plan:
    """A kernel's schedule: the tiling script, then (applied by `jaxc-schedule`
    once the tiles are canonicalized) vectorization of every tile whose shape
    is static, followed by `patterns` and hoisting of loop-invariant
    transfers (accumulators stay in registers across the loop)."""

    tiling: str
    patterns: tuple[str, ...] = ()


def vectorize_script(mark: int, patterns: tuple[str, ...]) -> str:
    """Vectorize the tiles marked ``jaxc.vectorize = mark``, then clean up
    their functions."""
    s = Script(mark)
    tiles = s.match_kernel("jaxc.vectorize")
    func = s.parent_func(tiles)
    s.vectorize(tiles)
    s.clean_each(func, *patterns, "canonicalization", "tensor.fold_tensor_subset_ops_into_vector_transfers")
    return s.text()


def cleanup_script() -> str:
    """`vectorize_script`'s clean-up once more over every function, once all
    kernels are vectorized (folds that vectorizing later kernels exposes)."""
    s = Script(0)
    funcs = s.match("func.func", "%root")
    s.clean_each(funcs, "canonicalization", "tensor.fold_tensor_subset_ops_into_vector_transfers")
    return s.text()


def canonicalize_script(kernel_id: int | None) -> str:
    """Canonicalize the functions of a kernel's tiles (None: every function;
    static tile sizes fold in)."""
    s = Script(kernel_id or 0)
    func = s.match("func.func", "%root") if kernel_id is None else s.parent_func(s.match_kernel())
    s.patterns(func, "canonicalization")
    return s.text()
