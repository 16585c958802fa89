"""What the arith ops the interpreter runs compile to (their scalar
semantics are in scalars.py)."""

from __future__ import annotations

from mlir import ir

from . import scalars
from .compiler import Compiler, Frame, Instr, guard, int_width
from .errors import InterpreterError, OpFault
from .registry import impl


def _float(op: ir.Operation, value: ir.Value) -> str:
    f = scalars.float_name(value.type)
    if f is None:
        raise InterpreterError(op.location, f"'{op.name}' on {value.type} is not supported (scalar floats: f16, bf16, f32, f64)")
    return f


@impl("arith.constant")
def _compile_constant(c: Compiler, op: ir.Operation) -> None:
    attr = op.attributes["value"]
    result = op.results[0]
    w = scalars.int_width(result.type)
    if w is not None and isinstance(attr, (ir.IntegerAttr, ir.BoolAttr)):
        value = scalars.wrap(int(attr.value), w)
    elif isinstance(attr, ir.FloatAttr) and scalars.float_name(result.type):
        value = scalars.round_float(attr.value, scalars.float_name(result.type))
    else:
        raise InterpreterError(op.location, f"arith.constant of type {result.type} is not supported (integers, index and scalar floats are)")
    slot = c.define(result)
    c.template[slot] = value  # SSA: the slot holds this value wherever it is read
    return None


@impl(*scalars.INT_BINARY)
def _compile_int_binary(c: Compiler, op: ir.Operation) -> Instr:
    a, b = c.uses(op)
    w = int_width(op, op.results[0])
    fn = scalars.INT_BINARY[op.name]
    result = c.define(op.results[0])
    wrap = scalars.wrap

    def run(frame: Frame) -> None:
        frame[result] = wrap(fn(frame[a], frame[b], w), w)

    return guard(op, run)


@impl(*scalars.FLOAT_BINARY)
def _compile_float_binary(c: Compiler, op: ir.Operation) -> Instr:
    a, b = c.uses(op)
    f = _float(op, op.results[0])
    fn = scalars.FLOAT_BINARY[op.name]
    result = c.define(op.results[0])
    round_float = scalars.round_float

    def run(frame: Frame) -> None:
        frame[result] = round_float(fn(frame[a], frame[b]), f)

    return run


@impl("arith.negf")
def _compile_negf(c: Compiler, op: ir.Operation) -> Instr:
    (a,) = c.uses(op)
    _float(op, op.results[0])
    result = c.define(op.results[0])
    return lambda frame: frame.__setitem__(result, -frame[a])


@impl("arith.cmpi")
def _compile_cmpi(c: Compiler, op: ir.Operation) -> Instr:
    a, b = c.uses(op)
    w = int_width(op, op.operands[0])
    predicate = op.attributes["predicate"].value
    try:
        fn = scalars.cmpi(predicate)
    except OpFault as e:
        raise InterpreterError(op.location, str(e)) from None
    signed_i1 = w == 1 and 2 <= predicate <= 5  # i1 true is -1 when signed
    result = c.define(op.results[0])

    def run(frame: Frame) -> None:
        x, y = frame[a], frame[b]
        if signed_i1:
            x, y = -x, -y
        frame[result] = 1 if fn(x, y, w) else 0

    return run


@impl("arith.select")
def _compile_select(c: Compiler, op: ir.Operation) -> Instr:
    cond, a, b = c.uses(op)
    if scalars.int_width(op.operands[0].type) != 1:
        raise InterpreterError(op.location, "arith.select with a vector condition is not supported")
    result = c.define(op.results[0])

    def run(frame: Frame) -> None:
        frame[result] = frame[a] if frame[cond] else frame[b]

    return run


_SIGNED_CASTS = {"arith.index_cast": True, "arith.extsi": True, "arith.trunci": True, "arith.index_castui": False, "arith.extui": False}


@impl(*_SIGNED_CASTS)
def _compile_int_cast(c: Compiler, op: ir.Operation) -> Instr:
    (a,) = c.uses(op)
    src, dst = int_width(op, op.operands[0]), int_width(op, op.results[0])
    signed = _SIGNED_CASTS[op.name]
    result = c.define(op.results[0])
    cast = scalars.cast_int

    def run(frame: Frame) -> None:
        frame[result] = cast(frame[a], src, dst, signed)

    return run


@impl("arith.sitofp", "arith.uitofp")
def _compile_int_to_float(c: Compiler, op: ir.Operation) -> Instr:
    (a,) = c.uses(op)
    w = int_width(op, op.operands[0])
    f = _float(op, op.results[0])
    signed = op.name == "arith.sitofp"
    result = c.define(op.results[0])

    def run(frame: Frame) -> None:
        v = frame[a] if signed else scalars.unsigned(frame[a], w)
        frame[result] = scalars.round_float(float(v), f)

    return run


@impl("arith.fptosi", "arith.fptoui")
def _compile_float_to_int(c: Compiler, op: ir.Operation) -> Instr:
    (a,) = c.uses(op)
    _float(op, op.operands[0])
    w = int_width(op, op.results[0])
    signed = op.name == "arith.fptosi"
    result = c.define(op.results[0])
    return lambda frame: frame.__setitem__(result, scalars.float_to_int(frame[a], w, signed))


@impl("arith.extf", "arith.truncf")
def _compile_float_cast(c: Compiler, op: ir.Operation) -> Instr:
    (a,) = c.uses(op)
    _float(op, op.operands[0])
    f = _float(op, op.results[0])
    result = c.define(op.results[0])
    return lambda frame: frame.__setitem__(result, scalars.round_float(frame[a], f))
