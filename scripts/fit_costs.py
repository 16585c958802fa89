"""Fit the vector formulas of pto_dialect/timing/costs.py to the measured
cycles (pto_dialect/timing/measured_cycles.json) and print them.

    python scripts/fit_costs.py

Per arch and op: fixed + per_repeat * repeats + per_row * rows (costs.repeats),
fitted on the relative error in the L1 sense (iteratively reweighted least
squares: a few odd points do not pull the formula off the rest), every
parameter >= 0. The per-repeat term is always in; the fixed and per-row
terms only when the points have more than one size. Points faster than
the vector unit's 256 bytes a cycle are left out (`physical`). Per element type (per
source and target type for tcvt) a formula of its own is printed where that
type's points are at least three and it raises their median precision by
more than 0.02. The printed dicts are what costs.py holds.
"""

from __future__ import annotations

import statistics
from collections import defaultdict

import numpy as np

from pto_dialect.timing import costs
from pto_dialect.timing.measured import points, precision

PRIOR_FIXED = {"a2a3": 20.0, "a5": 55.0}  # the fixed part when the points cannot tell it (one size only)

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


def median_precision(params: list[float], rows) -> float:
    return statistics.median(precision(params[0] + params[1] * f[1] + params[2] * f[2], y) for f, y in rows)


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
            params = fit(rows, PRIOR_FIXED[arch])
            print(f'    "{op}": VectorFormula({params[0]:.1f}, {params[1]:.3f}, {params[2]:.2f}),  # {len(rows)} points')
            for key in sorted({k for k, _ in tagged}):
                sub = [x for k, x in tagged if k == key]
                if len(sub) < 3:
                    continue
                own = fit(sub, PRIOR_FIXED[arch])
                if median_precision(own, sub) > median_precision(params, sub) + 0.02:
                    special.append((op, key, own, len(sub)))
        print(f"# {arch} by dtype (tcvt: by source and target)")
        for op, key, own, n in special:
            k = f'"{op}", "{key[0]}", "{key[1]}"' if isinstance(key, tuple) else f'"{op}", "{key}"'
            print(f"    ({k}): VectorFormula({own[0]:.1f}, {own[1]:.3f}, {own[2]:.2f}),  # {n} points")


if __name__ == "__main__":
    main()
