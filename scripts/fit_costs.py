"""Fit the vector formulas of pto_dialect/timing/costs.py to the measured
cycles (pto_dialect/timing/measured_cycles.json) and print them.

    python scripts/fit_costs.py

Per arch and op: fixed + per_repeat * repeats + per_row * rows (costs.repeats); on a5
one such formula per path, 1-D (a contiguous run) and 2-D (rows), as
pto-isa keys its own a5 formulas (include/pto/costmodel/a5/formula_costmodel/
formula_params.csv, `shape_path`),
fitted on the relative error in the L1 sense (iteratively reweighted least
squares: a few odd points do not pull the formula off the rest), every
parameter >= 0. The per-repeat term is always in; the fixed and per-row
terms only when the points have more than one size. Points faster than
the vector unit's 256 bytes a cycle are left out (`physical`). Per element type (per
source and target type for tcvt) a formula of its own is printed where that
type's points are at least three and it raises their median precision by
more than 0.02. The a5 path fits keep, of the least-squares fit and the
exact fits through each few points, the one with the highest summed
precision (a narrowing tcvt's 2-D times jump from 97 to 890 cycles, and
the L1 fit would rather underestimate every point than miss two). a2a3 tdiv takes the fixed
part of pto-isa's vdiv calibration (`ISA_FIXED`) and a slope per element
type. The printed dicts are what costs.py holds.
"""

from __future__ import annotations

import statistics
from collections import defaultdict

import numpy as np

from pto_dialect.timing import costs
from pto_dialect.timing.measured import points, precision

PRIOR_FIXED = {"a2a3": 20.0, "a5": 55.0}  # the fixed part when the points cannot tell it (one size only)
# The fixed part pto-isa's own calibration gives where our points are of one
# size: vdiv "measured = 4.03 * repeat + 31" on a2a3 (head 11 + tail 19 in
# pto-isa include/pto/costmodel/a2a3/cce_costmodel/cce_costmodel_vector_compute.hpp).
ISA_FIXED = {("a2a3", "pto.tdiv"): 30.0}

def physical(measured: float, shape) -> bool:
    """A point faster than 256 bytes a cycle (the vector unit's width) was
    not the op's work (docs/timing.md: the a2a3 16x256 row reductions,
    trowmin): it is left out of the fit."""
    return measured >= shape.rows * shape.cols * shape.itemsize / costs.REPEAT_BYTES


def fit(rows: list[tuple[list[float], float]], prior: float) -> list[float]:
    sizes = {f[1] for f, _ in rows}
    given = 0.0 if len(sizes) > 1 else prior
    choices = [(1,), (0, 1), (1, 2), (0, 1, 2)] if len(sizes) > 1 else [(1,)]
    best = None
    for keep in choices:
        if len(keep) > len(rows):
            continue
        a = np.array([[f[i] / y for i in keep] for f, y in rows])
        b = np.array([1.0 - given / y for _, y in rows])
        w = np.ones(len(rows))
        for _ in range(60):
            x, *_ = np.linalg.lstsq(a * w[:, None], b * w, rcond=None)
            x = np.maximum(x, 0.0)
            r = np.abs(a @ x - b)
            w = 1.0 / np.sqrt(np.maximum(r, 1e-4))
        err = float(np.sum(np.abs(a @ x - b)))
        if best is None or err < best[0] - 1e-9:
            params = [given, 0.0, 0.0]
            for i, v in zip(keep, x):
                params[i] = float(v)
            best = (err, params)
    return best[1]


def summed_precision(params: list[float], rows) -> float:
    return sum(precision(params[0] + params[1] * f[1] + params[2] * f[2], y) for f, y in rows)


def fit_robust(rows: list[tuple[list[float], float]], prior: float) -> list[float]:
    """`fit`, or an exact fit through a few of the points (1 to 3 of the
    parameters), whichever prices the points with the highest summed
    precision."""
    from itertools import combinations

    best = fit(rows, prior)
    score = summed_precision(best, rows)
    for keep in [(0,), (1,), (0, 1), (1, 2), (0, 1, 2)]:
        for some in combinations(rows, len(keep)):
            a = np.array([[f[i] for i in keep] for f, _ in some])
            if abs(np.linalg.det(a)) < 1e-9:
                continue
            x = np.linalg.solve(a, np.array([y for _, y in some]))
            if (x < 0).any():
                continue
            params = [0.0, 0.0, 0.0]
            for i, v in zip(keep, x):
                params[i] = float(v)
            if summed_precision(params, rows) > score + 1e-9:
                best, score = params, summed_precision(params, rows)
    return best


def cycles(formula, f: list[float]) -> float:
    """A formula's cycles at a point's terms [1, repeats, rows]: a2a3's are
    [fixed, per_repeat, per_row]; a5's a pair of those, (1-D, 2-D), the
    2-D one for points with a per-row term."""
    params = (formula[1] if f[2] else formula[0]) if isinstance(formula, tuple) else formula
    return params[0] + params[1] * f[1] + params[2] * f[2]


def fit_paths(rows: list[tuple[list[float], float]]) -> tuple[list[float], list[float]]:
    """a5: a formula per path, 1-D (no rows) and 2-D; a path without points
    takes the other's."""
    one = [x for x in rows if not x[0][2]]
    two = [x for x in rows if x[0][2]]
    f1 = fit_robust(one, PRIOR_FIXED["a5"]) if one else None
    f2 = fit_robust(two, PRIOR_FIXED["a5"]) if two else None
    return (f1 or f2, f2 or f1)


def median_precision(formula, rows) -> float:
    return statistics.median(precision(cycles(formula, f), y) for f, y in rows)


def text(formula) -> str:
    if isinstance(formula, tuple):
        one, two = formula
        return f"PathFormula(VectorFormula({one[0]:.1f}, {one[1]:.3f}), VectorFormula({two[0]:.1f}, {two[1]:.3f}, {two[2]:.2f}))"
    return f"VectorFormula({formula[0]:.1f}, {formula[1]:.3f}, {formula[2]:.2f})"


def main() -> None:
    groups: dict = defaultdict(list)
    for p in points():
        table = costs.cost_table(p.arch)
        shape = p.event.shape
        if p.event.pipe != "V" or (p.event.op, shape.dtype) in table.by_dtype and p.arch == "a2a3":
            continue
        n, r = costs.repeats(table.lanes(p.event.op, shape), table.one_d)
        if not physical(p.measured, shape):
            continue
        key = (shape.src_dtype, shape.dtype) if p.op == "tcvt" else shape.dtype
        groups[(p.arch, p.event.op)].append((key, ([1.0, float(n), float(r)], p.measured)))
    for arch in ("a2a3", "a5"):
        print(f"# {arch} by op")
        special = []
        for (a, op), tagged in sorted(groups.items()):
            if a != arch:
                continue
            rows = [x for _, x in tagged]
            prior = ISA_FIXED.get((arch, op), PRIOR_FIXED[arch])
            formula = fit_paths(rows) if arch == "a5" else fit(rows, prior)
            print(f'    "{op}": {text(formula)},  # {len(rows)} points')
            for key in sorted({k for k, _ in tagged}):
                sub = [x for k, x in tagged if k == key]
                if len(sub) < 3 and (arch, op) not in ISA_FIXED:
                    continue
                own = fit_paths(sub) if arch == "a5" else fit(sub, prior)
                if median_precision(own, sub) > median_precision(formula, sub) + 0.02:
                    special.append((op, key, own, len(sub)))
        print(f"# {arch} by dtype (tcvt: by source and target)")
        for op, key, own, n in special:
            k = f'"{op}", "{key[0]}", "{key[1]}"' if isinstance(key, tuple) else f'"{op}", "{key}"'
            print(f"    ({k}): {text(own)},  # {n} points")


if __name__ == "__main__":
    main()
