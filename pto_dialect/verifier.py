"""Where and when the pto rules (verifier_rules.py) run.

After parsing, every rule runs (`verify_parsed`: the source text often
proves the type rules at once). After a pass, only the op rules run again,
on the ops they are about (`verify_module(check_types=False)`) or on the
ops the pass changed (`verify_ops`). Each violation is an MLIR error at the
offending op; every entry point returns whether the module is clean.
docs/dialect.md, "Verification".
"""

from __future__ import annotations

from mlir import ir
from mlir.rewrite import RewritePatternSet, walk_and_apply_patterns

from . import diagnostics
from .source_text import spelled_pto_types, strip_comments
from .verifier_rules import KIND_CHECKED_OPS, OP_RULES, Rules
from .vocabulary import STAGES_ATTR, ArchError, resolve_arch

__all__ = ["verify_module", "verify_ops", "verify_parsed"]


def _rules(module: ir.Operation, arch: str | None) -> Rules | None:
    """The rules for `module` under `arch` (the module's own when None), or
    None after reporting an unknown arch."""
    try:
        return Rules(resolve_arch(module, arch))
    except ArchError as e:
        diagnostics.emit_error(module.location, str(e))
        return None


def _check_each_op(rules: Rules, module: ir.Operation) -> None:
    """Every rule, on every op (a walk that visits each in Python)."""

    def visit(op: ir.Operation) -> ir.WalkResult:
        rules.check_all(op)
        return ir.WalkResult.ADVANCE

    module.walk(visit, ir.WalkOrder.PRE_ORDER)


def _check_op_rules(rules: Rules, module: ir.Operation, operand_kinds: bool = False) -> int:
    """The op rules, on the ops they are about: a walk in C++ calls Python
    only for those (with `operand_kinds`, also for the ops whose operand
    kinds the IRDL file leaves open: only parsed text can break those).
    Returns how many scf.for ops carry `pto.pipeline_stages`."""
    stages = 0

    def check(op, _rewriter, name):
        nonlocal stages
        op = op.operation
        if name == "scf.for" and STAGES_ATTR in op.attributes:
            stages += 1
        rules.check_op(op, name)
        return True  # "no match": the walk changes nothing

    patterns = RewritePatternSet()
    names = {*OP_RULES, "scf.for", *(KIND_CHECKED_OPS if operand_kinds else ())}
    for name in names:
        patterns.add(name, lambda op, rewriter, name=name: check(op, rewriter, name))
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
    for op in ops:
        rules.check_op(op, op.name)
    return rules.ok


def _spelled_types_valid(rules: Rules, context: ir.Context, code: str) -> bool:
    """True when every pto type spelled in `code` is valid."""
    for spelling in spelled_pto_types(code):
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
    """
    try:
        rules = Rules(resolve_arch(module))
    except ArchError:
        return verify_module(module)
    # Comments spell what they like (even types the parser would choke on).
    code = strip_comments(source_text)
    if not _spelled_types_valid(rules, module.context, code):
        return verify_module(module)
    stages_on_loops = _check_op_rules(rules, module, operand_kinds=True)
    if code.count(STAGES_ATTR) != stages_on_loops:
        # some occurrence is elsewhere (another op, a string): look closely
        return verify_module(module)
    return rules.ok
