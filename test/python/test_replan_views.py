"""How replan writes a tile inside another one's bytes (pto_dialect/analysis/replan.py,
`_view_of`): the same type is the buffer itself, the same bytes of another
type a treshape, a window of rows or columns of the buffer's own type a
subview; anything else is said to be impossible, with why."""

from __future__ import annotations

import pytest

from pto_dialect.analysis.replan import Member, _view_of
from pto_dialect.dialect.types import TileBufType


def member(tile: TileBufType, addr: int) -> Member:
    return Member(None, None, tile, addr, 0, 0)


ROOT = TileBufType("vec", 16, 64, "f32")  # rows of 256 bytes
COLUMNS = TileBufType("vec", 16, 8, "f32", blayout="col_major")  # columns of 64 bytes


@pytest.mark.parametrize(
    "tile, addr, kind, window",
    [
        (ROOT, 1024, "same", None),
        (TileBufType("vec", 32, 64, "bf16"), 1024, "treshape", None),  # the same 4096 bytes as bf16
        (TileBufType("vec", 1, 64, "f32"), 1024 + 3 * 256, "subview", (3, 0, 1, 64)),  # row 3
        (TileBufType("vec", 4, 64, "f32"), 1024 + 8 * 256, "subview", (8, 0, 4, 64)),  # rows 8-11
        (TileBufType("vec", 1, 16, "f32"), 1024 + 2 * 256 + 64, "subview", (2, 16, 1, 16)),  # part of row 2
    ],
)
def test_views_of_a_row_major_tile(tile, addr, kind, window):
    view, why = _view_of(member(ROOT, 1024), member(tile, addr))
    assert view is not None, why
    assert view.kind == kind
    if window is not None:
        assert (view.row, view.col, view.rows, view.cols) == window


def test_a_column_of_a_column_major_tile_is_a_subview():
    view, why = _view_of(member(COLUMNS, 0), member(TileBufType("vec", 16, 1, "f32", blayout="col_major"), 5 * 64))
    assert view is not None, why
    assert (view.kind, view.row, view.col, view.rows, view.cols) == ("subview", 0, 5, 16, 1)


@pytest.mark.parametrize(
    "tile, addr, words",
    [
        (TileBufType("vec", 2, 64, "f32"), 1024 + 128, "not whole rows"),  # from the middle of a row into the next
        (TileBufType("vec", 16, 1, "f32", blayout="col_major"), 1024 + 256, "ptoas rejects a treshape of a subview"),  # a row as a column
        (TileBufType("vec", 1, 32, "bf16"), 1024, "not the window"),  # another element type at the same start
    ],
)
def test_what_no_view_can_be(tile, addr, words):
    view, why = _view_of(member(ROOT, 1024), member(tile, addr))
    assert view is None
    assert words in why


def test_boxed_tiles_have_no_windows():
    boxed = TileBufType("mat", 32, 32, "f16", blayout="col_major", slayout="row_major")
    view, why = _view_of(member(boxed, 0), member(TileBufType("mat", 16, 32, "f16", blayout="col_major", slayout="row_major"), 0))
    assert view is None and "boxed" in why
