"""Where and when the pto rules (verifier_rules.py) run.

After parsing, every rule runs (`verify_parsed`: the source text often
proves the type rules at once). After a pass, only the op rules run again,
on the ops they are about (`verify_module(check_types=False)`) or on the
ops the pass changed (`verify_ops`). Each violation is an MLIR error at the
offending op; every entry point returns whether the module is clean.
docs/dialect.md, "Verification".
"""

from __future__ import annotations

import re

from mlir import ir
from mlir.rewrite import RewritePatternSet, walk_and_apply_patterns

from ..support import diagnostics
from ..support.source_text import spelled_pto_types, strip_comments
from .annotations import STAGES_ATTR, ArchError, resolve_arch, resolve_ptoas_arch
from .verifier_rules import KIND_CHECKED_OPS, OP_RULES, Rules

__all__ = ["verify_module", "verify_ops", "verify_parsed"]


def _rules(module: ir.Operation, arch: str | None) -> Rules | None:
    """The rules for `module` under `arch` (the module's own when None), or
    None after reporting an unknown arch."""
    try:
        return Rules(resolve_arch(module, arch), resolve_ptoas_arch(module, arch))
    except ArchError as e:
        diagnostics.emit_error(module.location, str(e))
        return None


def _check_each_op(rules: Rules, module: ir.Operation) -> None:
    """Every rule, on every op (a walk that visits each in Python)."""

    def visit(op: ir.Operation) -> ir.WalkResult:
        rules.check_all(op)
        return ir.WalkResult.ADVANCE

    module.walk(visit, ir.WalkOrder.PRE_ORDER)


def _module_constants(module: ir.Operation) -> dict[ir.Value, int]:
    """The integer of every `arith.constant` in `module` that holds one, by
    its result: what `ConstantInts` finds, known before any op asks (a
    value not there is no integer constant, which then costs no look at
    its defining op). A walk in C++ calls Python only for the constants."""
    known: dict[ir.Value, int] = {}

    def collect(op, _rewriter):
        op = op.operation
        attr = op.attributes["value"]
        if isinstance(attr, ir.IntegerAttr):
            known[op.results[0]] = attr.value
        return True  # "no match": the walk changes nothing

    patterns = RewritePatternSet()
    patterns.add("arith.constant", collect)
    walk_and_apply_patterns(module, patterns.freeze())
    return known


def _check_op_rules(rules: Rules, module: ir.Operation, operand_kinds: bool = False) -> int:
    """The op rules, on the ops they are about: a walk in C++ calls Python
    only for those (with `operand_kinds`, also for the ops whose operand
    kinds the IRDL file leaves open: only parsed text can break those).
    Returns how many scf.for ops carry `pto.pipeline_stages`."""
    stages = 0

    def check_loop(op, _rewriter):
        nonlocal stages
        if rules.check_loop(op.operation):
            stages += 1
        return True  # "no match": the walk changes nothing

    def checker(name):
        check_op = rules.checker(name)

        def check(op, _rewriter):
            check_op(op.operation)
            return True

        return check

    patterns = RewritePatternSet()
    patterns.add("scf.for", check_loop)
    for name in {*OP_RULES, *(KIND_CHECKED_OPS if operand_kinds else ())}:
        patterns.add(name, checker(name))
    walk_and_apply_patterns(module, patterns.freeze())
    return stages


def verify_module(module: ir.Operation, arch: str | None = None, check_types: bool = True) -> bool:
    """Check every rule on `module`; emit an error at each offending op.
    Returns True when there is none.

    `arch` overrides the module's `pto.target_arch` (as a pass option does).
    `check_types=False` skips the rules about types and where
    `pto.pipeline_stages` may appear: passes cannot break them (no pass
    makes an invalid pto type: upstream passes cannot make pto types at all,
    ours make valid ones), so after the check that follows parsing only the
    op rules need checking again, and those only on the ops they are about,
    which a walk in C++ finds without calling Python for the others.
    """
    rules = _rules(module, arch)
    if rules is None:
        return False
    if check_types:
        _check_each_op(rules, module)
    else:
        _check_op_rules(rules, module)
    return rules.ok


def verify_ops(ops, module: ir.Operation, arch: str | None = None) -> bool:
    """The op rules on `ops` only (what a pass changed; see
    `ModulePass.records_changes`)."""
    rules = _rules(module, arch)
    if rules is None:
        return False
    checkers = {}
    for op in ops:
        name = op.name
        check = checkers.get(name)
        if check is None:
            check = checkers[name] = rules.checker(name)
        check(op)
    return rules.ok


def _nested(depth: int) -> str:
    """A regex for `<...>` nesting at most `depth` deep, with quoted strings
    (up to the next quote, brackets inside them not counted) as
    `source_text.embedded_pto_types` scans them. Each repetition starts
    with a character the others cannot, so a failed match backtracks in
    linear time."""
    body = r'[^<>"]*(?:"[^"]*"[^<>"]*)*'
    for _ in range(depth - 1):
        body = r'[^<>"]*(?:(?:"[^"]*"|<' + body + r'>)[^<>"]*)*'
    return "<" + body + ">"


# A pto type: what follows `!pto.` (group 1) or, when its brackets nest
# deeper or do not close, nothing (group 1 empty). The literal start keeps
# the scan at C speed.
_PTO_TYPE_TEXT = re.compile(r"!pto\.(?:(\w+" + _nested(4) + r")|\w+<)")


def _spelled_pto_types(code: str) -> set[str]:
    """`source_text.spelled_pto_types(code)`, found by one regex scan in C
    when every type in `code` nests at most 4 deep and uses no type alias
    inside (the common case), else by that function."""
    found = set(_PTO_TYPE_TEXT.findall(code))
    if "" in found or any("!" in rest for rest in found):
        return spelled_pto_types(code)
    return {"!pto." + rest for rest in found}


def _spelled_types_valid(rules: Rules, context: ir.Context, code: str) -> bool:
    """True when every pto type spelled in `code` is valid."""
    for spelling in _spelled_pto_types(code):
        try:
            t = ir.Type.parse(spelling, context)
        except ir.MLIRError:
            return False  # not a type after all (in a string?): look closely
        if rules.type_problem(t):
            return False
    return True


def verify_parsed(module: ir.Operation, source_text: str) -> bool:
    """The check that follows parsing `source_text` into `module`: every
    rule, as `verify_module`, but cheaper in the common case.

    Every pto type in a module parsed from text is spelled in that text (in
    an op's signature or a type alias). When each one spelled there (outside
    comments) is valid, and `pto.pipeline_stages` appears only on scf.for
    ops, the rules about types and attribute placement hold, and only the op
    rules need a walk (the C++-filtered one). Otherwise the full per-op walk
    finds and reports each problem at its op.

    What the binding calls would cost per op (docs/performance.md) is paid
    once where it can be: the spelled types are found by one regex scan,
    the module's integer constants are gathered before the op rules ask
    about them, and the rules keep what they learn per type, attribute
    and operand layout (verifier_rules.Rules).
    """
    try:
        rules = Rules(resolve_arch(module), resolve_ptoas_arch(module))
    except ArchError:
        return verify_module(module)
    # Comments spell what they like (even types the parser would choke on).
    code = strip_comments(source_text) if "//" in source_text else source_text
    if not _spelled_types_valid(rules, module.context, code):
        return verify_module(module)
    rules.constants = _module_constants(module).get
    stages_on_loops = _check_op_rules(rules, module, operand_kinds=True)
    if code.count(STAGES_ATTR) != stages_on_loops:
        # some occurrence is elsewhere (another op, a string): look closely
        return verify_module(module)
    if code.count("multi_tile_get") > 1:
        warn_co_live_slots(module)
    return rules.ok


def warn_co_live_slots(module: ir.Operation) -> None:
    """Warn where one loop iteration selects two slots of one multi-tile
    buffer: ptoas's InsertSync before v0.55 guards only the first of them,
    and the next iteration's write of the second races this one's read
    (hw-native-sys/PTOAS issue #1118)."""
    seen: dict[tuple, ir.Value] = {}  # (buffer, enclosing loop) -> the first slot selected

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "pto.multi_tile_get" and len(op.operands) == 2:
            loop = op.parent
            while loop is not None and loop.name not in ("scf.for", "func.func"):
                loop = loop.parent
            if loop is not None and loop.name == "scf.for":
                key = (op.operands[0], loop)
                first = seen.setdefault(key, op.operands[1])
                if first != op.operands[1]:
                    diagnostics.emit_warning(
                        op.location,
                        "a second slot of this multi-tile buffer is selected in the same iteration: ptoas before v0.55 "
                        "synchronises only the first slot an iteration selects (PTOAS issue #1118), so the next "
                        "iteration's write of this one may race its read here",
                    )
        return ir.WalkResult.ADVANCE

    module.walk(visit, ir.WalkOrder.PRE_ORDER)
