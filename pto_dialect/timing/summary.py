"""A schedule as the text `pto-run --cycles` prints."""

from __future__ import annotations

from .schedule import Schedule


def _percent(fraction: float | None) -> str:
    return "-" if fraction is None else f"{100 * fraction:.1f}%"


def format_cycles(s: Schedule, prefix: str = "") -> str:
    """`cycles: N`, then per pipe its ops, busy cycles and utilisation, the
    lower bound (the busiest pipe) and the efficiency (bound / cycles)."""
    lines = [f"{prefix}cycles: {s.cycles}", "  pipe   ops      busy  utilisation"]
    for u in s.pipes.values():
        lines.append(f"  {u.pipe:<4} {u.ops:>5} {u.busy:>9}  {_percent(s.utilisation(u.pipe)):>11}")
    lines.append(f"  lower bound: {s.bound} ({s.bound_pipe}, the busiest pipe)" if s.cycles else "  lower bound: 0 (no pipe ops executed)")
    lines.append(f"  efficiency: {_percent(s.efficiency)} (lower bound / cycles)")
    return "\n".join(lines)


def format_gain(before: Schedule, after: Schedule, pipeline: str) -> str:
    """One line comparing two schedules of the same function."""
    speedup = f"{before.cycles / after.cycles:.2f}x" if after.cycles else "-"
    return f"cycles: {before.cycles} -> {after.cycles} after '{pipeline}' (speedup {speedup})"
