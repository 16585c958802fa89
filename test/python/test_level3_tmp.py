"""The tmps ptoas requires at level3 (docs/dialect.md, "Scratch tiles at
level3"): the op table's facts.
"""

from __future__ import annotations

import pytest

from pto_dialect.ops import LEVEL3_TMP_TYPES, LEVEL3_TMP_WHEN, OPS

ARCHS = ("a2a3", "a5")


def test_every_op_with_a_tmp_operand_has_a_level3_fact():
    with_tmp = {d.name for d in OPS if any(o.name == "tmp" for o in d.operands)}
    with_fact = {d.name for d in OPS if d.level3_tmp is not None}
    assert with_tmp == with_fact
    for d in OPS:
        fact = d.level3_tmp
        if fact is None:
            continue
        assert fact.when in LEVEL3_TMP_WHEN and set(fact.arches) <= set(ARCHS)
        assert not fact.arches or fact.tmp in LEVEL3_TMP_TYPES
        assert "PTOAS" in fact.source  # cites ptoas


def test_an_op_table_rule_must_name_a_tmp_operand():
    from pto_dialect.ops import Level3Tmp, OpDef, Operand

    with pytest.raises(ValueError, match="no `tmp` operand"):
        OpDef("tx", (Operand("src", "dps"),), level3_tmp=Level3Tmp(("a2a3",), "always", "like-src"))
    with pytest.raises(ValueError, match="unknown level3 tmp rule"):
        Level3Tmp(("a2a3",), "sometimes", "like-src")
