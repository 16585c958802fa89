"""The user's SSA names, kept from the text through the passes to the output.

MLIR's parser forgets SSA names (`%scores_tile` is just a value), and its
printer numbers values anew (`%0`, `%arg0`). It prints a value whose op (or,
for a block argument, whose own) location is a name location (`NameLoc`) by
that name instead, when asked (`OpPrintingFlags::printNameLocAsPrefix`, the
bindings' `use_name_loc_as_prefix`; names MLIR has already seen get `_0`,
`_1`, ...). So after parsing, `keep_names` wraps the location of each op
whose results the text names, and of each block argument, in a name
location holding that name around the position the parser gave it
(diagnostics and reports read the position inside, `location_position`):
the names survive every pass that keeps an op's location and are printed
(docs/tools.md, "Value names"). An op with several results keeps the
first one's name, as MLIR names a result group (`%a:2`, `%a#1`); the
others' (`%a, %b = `) are name locations inside it (`result_names`), for
the ptoas writer, which spells each result.

Numeric names (`%0`, as MLIR and ptoas print) are left to the printer's
numbering: they carry nothing a reader would miss.

For the values a pass creates: `derived` names a location after the value
it replaces (`%a` -> `%a_mb`), and `unnamed` is a location for helper ops
(constants, index arithmetic) made at an op whose name is not theirs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mlir import ir

# A definition's names, read at the parser's positions: the result list that
# ends right before an op's name (`%a, %b:2 = `), a block argument's name.
_RESULT_LIST = re.compile(r"%([\w$.\-]+)(?::\d+)?(?:[ \t]*,[ \t]*%[\w$.\-]+(?::\d+)?)*[ \t]*=[ \t]*$")
_ARGUMENT = re.compile(r"%([\w$.\-]+)")
_REGION_MAY_FOLLOW = ("{", ",", "(", "{ ", ", ", "( ")
"""How an op's first line ends where its regions (and their block
arguments) may follow: a region opens (`scf.for ... {`, `"scf.for"(...) ({`),
or the op goes on on the next line (a function's arguments one per line).
An op with a region on no such line keeps its block arguments unnamed: a
look at every op's regions would cost two binding calls an op."""


def keep_names(module: ir.Module, lines: Sequence[str], first_line: int, placed: ir.Module | None = None) -> None:
    """Name each op's results and each block argument of `module` as the
    text `lines` (whose first line is line `first_line` of the parser's
    buffer) names them at the parser's positions.

    `placed`, when given, is the same text parsed without the locations the
    user wrote (`loc(...)`): its ops match `module`'s one for one in walk
    order and hold the parser's positions where `module`'s hold the user's.
    Every location read is then a parser position (a file location)."""
    if placed is None:
        module.operation.walk(_namer(lines, first_line), ir.WalkOrder.PRE_ORDER)
        return
    ops: list[ir.Operation] = []
    twins: list[ir.Operation] = []
    module.operation.walk(lambda op: ops.append(op) or ir.WalkResult.ADVANCE, ir.WalkOrder.PRE_ORDER)
    placed.operation.walk(lambda op: twins.append(op) or ir.WalkResult.ADVANCE, ir.WalkOrder.PRE_ORDER)
    if len(ops) != len(twins):
        return  # not the same ops: no names rather than wrong ones
    name = _namer(lines, first_line)
    for op, twin in zip(ops, twins):
        name(op, twin)


def _namer(lines: Sequence[str], first_line: int):
    """The function naming one op's results and its regions' block
    arguments as the text names them at the positions of `source` (the op
    itself, or its twin), which is also a walk callback. Written for speed:
    it runs once per op of the module (docs/performance.md)."""
    count = len(lines)
    advance = ir.WalkResult.ADVANCE
    name_location = ir.Location.name
    results_before = _RESULT_LIST.search

    def position(location: ir.Location) -> tuple[str, int] | None:
        index = location.start_line - first_line
        return (lines[index], location.start_col - 1) if 0 <= index < count else None

    def name(op: ir.Operation, source: ir.Operation | None = None) -> ir.WalkResult:
        location = op.location
        at = location if source is None else source.location
        index = at.start_line - first_line
        if not 0 <= index < count:
            return advance
        line = lines[index]
        col = at.start_col - 1
        if line.find("=", col - 3 if col > 3 else 0, col) >= 0:  # results before the op's name (most ops have none)
            m = results_before(line, 0, col)
            if m is not None and not m.group(1).isdigit() and not (source is not None and name_of(location) == m.group(1)):
                # (with its twin, the op's location is the user's: it may name its results already, as
                # `--mlir-print-debuginfo` prints them)
                if "," in m.group(0):  # `%a, %b = `: each result's name, the first outermost
                    for other in reversed(_ARGUMENT.findall(m.group(0))[1:]):
                        location = name_location(other, childLoc=location)
                op.location = name_location(m.group(1), childLoc=location)
        if line.endswith(_REGION_MAY_FOLLOW):
            _name_arguments(op, op if source is None else source, position)
        return advance

    return name


def _name_arguments(op: ir.Operation, source: ir.Operation, position) -> None:
    regions = op.regions
    if not len(regions):  # (an implicit terminator at its op's position)
        return
    for region, source_region in zip(regions, regions if source is op else source.regions):
        for block, source_block in zip(region.blocks, source_region.blocks):
            for argument, source_argument in zip(block.arguments, source_block.arguments):
                at = position(source_argument.location)
                if at is None:
                    continue
                m = _ARGUMENT.match(*at)
                if m is not None and not m.group(1).isdigit():
                    location = argument.location
                    if source is op or name_of(location) != m.group(1):  # (named by the user's location already)
                        argument.set_location(ir.Location.name(m.group(1), childLoc=location))


def name_of(location: ir.Location) -> str | None:
    """The value name `location` holds (its outermost name), or None."""
    return location.name_str if location.is_a_name() else None


def result_names(op: ir.Operation, count: int) -> tuple[str, ...] | None:
    """The names of the `count` results of `op` that `keep_names` gave it
    (name locations nested in its location), or None."""
    names = []
    location = op.location
    while location.is_a_name() and len(names) < count:
        names.append(location.name_str)
        location = location.child_loc
    return tuple(names) if len(names) == count else None


def unnamed(location: ir.Location) -> ir.Location:
    """`location` without its value name: for the ops a pass makes at an
    op (a constant, an index computation) whose name is not theirs."""
    while location.is_a_name():
        location = location.child_loc
    return location


def derived(named: ir.Location, suffix: str, at: ir.Location | None = None) -> ir.Location:
    """The location of a value a pass makes in place of (or for) the one
    named at `named`: that name with `suffix` (`%a` -> `%a_mb`) around the
    position `at` (default: `named`'s), or the position alone when the
    value has no name."""
    position = unnamed(named if at is None else at)
    name = name_of(named)
    return position if name is None else ir.Location.name(name + suffix, childLoc=position)
