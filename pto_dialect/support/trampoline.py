"""Recursion without the Python stack, for walks whose depth is the user's
(loops nested as deep as the parser allows).

A recursive walk is written as a generator that, where it would call
itself, yields the generator of the nested call and receives its result:

    def visit(self, block):
        for op in block.operations:
            for region in op.regions:
                seen = yield self.visit(region.blocks[0])   # was: self.visit(...)
        return ...

and `run(visit(top))` drives it with an explicit stack.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

Nested = Generator["Nested", Any, Any]


def run(walk: Nested) -> Any:
    """The result of `walk`, with every nested call it yields run in turn."""
    stack = [walk]
    value = None
    while stack:
        try:
            nested = stack[-1].send(value)
        except StopIteration as done:
            stack.pop()
            value = done.value
            continue
        stack.append(nested)
        value = None
    return value
