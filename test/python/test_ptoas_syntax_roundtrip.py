"""The writer prints every op losslessly: for every op of the table, built in
the generic form with each optional operand group absent and present (each
variadic group with 0, 1 and 2 operands), optional results absent and
present, and no attribute, every attribute, or each one alone, the ptoas
text the writer prints reads back as the same generic module. Where no
ptoas form can spell an op as it is (a required group missing, a format
whose optional groups the reader would take for one another), the op stays
in the generic form, which reads back too; where one can, the writer uses
it (so that what users see is ptoas's syntax)."""

from __future__ import annotations

import itertools
import re

import pytest
from conftest import pto_context
from mlir import ir

from pto_dialect.dialect import attributes as pto_attributes
from pto_dialect.dialect.formats import AttrKind
from pto_dialect.dialect.ops import IMPLICIT_TERMINATOR, OPS, Attribute, OpDef, op_def
from pto_dialect.syntax.ptoas import to_generic, to_ptoas

TILE = "!pto.tile_buf<vec, 16x16xf32>"
TYPES = {
    "tile": TILE,
    "dps": TILE,
    "entry": TILE,
    "multi": "!pto.multi_tile_buf<!pto.tile_buf<vec, 16x16xf32>, count=2>",
    "ptr": "!pto.ptr<f32>",
    "tensor_view": "!pto.tensor_view<16x16xf32>",
    "partition": "!pto.partition_tensor_view<16x16xf32>",
    "local_array": "!pto.local_array<4xi32>",
    "eventid_array": "!pto.eventid_array<8 : i64>",
    "pipe": "!pto.pipe_handle",
    "async_session": "!pto.async_session",
    "async_event": "!pto.async_event",
    "prefetch_async_context": "!pto.prefetch_async_context",
    "scalar": "f32",
    "int": "i32",
    "any": "i32",
}


def _type(constraint: str) -> str:
    return TYPES.get(constraint, constraint)  # else a builtin type: index, i64, ...


def _attribute_value(a) -> str:
    """A generic value of the attribute's kind that is not its default (a
    default is the same op as no attribute, and neither spelling keeps it)."""
    kind = a.kind
    if kind.kind == "int":
        return f"3 : i{kind.width or 64}"
    if kind.kind == "bool":
        return "true"
    if kind.kind == "string":
        return '"row"'
    if kind.kind == "symbol":
        return "@peer"
    if kind.kind == "array":
        return "[8, 8]"
    if kind.kind == "dense_i64":
        return "array<i64: 8, 8>"
    if kind.kind == "enum":
        d = pto_attributes.attr(kind.enum)
        values = [v for v in d.values if a.default is None or d.ptoas(v) != a.default]
        return d.generic(values[-1])
    return "5 : i32"


def _variants(d: OpDef):
    """(operand counts, result counts, attributes) of every form to try."""
    counts = [[1] if o.kind == "single" else [0, 1] if o.kind == "optional" else [0, 1, 2] for o in d.operands]
    result_counts = [[1] if r.kind == "single" else [0, 1] for r in d.results]
    required = tuple(a for a in d.attributes if a.required)  # every form has them (the IRDL file requires them)
    attribute_sets = [required]
    if len(d.attributes) > len(required):
        attribute_sets.append(tuple(d.attributes))
        if len(d.attributes) > len(required) + 1:
            attribute_sets += [(*required, a) for a in d.attributes if not a.required]
    for operands in itertools.product(*counts):
        for results in itertools.product(*result_counts):
            for attrs in attribute_sets:
                yield operands, results, attrs


def _op_text(d: OpDef, operands, results, attrs) -> tuple[str, list[str]]:
    """The generic op, and the types of the function arguments it uses."""
    arguments, names = [], []
    for o, n in zip(d.operands, operands):
        for _ in range(n):
            names.append(f"%a{len(arguments)}")
            arguments.append(_type(o.constraint))
    result_types = [_type(r.constraint) for r, n in zip(d.results, results) for _ in range(n)]
    if d.name == "make_tensor_view":
        result_types = ["!pto.tensor_view<16x16xf32>"]  # its pointer's element type
    entries = [f"{a.name} = {_attribute_value(a)}" for a in attrs]
    if d.needs_segments:
        entries.append(f"operandSegmentSizes = array<i32: {', '.join(map(str, operands))}>")
    head = ", ".join(f"%r{k}" for k in range(len(result_types))) + " = " if result_types else ""
    attr_dict = " {" + ", ".join(entries) + "}" if entries else ""
    result = result_types[0] if len(result_types) == 1 else "(" + ", ".join(result_types) + ")"
    regions = ""
    for region in d.regions:
        # a body: an op, its terminator if it has one (yielding values of the results' types), the implicit one
        body = [f'"pto.barrier"() {{pipe = {_attribute_value(Attribute("pipe", AttrKind("enum", enum="pipe")))}}} : () -> ()']
        if region.terminator:
            yielded = []
            for t in result_types:
                yielded.append(f"%a{len(arguments)}")
                arguments.append(t)
            body.append(f'"pto.{region.terminator}"({", ".join(yielded)}) : ({", ".join(result_types)}) -> ()')
        body.append(f'"{IMPLICIT_TERMINATOR}"() : () -> ()')
        regions += " ({\n    " + "\n    ".join(body) + "\n  })"
    operand_types = ", ".join(arguments[: len(names)])
    return f'{head}"{d.generic_name}"({", ".join(names)}){regions}{attr_dict} : ({operand_types}) -> {result}', arguments


def _module(d: OpDef, operands, results, attrs) -> str:
    line, arguments = _op_text(d, operands, results, attrs)
    signature = ", ".join(f"%a{k}: {t}" for k, t in enumerate(arguments))
    return f"func.func @peer() {{\n  return\n}}\nfunc.func @f({signature}) {{\n  {line}\n  return\n}}\n"


@pytest.fixture(scope="module")
def context():
    """One Context for all the module's ops (conftest's `context` is one per
    test): parsing here is MLIR's own, of the reader's output, so that a
    problem of the translation is seen as such."""
    return pto_context()


def _parse(text: str, context) -> ir.Module:
    translation = to_generic(text)
    assert not translation.problems, [p.message for p in translation.problems]
    with ir.Location.unknown(context):
        return ir.Module.parse(translation.text, context)


def _round_trip(d: OpDef, variant, context) -> tuple[str, str, str]:
    """(generic print, ptoas print, generic print of the ptoas print read back)."""
    module = _parse(_module(d, *variant), context)
    generic = str(module)
    ptoas = to_ptoas(generic)
    try:
        back = str(_parse(ptoas, context))
    except (AssertionError, ir.MLIRError) as e:
        back = f"does not read: {e}"
    return generic, ptoas, back


def _op_lines(text: str, d: OpDef) -> list[str]:
    spelled = re.compile(rf'(?:^|= ){re.escape(d.full_name)}(?![\w.])|"{re.escape(d.full_name)}"\(')
    return [line.strip() for line in text.splitlines() if spelled.search(line.strip())]


@pytest.mark.parametrize("name", [d.name for d in OPS])
def test_every_form_of_every_op_reads_back_as_printed(name, context):
    d = op_def("pto." + name.replace(".", "_"))
    lost = []
    for variant in _variants(d):
        generic, ptoas, back = _round_trip(d, variant, context)
        if back != generic:
            lost.append((variant[0], variant[1], [a.name for a in variant[2]], _op_lines(ptoas, d), back[:300]))
    assert not lost, lost[:3]


def _prints_ptoas(d: OpDef, variant, context) -> bool:
    _, ptoas, _ = _round_trip(d, variant, context)
    (line,) = _op_lines(ptoas, d)
    # the generic form, in ptoas syntax, names the op as ptoas does (`"pto.sync.set"(`)
    return f'"{d.full_name}"(' not in line


def test_every_op_prints_in_ptoas_syntax_in_its_usual_forms(context):
    """The generic fallback is for ops no format spells: every op, with
    every attribute and its optional groups all absent or all present (one
    or the other is a form ptoas has for all but tmrgsort, whose forms are
    checked below), prints in ptoas syntax."""
    missing = []
    for d in OPS:
        forms = []
        for fill in (0, 1):
            operands = tuple(1 if o.kind == "single" else fill for o in d.operands)
            results = tuple(1 if r.kind == "single" else fill for r in d.results)
            forms.append((operands, results, tuple(d.attributes)))
        if not any(_prints_ptoas(d, form, context) for form in forms):
            missing.append(d.name)
    assert missing == ["tmrgsort", *(d.name for d in OPS if d.name in GENERIC_ONLY)]
    assert {d.name for d in OPS if not d.formats} == GENERIC_ONLY


# Ops read and printed in the generic form only (docs/dialect.md, "Ops"):
# none since the ops with a region are read (a fusion_region without results
# prints generic: ptoas's printer writes `} : `, which its parser does not read).
GENERIC_ONLY: set[str] = set()


# Forms ptoas's parsers have, by (op, operand counts): each must print in
# ptoas syntax (not fall back to the generic form).
PTOAS_FORMS = [
    # tgather: index form with and without tmp, compare form with and without tmp, mask form
    ("tgather", (1, 1, 0, 1, 1, 0), ()),
    ("tgather", (1, 1, 0, 1, 0, 0), ()),
    ("tgather", (1, 1, 1, 0, 1, 1), ("cmpMode", "offset")),
    ("tgather", (1, 1, 1, 0, 0, 1), ()),
    ("tgather", (1, 1, 0, 0, 0, 0), ("maskPattern", "axis")),
    ("tgather", (1, 1, 0, 0, 0, 0), ("maskPattern",)),
    # tmrgsort: format1, format2 with tmp and without
    ("tmrgsort", (1, 1, 1, 0, 0), ()),
    ("tmrgsort", (2, 0, 1, 1, 1), ()),
    ("tmrgsort", (2, 0, 1, 0, 1), ("exhausted",)),
    # tmov: fp alone, fp and preQuantScalar
    ("tmov", (1, 1, 1, 0), ()),
    ("tmov", (1, 1, 1, 1), ()),
    # subview with its valid pair, alloc_tile with each operand alone
    ("subview", (1, 2, 1, 1), ("sizes",)),
    ("alloc_tile", (0, 1, 0), ()),
    ("alloc_tile", (1, 0, 1), ()),
]


@pytest.mark.parametrize(("name", "operands", "attrs"), PTOAS_FORMS)
def test_forms_ptoas_has_print_in_ptoas_syntax(name, operands, attrs, context):
    d = op_def("pto." + name)
    results = tuple(0 for r in d.results if r.kind != "single") or tuple(1 for _ in d.results)
    variant = (operands, results, tuple(d.attribute(a) for a in attrs))
    assert _prints_ptoas(d, variant, context)
    generic, _, back = _round_trip(d, variant, context)
    assert back == generic


# Forms no ptoas syntax spells: they stay generic (and read back, above).
GENERIC_FORMS = [
    ("tmov", (1, 1, 0, 1), ()),  # ptoas's format would read the preQuantScalar as fp
    ("tgather", (1, 1, 0, 0, 0, 1), ()),  # a kValue without cdst
    ("tgather", (1, 1, 1, 1, 1, 1), ()),  # indices and kValue
    ("tmrgsort", (0, 1, 1, 0, 0), ()),  # no source: `ins(, %n : , i32)` would not read
    ("subview", (1, 1, 1, 0), ("sizes",)),  # half the valid pair
]


@pytest.mark.parametrize(("name", "operands", "attrs"), GENERIC_FORMS)
def test_forms_ptoas_lacks_stay_generic(name, operands, attrs, context):
    d = op_def("pto." + name)
    results = tuple(0 for r in d.results if r.kind != "single") or tuple(1 for _ in d.results)
    variant = (operands, results, tuple(d.attribute(a) for a in attrs))
    assert not _prints_ptoas(d, variant, context)


def test_the_generic_mask_form_of_tgather_prints_as_ptoas_writes_it(context):
    text = (
        "func.func @f(%s: !pto.tile_buf<vec, 16x16xf32>, %d: !pto.tile_buf<vec, 16x16xf32>) {\n"
        '  "pto.tgather"(%s, %d) {maskPattern = #pto.mask_pattern<P1111>, axis = "row", '
        "operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>} : (!pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>) -> ()\n"
        "  return\n}\n"
    )
    printed = to_ptoas(str(_parse(text, context)))
    assert (
        'pto.tgather ins(%arg0, {maskPattern = #pto.mask_pattern<P1111>} : !pto.tile_buf<vec, 16x16xf32>, "row") '
        "outs(%arg1 : !pto.tile_buf<vec, 16x16xf32>)\n"
    ) in printed


def test_an_attribute_the_chosen_form_does_not_spell_goes_to_its_attr_dict(context):
    """An axis on the index form (ptoas's verifier rejects it; its printer
    would drop it) is kept, in the attr-dict, where ptoas's parser reads it."""
    d = op_def("pto.tgather")
    variant = ((1, 1, 0, 1, 1, 0), (), (d.attribute("axis"),))
    generic, ptoas, back = _round_trip(d, variant, context)
    (line,) = _op_lines(ptoas, d)
    assert line.startswith("pto.tgather ins(%arg0, %arg2, %arg3 : ") and line.endswith(') {axis = "row"}')
    assert back == generic


def test_a_struct_path_reads_and_prints_as_ptoas_s_custom_directive(context):
    """custom<StructPath> (PTOAS lib/PTO/IR/PTO.cpp, parseStructPath and
    printStructPath): `[0, 2]` is the DenseI64ArrayAttr `array<i64: 0, 2>`,
    `[]` the empty one; ODS's printer puts a space before it."""
    text = "func.func @f(%s: i64, %v: f32) {\n  pto.struct_set %s[0, 2], %v : i64, f32\n  %r = pto.struct_get %s [] : i64 -> f32\n  return\n}\n"
    generic = str(_parse(text, context))
    assert '"pto.struct_set"(%arg0, %arg1) {path = array<i64: 0, 2>}' in generic
    assert '"pto.struct_get"(%arg0) {path = array<i64>}' in generic
    ptoas = to_ptoas(generic)
    assert "pto.struct_set %arg0 [0, 2], %arg1 : i64, f32" in ptoas
    assert "pto.struct_get %arg0 [] : i64 -> f32" in ptoas
