"""The `#pto` attributes: one table, from which the IRDL file, the reader
and the writer follow (docs/dialect.md, "Attributes").

ptoas spells an attribute one of two ways, by how its ODS defines it:
*pretty* `#pto.layout<nd>` (an AttrDef or an enum with an assembly format)
or *opaque* `#pto<round_mode ROUND>` (an enum with the default format).
Inside some op formats ptoas prints it *stripped* (`pto.barrier <PIPE_ALL>`,
`location = <vec>`). The generic spelling is `#pto.layout<"nd">`: one
string parameter checked against the values.

An attribute of this dialect that the table does not know (a structured one
like `#pto.acc_push_epilogue<layout = nz2nd, ...>`) is carried through as
`#pto.opaque<"its ptoas text">` and printed back as it was written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class AttrDef:
    """One `#pto` attribute: its mnemonic, its values, and whether ptoas
    prints it pretty (`#pto.NAME<V>`) or opaque (`#pto<NAME V>`)."""

    name: str
    values: tuple[str, ...]
    pretty: bool = True

    def ptoas(self, value: str) -> str:
        return f"#pto.{self.name}<{value}>" if self.pretty else f"#pto<{self.name} {value}>"

    def stripped(self, value: str) -> str:
        return f"<{value}>"

    def generic(self, value: str) -> str:
        return f'#pto.{self.name}<"{value}">'


def _enum(name: str, values: str, pretty: bool = True) -> AttrDef:
    return AttrDef(name, tuple(values.split()), pretty)


_PIPES = (
    "PIPE_S PIPE_V PIPE_M PIPE_MTE1 PIPE_MTE2 PIPE_MTE3 PIPE_ALL PIPE_MTE4 PIPE_MTE5 PIPE_V2 PIPE_FIX "
    "VIRTUAL_PIPE_MTE2_L1A VIRTUAL_PIPE_MTE2_L1B PIPE_NUM PIPE_UNASSIGNED"
)

ATTRIBUTES: tuple[AttrDef, ...] = (
    # what PyPTO emits
    _enum("layout", "nd dn nz mx_a_zz mx_b_nn"),
    _enum("address_space", "zero gm mat left right acc vec bias scaling"),
    _enum("round_mode", "NONE RINT ROUND FLOOR CEIL TRUNC ODD CAST_RINT", pretty=False),
    _enum("kernel_kind", "cube vector"),
    _enum("fence_scope", "local_memory gm all"),
    _enum("atomic_type", "atomic_none atomic_add", pretty=False),
    _enum("wait_cmp", "eq ne gt ge lt le", pretty=False),
    _enum("notify_op", "atomic_add set", pretty=False),
    _enum("sync_all_mode", "hard soft"),
    _enum("sync_core_type", "aiv_only aic_only mix"),
    _enum("pipe", _PIPES),
    # the rest ptoas defines that ops of the table use
    _enum("pad_value", "null zero max min"),
    _enum("padmode", "PadNull PadFirstElem PadValue"),
    _enum("blayout", "row_major col_major"),
    _enum("slayout", "none_box row_major col_major"),
    _enum("compact_mode", "null normal row_plus_one"),
    _enum("mask_pattern", "P0101 P1010 P0001 P0010 P0100 P1000 P1111"),
    _enum("acc_to_vec_mode", "single_mode_vec0 single_mode_vec1 dual_mode_split_m dual_mode_split_n"),
    _enum("func_core_type", "AIC AIV MIX AIC_OR_AIV"),
    _enum("event", " ".join(f"EVENT_ID{i}" for i in range(8))),
    _enum("cmp", "eq ne lt le gt ge", pretty=False),
    _enum("saturation_mode", "ON OFF", pretty=False),
    _enum("st_phase", "unspecified partial final", pretty=False),
    _enum("acc_phase", "unspecified partial final", pretty=False),
    _enum("relu_pre_mode", "no_relu normal_relu scalar_relu vector_relu pwl", pretty=False),
    _enum("mx_group_axis", "axis0 axis1", pretty=False),
    *(
        _enum(f"{what}_precision", "default high_precision", pretty=False)
        for what in ("div", "exp", "log", "recip", "rem", "rsqrt", "sqrt", "fmod", "pow")
    ),
)

BY_NAME = {a.name: a for a in ATTRIBUTES}
OPAQUE = "opaque"
"""The generic attribute that carries a `#pto` attribute the table does not know."""


def attr(name: str) -> AttrDef:
    return BY_NAME[name]


class AttrSyntaxError(ValueError):
    def __init__(self, message: str, offset: int = 0) -> None:
        super().__init__(message)
        self.offset = offset


_PRETTY = re.compile(r"#pto\.(\w+)<\s*([\w.]+)\s*>")
_OPAQUE = re.compile(r"#pto<\s*(\w+)\s+([\w.]+)\s*>")


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _unescape(text: str) -> str:
    """A string's contents as MLIR's lexer reads them: `\\XX` is a hex
    byte (how MLIR prints a quote: `\\22`), else `\\c` is `c`."""
    return re.sub(r"\\([0-9a-fA-F]{2}|.)", lambda m: chr(int(m.group(1), 16)) if len(m.group(1)) == 2 else m.group(1), text)


@lru_cache(maxsize=4096)
def attr_to_generic(text: str) -> str:
    """A `#pto` attribute's ptoas spelling (its whole text) -> generic.
    Raises AttrSyntaxError for a known attribute with an unknown value."""
    generic = _GENERIC.fullmatch(text)
    if generic is not None and (generic.group(1) in BY_NAME or generic.group(1) == OPAQUE):
        definition = BY_NAME.get(generic.group(1))
        value = _unescape(generic.group(2))
        if definition is not None and value not in definition.values:
            raise AttrSyntaxError(f"unknown {definition.name}: {value} (expected one of {', '.join(definition.values)})")
        return text  # already generic
    m = _PRETTY.fullmatch(text) or _OPAQUE.fullmatch(text)
    if m is not None and m.group(1) in BY_NAME:
        definition, value = BY_NAME[m.group(1)], m.group(2)
        if value not in definition.values:
            raise AttrSyntaxError(f"unknown {definition.name}: {value} (expected one of {', '.join(definition.values)})")
        return definition.generic(value)
    return f'#pto.{OPAQUE}<"{_escape(text)}">'


_GENERIC = re.compile(r'#pto\.(\w+)<"((?:[^"\\]|\\.)*)">')


@lru_cache(maxsize=4096)
def attr_to_ptoas(text: str) -> str:
    """A `#pto` attribute's generic spelling -> how ptoas prints it."""
    m = _GENERIC.fullmatch(text)
    if m is None:
        return text
    name, value = m.group(1), m.group(2)
    if name == OPAQUE:
        return _unescape(value)
    definition = BY_NAME.get(name)
    return definition.ptoas(value) if definition else text


def stripped_value(text: str) -> str | None:
    """The value of a stripped attribute (`<PIPE_ALL>`), or None."""
    m = re.fullmatch(r"<\s*([\w.]+)\s*>", text)
    return m.group(1) if m else None


def generic_value(text: str) -> tuple[str, str] | None:
    """(name, value) of a generic `#pto.NAME<"V">`, or None."""
    m = _GENERIC.fullmatch(text)
    return (m.group(1), _unescape(m.group(2))) if m else None
