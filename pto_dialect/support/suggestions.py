""""Did you mean" for a mistyped name (a pass, a pass option, a flag), as
clang and MLIR's own option parser offer it."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """`; did you mean 'X'?` for the closest candidate, or '' when none is
    close (difflib's ratio of at least 0.75)."""
    names = sorted(set(candidates))
    found = difflib.get_close_matches(word, names, n=1, cutoff=0.75)
    return f"; did you mean '{found[0]}'?" if found else ""
