"""ptoas's own samples with an op with a region read and print as ptoas
prints them (issue 25, item 3; docs/dialect.md, "Ops with a region").

The inputs are every file of tonibohnlein/PTOAS test/lit/pto/ at the commit
pto-parse is built from (e32488c9) that spells `pto.section.*` or
`pto.fusion_region`, each `// -----` chunk that expects no error: with
`PTOAS_SRC` naming a PTOAS checkout or a bare clone (as test_ptoas_ops.py
reads PTOOps.td), and `PTO_PARSE`. A chunk pto-parse refuses is no valid
input (skipped, with its error); for every other, pto-parse accepts our
printing of it and prints it as it prints the input, SSA names aside.

`OUTSIDE_PTOOPS` lists the files that also use ops ptoas defines outside
PTOOps.td, which this dialect does not know: strict expected failures.
"""

from __future__ import annotations

import os
import subprocess
from functools import lru_cache
from pathlib import Path

import pytest
from oracle_support import require

from pto_dialect.driver.session import Source
from pto_dialect.testing import oracles, printed

pytestmark = pytest.mark.oracle

PTOAS_COMMIT = "e32488c9"
SAMPLES = "test/lit/pto/"
REGION_OPS = ("pto.section.", "pto.fusion_region")

OUTSIDE_PTOOPS = {
    "backend_single_child_compile_unit.pto": "pto.get_ctrl, pto.set_ctrl",
    "ptodsl_tileop_effect_autosync.pto": "pto.tile_buf_addr",
    "ptodsl_tileop_native_kind_sections.pto": "pto.tile_buf_addr",
    "ptodsl_tileop_sections.pto": "pto.simt_launch",
    "section_simt_syncthreads_roundtrip.pto": "pto.syncthreads",
}


def _source() -> Path | None:
    value = os.environ.get("PTOAS_SRC", "").strip()
    return Path(value) if value else None


@lru_cache(maxsize=1)
def _samples() -> dict[str, str]:
    """File name -> text of every sample with an op with a region."""
    src = _source()
    if src is None:
        return {}
    if (src / SAMPLES).is_dir():
        texts = {p.name: p.read_text() for p in sorted((src / SAMPLES).glob("*.pto"))}
    else:  # a bare clone: the files at the commit pto-parse is built from
        git = ["git", "-C", str(src)]
        names = subprocess.run([*git, "ls-tree", "--name-only", f"{PTOAS_COMMIT}:{SAMPLES}"], check=True, capture_output=True, text=True).stdout.split()
        texts = {}
        for name in names:
            if name.endswith(".pto"):
                texts[name] = subprocess.run([*git, "show", f"{PTOAS_COMMIT}:{SAMPLES}{name}"], check=True, capture_output=True, text=True).stdout
    return {name: text for name, text in texts.items() if any(op in text for op in REGION_OPS)}


def _kernels(name: str, text: str) -> list[printed.Kernel]:
    source = Source(name, text)
    marker = printed.SPLIT_MARKER if printed.SPLIT_MARKER in text else None
    unregistered = "--allow-unregistered-dialect" in text
    return [
        printed.Kernel(f"{name}:{chunk.first_line}", chunk.padded(), unregistered)
        for chunk in source.chunks(marker)
        if chunk.text.strip() and "expected-error" not in chunk.text
    ]


@lru_cache(maxsize=1)
def _verdicts(tool_path: str):
    """Per chunk: pto-parse's verdict on the input, our printing (None: we
    refuse it), pto-parse's verdict on our printing."""
    tool = oracles.Tool("pto-parse", oracles.PTO_PARSE, tool_path)
    kernels = [k for name, text in _samples().items() for k in _kernels(name, text)]
    theirs = oracles.parse_many(tool, [k.text for k in kernels], [k.allow_unregistered for k in kernels])
    outputs, _ = printed.print_all(kernels, printed.PIPELINES[:1])
    ours = {o.kernel.origin: o.text for o in outputs}
    read = [k for k in kernels if k.origin in ours]
    again = dict(zip((k.origin for k in read), oracles.parse_many(tool, [ours[k.origin] for k in read], [k.allow_unregistered for k in read])))
    return {k.origin: (v, ours.get(k.origin), again.get(k.origin)) for k, v in zip(kernels, theirs)}


def _names() -> list:
    names = sorted(_samples())
    if not names:
        return [pytest.param(None, marks=pytest.mark.skip(reason="PTOAS_SRC names no PTOAS checkout"))]
    params = []
    for name in names:
        marks = [pytest.mark.xfail(strict=True, reason=f"uses {OUTSIDE_PTOOPS[name]}, defined outside PTOOps.td")] if name in OUTSIDE_PTOOPS else []
        params.append(pytest.param(name, id=name, marks=marks))
    return params


def _normal(text: str) -> str:
    return oracles.canonical_names(text).strip("\n") + "\n"


@pytest.mark.parametrize("name", _names())
def test_ptoas_sample_with_a_region_prints_as_ptoas_prints_it(name):
    tool = require(oracles.pto_parse())
    verdicts = _verdicts(tool.path)
    compared = 0
    for kernel in _kernels(name, _samples()[name]):
        theirs, ours, again = verdicts[kernel.origin]
        if not theirs.accepted:
            continue  # not a valid ptoas input
        assert ours is not None, f"{kernel.origin}: our reader refuses it"
        assert again.accepted, f"{kernel.origin}: pto-parse refuses our printing: {again.first_error[:300]}"
        assert _normal(ours) == _normal(theirs.printed), kernel.origin
        compared += 1
    if not compared:
        pytest.skip("pto-parse accepts none of its chunks")


def test_the_samples_are_many():
    if not _samples():
        pytest.skip("PTOAS_SRC names no PTOAS checkout")
    assert len(_samples()) >= 20, sorted(_samples())
