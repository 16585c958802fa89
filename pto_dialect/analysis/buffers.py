"""Which buffers an op touches, and how buffer values alias.

A *buffer* is what a `pto.alloc_tile` or `pto.alloc_multi_tile` defines. Other
tile-typed values are views or aliases of one:

- `pto.multi_tile_get %mb[%slot]` is one slot of the region `%mb`;
- `pto.subview` and `pto.treshape` results are (part of) their source's
  bytes (`view_results`);
- an `scf.for` init operand, its region iter_arg and its result, and the
  `scf.yield` operands feeding them, may name the same buffer (likewise for
  `scf.if` results and the values its branches yield; `forward_aliases`);
- a function argument is a buffer the caller owns.

`op_access` says which buffer-typed operands an op reads and writes (from the
op catalogue) and which it uses in a way we do not model (escapes).
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from ..dialect.effects import CATALOGUE, NO_DATA_OPS, VIEW_OPS
from ..dialect.ops import op_def
from ..dialect.types import buffer_type


def op_display_name(name: str) -> str:
    """How messages name an op: as the user writes it (`pto.tmatmul.acc`,
    not its generic name `pto.tmatmul_acc`)."""
    d = op_def(name)
    return d.full_name if d is not None else name


def is_buffer(value: ir.Value) -> bool:
    return buffer_type(value.type) is not None


@dataclass(frozen=True)
class Access:
    reads: tuple[ir.Value, ...] = ()
    writes: tuple[ir.Value, ...] = ()
    escapes: tuple[ir.Value, ...] = ()  # buffer operands used in unmodelled ways


_NO_ACCESS = Access()


def op_access(op: ir.Operation) -> Access:
    """The buffer operands `op` reads, writes, or lets escape.

    Reads come before writes within one op (an in-place `tadd %a, %b, %a`
    reads %a, then writes it). Any buffer operand of an op that is not in the
    catalogue (a call, a yield, a loop's init operand, an unknown op) escapes.
    """
    name = op.name
    spec = CATALOGUE.get(name)
    if spec is not None:
        if name in NO_DATA_OPS:
            return _NO_ACCESS
        operands = op.operands
        layout = spec.layout(op)
        return Access(
            tuple(operands[i] for i in layout.reads),
            tuple(operands[i] for i in layout.writes),
        )
    escapes = tuple(v for v in op.operands if is_buffer(v))
    return Access(escapes=escapes) if escapes else _NO_ACCESS


def escape_reason(value: ir.Value) -> str | None:
    """Why a buffer value leaves the reach of per-op reasoning, or None.

    A value escapes when it is yielded, passed as a loop's init operand,
    returned, passed to a call, or used by an op the catalogue does not know.
    """
    work, seen = [value], set()
    while work:
        v = work.pop()
        if v in seen:
            continue
        seen.add(v)
        for use in v.uses:
            owner = use.owner
            name = owner.name
            if name in VIEW_OPS and use.operand_number == 0:
                work.extend(owner.results)  # a view escapes for its source
                continue
            reason = use_escape_reason(name)
            if reason:
                if v is value:
                    return reason
                view = v.owner.name.removeprefix("pto.")  # the view op that made v
                return f"a view of it ({view}) escapes: {reason}"
    return None


def view_results(value: ir.Value) -> list[ir.Value]:
    """The results of the view ops (`subview`, `treshape`, `multi_tile_get`)
    whose source is `value`."""
    return [use.owner.results[0] for use in value.uses if use.owner.name in VIEW_OPS and use.operand_number == 0]


def use_escape_reason(user: str) -> str | None:
    """Why a use by an op named `user` lets a buffer escape, or None."""
    if user in CATALOGUE:
        return None
    if user == "scf.yield":
        return "it is yielded by scf.yield"
    if user == "scf.for":
        return "it is passed to a nested loop's iter_args"
    if user in ("func.return", "func.call"):
        return f"it is passed to {user}"
    return f"it is used by '{op_display_name(user)}', which the pass does not know"


def forward_aliases(value: ir.Value) -> set[ir.Value]:
    """Every value that may name the buffer `value` names: `value` and where
    it flows, through scf.yield to the parent scf.for/scf.if result (and, for
    scf.for, the next iteration's iter_arg), from an scf.for init operand
    to its iter_arg and result, and through pto.yield to the parent
    pto.fusion_region's result.

    It does not go back from a join to the other values flowing into it:
    for `%r = scf.if ... yield %a ... yield %b`,
    `%r` may name `%a` or `%b`, but `%b` never names `%a`. So it answers
    "which values may refer to this buffer" (for liveness, and for reads and
    writes through aliases) without merging the buffers that meet at a join.
    """
    seen: set[ir.Value] = set()
    work = [value]
    while work:
        v = work.pop()
        if v in seen:
            continue
        seen.add(v)
        for use in v.uses:
            owner = use.owner
            name = owner.name
            index = use.operand_number
            if name == "scf.yield":
                parent = owner.operation.parent
                if parent.name in ("scf.for", "scf.if") and index < len(parent.results):
                    work.append(parent.results[index])
                    if parent.name == "scf.for":
                        work.append(parent.regions[0].blocks[0].arguments[1 + index])
            elif name == "pto.yield":
                # a pto.fusion_region's results are what its body yields (docs/dialect.md, "Ops with a region")
                parent = owner.operation.parent
                if parent.name == "pto.fusion_region" and index < len(parent.results):
                    work.append(parent.results[index])
            elif name == "scf.for" and index >= 3:
                k = index - 3
                work.append(owner.operation.regions[0].blocks[0].arguments[1 + k])
                work.append(owner.operation.results[k])
    return seen


def defining_alloc(value: ir.Value) -> ir.Operation | None:
    """The alloc op that defines `value` directly, if any."""
    if isinstance(value, ir.BlockArgument):
        return None
    owner = value.owner
    return owner if owner.name in ("pto.alloc_tile", "pto.alloc_multi_tile") else None


__all__ = [
    "Access",
    "buffer_type",
    "defining_alloc",
    "escape_reason",
    "forward_aliases",
    "is_buffer",
    "op_access",
    "op_display_name",
    "view_results",
]
