"""The pipe timing model on hand-built traces (pto_dialect.timing): the
scheduler, the byte-range dependences and the cost table, with exact cycle
counts worked out by hand."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pto_dialect.dialect.effects import CATALOGUE
from pto_dialect.dialect.ops import ptoas_op_def
from pto_dialect.interpreter.trace import Access, OpShape, TraceEvent, block_accesses
from pto_dialect.timing import COST_TABLES, CostTable, PipeCost, cost_table, format_cycles, format_gain, schedule
from pto_dialect.timing.costs import MACS
from pto_dialect.timing.dependences import ByteTimes, DependenceTracker, byte_runs

# Durations that are easy to add up: every op on a pipe costs `fixed` plus
# one cycle per byte of its largest access (M: per MAC).
UNIT = CostTable(
    "test",
    {
        "MTE2": PipeCost(fixed=10, rate=1),
        "MTE1": PipeCost(fixed=0, rate=1),
        "V": PipeCost(fixed=0, rate=1),
        "M": PipeCost(fixed=0, rate=1, work=MACS),
        "MTE3": PipeCost(fixed=0, rate=1),
    },
)


def event(op: str, reads=(), writes=(), macs: int = 0) -> TraceEvent:
    """A trace event of `op` (its ptoas name, as the interpreter records it)."""
    return TraceEvent(op, CATALOGUE[ptoas_op_def(op).generic_name].pipe.value, "t.pto:1:1", tuple(reads), tuple(writes), 0, macs)


def tile(buffer: str, start: int, nbytes: int, slot: int | None = None) -> Access:
    return Access(buffer, start, start + nbytes, slot=slot)


def spans(s):
    return [(o.op, o.pipe, o.start, o.end) for o in s.ops]


# --- the two-op cases ------------------------------------------------------------------


def test_two_ops_on_different_pipes_without_a_dependence_overlap():
    # V: texp reads vec[0,64), writes vec[64,128): 64 cycles.
    # MTE2: tload writes vec[128,192): 10 + 64 = 74 cycles. Nothing shared: both start at 0.
    trace = [
        event("pto.texp", [tile("vec", 0, 64)], [tile("vec", 64, 64)]),
        event("pto.tload", [Access("%A", 0, 64)], [tile("vec", 128, 64)]),
    ]
    s = schedule(trace, UNIT)
    assert spans(s) == [("pto.texp", "V", 0, 64), ("pto.tload", "MTE2", 0, 74)]
    assert s.cycles == 74
    assert (s.bound, s.bound_pipe) == (74, "MTE2")
    assert s.efficiency == 1.0


def test_write_after_read_makes_the_second_op_wait():
    # The tload now overwrites the bytes the texp reads: it starts when the texp ends.
    trace = [
        event("pto.texp", [tile("vec", 0, 64)], [tile("vec", 64, 64)]),
        event("pto.tload", [Access("%A", 0, 64)], [tile("vec", 0, 64)]),
    ]
    s = schedule(trace, UNIT)
    assert spans(s) == [("pto.texp", "V", 0, 64), ("pto.tload", "MTE2", 64, 138)]
    assert s.cycles == 138
    assert s.bound == 74
    assert s.efficiency == pytest.approx(74 / 138)
    assert s.utilisation("V") == pytest.approx(64 / 138)


def test_read_after_write_and_write_after_write():
    trace = [
        event("pto.tload", [Access("%A", 0, 32)], [tile("vec", 0, 32)]),  # MTE2 0..42
        event("pto.tstore", [tile("vec", 0, 32)], [Access("%B", 0, 32)]),  # RAW: 42..74
        event("pto.tmov", [tile("mat", 0, 32)], [tile("vec", 16, 32)]),  # WAW on vec[16,32) and WAR on [16,32) with the store: 74..106
    ]
    assert spans(schedule(trace, UNIT)) == [
        ("pto.tload", "MTE2", 0, 42),
        ("pto.tstore", "MTE3", 42, 74),
        ("pto.tmov", "MTE1", 74, 106),
    ]


def test_reads_do_not_order_reads():
    trace = [
        event("pto.tload", [Access("%A", 0, 32)], [tile("vec", 0, 32)]),  # 0..42
        event("pto.tstore", [tile("vec", 0, 32)], [Access("%B", 0, 32)]),  # 42..74
        event("pto.texp", [tile("vec", 0, 32)], [tile("vec", 64, 32)]),  # reads the same bytes: 42..74, beside the store
    ]
    s = schedule(trace, UNIT)
    assert spans(s)[2] == ("pto.texp", "V", 42, 74)
    assert s.cycles == 74


def test_buffers_are_separate_address_spaces():
    # Same offsets in different buffers (a private buffer, another space, a GM argument) do not depend.
    trace = [
        event("pto.texp", [tile("vec#1", 0, 64)], [tile("vec#2", 0, 64)]),
        event("pto.tload", [Access("%A", 0, 64)], [tile("vec", 0, 64)]),
        event("pto.tmov", [tile("mat", 0, 64)], [tile("left", 0, 64)]),
    ]
    assert [o.start for o in schedule(trace, UNIT).ops] == [0, 0, 0]


def test_a_pipe_runs_its_ops_in_program_order():
    # Two independent loads share MTE2: the second starts when the first ends.
    trace = [
        event("pto.tload", [Access("%A", 0, 8)], [tile("vec", 0, 8)]),
        event("pto.tload", [Access("%A", 8, 16)], [tile("vec", 32, 8)]),
    ]
    assert spans(schedule(trace, UNIT)) == [("pto.tload", "MTE2", 0, 18), ("pto.tload", "MTE2", 18, 36)]


def test_an_op_waits_for_every_earlier_op_it_depends_on_not_only_the_last():
    # Two partial writes, then a read of both halves: it waits for the later-ending one,
    # even though the last write in program order ends first.
    trace = [
        event("pto.tload", [Access("%A", 0, 100)], [tile("vec", 0, 100)]),  # MTE2 0..110
        event("pto.tmov", [tile("mat", 0, 10)], [tile("vec", 100, 10)]),  # MTE1 0..10
        event("pto.tstore", [tile("vec", 0, 110)], [Access("%B", 0, 110)]),  # waits for 110
    ]
    assert schedule(trace, UNIT).ops[2].start == 110


def test_strided_gm_blocks_depend_only_where_rows_overlap():
    # A 4-row block of a GM matrix with 64-byte rows, 16 bytes wide at column byte 0,
    # and another at column byte 16: interleaved, never overlapping.
    left = Access("%A", 0, 16, rows=4, pitch=64)
    right = Access("%A", 16, 32, rows=4, pitch=64)
    trace = [
        event("pto.tstore", [tile("vec", 0, 64)], [left]),  # 0..64
        event("pto.tload", [right], [tile("vec", 64, 64)]),  # no overlap: 0..74
        event("pto.tload", [Access("%A", 48, 56, rows=2, pitch=64)], [tile("vec", 128, 16)]),  # bytes 48..56, 112..120: none written
        event("pto.tmov", [Access("%A", 64, 72)], [tile("vec", 160, 8)]),  # row 1 of the stored block: RAW, 64
        event("pto.texp", [Access("%A", 80, 96)], [tile("vec", 192, 16)]),  # row 1 beside it: 0
    ]
    s = schedule(trace, UNIT)
    assert [o.start for o in s.ops] == [0, 0, 74, 64, 0]


def test_byte_runs_merge_full_width_rows():
    assert byte_runs(Access("%A", 128, 192, rows=4, pitch=64)) == [(128, 384)]
    assert byte_runs(Access("%A", 0, 16, rows=2, pitch=64)) == [(0, 16), (64, 80)]
    assert byte_runs(Access("vec", 32, 96)) == [(32, 96)]


def test_block_accesses_merge_contiguous_dimensions():
    # a dense 16x8 f32 tile: one run
    assert block_accesses("vec", 64, (16, 8), (32, 4), 4) == (Access("vec", 64, 576),)
    # its valid 4x6 corner: 4 runs of 24 bytes, 32 apart
    assert block_accesses("vec", 64, (4, 6), (32, 4), 4, slot=1) == (Access("vec", 64, 88, 4, 32, slot=1),)
    # col-major (element (r, c) at c * rows + r): the valid 4x6 region is 6 columns of 4
    assert block_accesses("vec", 0, (4, 6), (4, 64), 4) == (Access("vec", 0, 16, 6, 64),)
    # a 2x3x4 block of a 3-D view that cannot merge its outer dims: one access per outer index
    got = block_accesses("%A", 0, (2, 3, 4), (1000, 40, 4), 4)
    assert got == (Access("%A", 0, 16, 3, 40), Access("%A", 1000, 1016, 3, 40))
    # size-1 dimensions and empty blocks
    assert block_accesses("%A", 8, (1, 1, 5), (999, 77, 2), 2) == (Access("%A", 8, 18),)
    assert block_accesses("%A", 8, (3, 0), (16, 4), 4) == ()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 4), st.integers(0, 5)), min_size=1, max_size=4),
    st.sampled_from([1, 2, 4]),
    st.integers(0, 64),
)
def test_block_accesses_cover_exactly_the_bytes_of_the_elements(dims, size, offset):
    shape = tuple(n for n, _ in dims)
    strides = tuple(s * size for _, s in dims)
    expected = set()
    for index in np.ndindex(*shape):
        start = offset + sum(i * s for i, s in zip(index, strides))
        expected.update(range(start, start + size))
    got = set()
    for access in block_accesses("%A", offset, shape, strides, size):
        for lo, hi in access.runs():
            got.update(range(lo, hi))
    assert got == expected


def test_matmul_costs_macs_and_the_slot_is_recorded():
    trace = [
        event("pto.tmatmul", [tile("left", 0, 512), tile("right", 0, 512)], [tile("acc", 0, 1024, slot=1)], macs=4096),
    ]
    s = schedule(trace, UNIT)
    assert spans(s) == [("pto.tmatmul", "M", 0, 4096)]
    assert s.ops[0].slot == 1


def test_an_empty_trace_has_no_cycles_and_no_efficiency():
    s = schedule([], UNIT)
    assert s.cycles == 0 and s.efficiency is None and s.bound == 0
    assert "cycles: 0" in format_cycles(s)


# --- the cost table ----------------------------------------------------------------------


def shaped(op: str, dtype: str, size: int, rows: int, cols: int, row_elems: int | None = None, src="vec", dst="vec", **kw):
    """A trace event of `op` with an OpShape, as the interpreter records it."""
    s = OpShape(dtype, size, rows, cols, row_elems or cols, src, dst, **kw)
    return TraceEvent(op, CATALOGUE[ptoas_op_def(op).generic_name].pipe.value, "t.pto:1:1", (), (), rows * cols, 0, s)


def test_default_table_durations_follow_the_documented_formulas():
    assert cost_table("a3") is cost_table("a2a3") is cost_table("A2")
    a3, a5 = cost_table("a2a3"), cost_table("a5")
    # vector: fixed + per_repeat * repeats (+ per_row * rows); a repeat is 256 bytes of a row
    f = a3.formula("pto.tadd", shaped("pto.tadd", "f32", 4, 64, 64).shape)
    assert a3.duration(shaped("pto.tadd", "f32", 4, 64, 64)) == round(f.fixed + 64 * f.per_repeat + 64 * f.per_row)
    # a 128-byte row is a repeat of its own on a2a3; a5 runs a contiguous tile as one 1-D run
    assert a3.duration(shaped("pto.tadd", "i16", 2, 64, 64)) == a3.duration(shaped("pto.tadd", "i32", 4, 64, 64))
    # (a formula per path: the 1-D run's and the rows')
    g = a5.formula("pto.tadd", shaped("pto.tadd", "f32", 4, 1, 1).shape)
    one, two = g.one_d, g.two_d
    assert a5.duration(shaped("pto.tadd", "i16", 2, 64, 64)) == round(one.fixed + 32 * one.per_repeat)
    assert a5.duration(shaped("pto.tadd", "f32", 4, 2, 128, 160)) == round(two.fixed + 4 * two.per_repeat + 2 * two.per_row)
    # the divider works on f32 lanes: an f16 tdiv takes about as long as an f32 one (a2a3: 304 and 288 measured)
    assert a3.duration(shaped("pto.tdiv", "f16", 2, 64, 64)) == 304
    assert a3.duration(shaped("pto.tdiv", "f32", 4, 64, 64)) == 288
    assert a5.duration(shaped("pto.tdiv", "f16", 2, 64, 64)) == a5.duration(shaped("pto.tdiv", "f32", 4, 64, 64))
    assert a5.duration(shaped("pto.texp", "f16", 2, 2, 128, 160)) > a5.duration(shaped("pto.tadd", "f16", 2, 2, 128, 160))
    # integer tdivs on a2a3 returns at once (measured 4 cycles)
    assert a3.duration(shaped("pto.tdivs", "i32", 4, 31, 128)) == 4
    # the cube: 6 + ceil(M/16) * ceil(K/k0) * ceil(N/16) fractals, two cycles each in f32
    assert a3.duration(shaped("pto.tmatmul", "f16", 2, 40, 60, src="left", dst="acc", k=50)) == 6 + 3 * 4 * 4
    assert a3.duration(shaped("pto.tmatmul", "f32", 4, 120, 50, src="left", dst="acc", k=110)) == 6 + 2 * 8 * 14 * 4
    # a load: 265 cycles per DMA command and 128 bytes a cycle
    assert a3.duration(shaped("pto.tload", "f32", 4, 128, 128, src="gm")) == round(265 + 65536 / 128)
    assert a3.duration(shaped("pto.tload", "f32", 4, 256, 64, src="gm", blocks=8)) == round(8 * (265 + 8192 / 128))
    # a store is faster than a load by arch_config's UB_TO_GM / GM_TO_UB
    store = shaped("pto.tstore", "f32", 4, 128, 128, src="vec", dst="gm")
    assert a3.duration(store) == round(265 + 65536 / (128 * 188.46 / 100.9))


def test_an_event_without_a_shape_is_priced_on_bytes_by_its_pipe():
    a3 = cost_table("a2a3")
    t = 1024
    load = event("pto.tload", [Access("%A", 0, 64, rows=16, pitch=64)], [tile("vec", 0, t)])
    assert a3.duration(load) == a3.pipes["MTE2"].fixed + -(-t // a3.pipes["MTE2"].rate)
    extract = event("pto.textract", [tile("mat", 0, 16384)], [tile("left", 0, 8192)])
    assert a3.duration(extract) == a3.pipes["MTE1"].fixed + -(-8192 // a3.pipes["MTE1"].rate)  # the window it writes
    mm = event("pto.tmatmul.acc", [tile("left", 0, 512)], [tile("acc", 0, 1024)], macs=16 * 16 * 16)
    assert a3.duration(mm) == a3.pipes["M"].fixed + 1


def test_ops_without_measured_points_are_priced_like_their_kind():
    from pto_dialect.timing.costs import _LIKE

    for arch in ("a2a3", "a5"):
        table = cost_table(arch)
        for op in _LIKE:
            if op not in CATALOGUE:  # pto-isa ops our dialect lacks, or holds at the syntax tier only (never timed)
                continue
            ev = shaped(op, "f32", 4, 16, 64)
            assert table.formula(op, ev.shape) is not None, (arch, op)


def test_every_arch_has_a_cost_for_every_pipe():
    from pto_dialect.dialect.targets import ARCHS
    from pto_dialect.timing import PIPE_NAMES

    for arch in ARCHS:
        table = COST_TABLES[arch]
        assert set(table.pipes) == set(PIPE_NAMES)
        assert all(c.rate > 0 and c.fixed >= 0 for c in table.pipes.values())


# --- text ---------------------------------------------------------------------------------


def test_format_cycles_and_gain():
    trace = [
        event("pto.texp", [tile("vec", 0, 64)], [tile("vec", 64, 64)]),
        event("pto.tload", [Access("%A", 0, 64)], [tile("vec", 0, 64)]),
    ]
    text = format_cycles(schedule(trace, UNIT), "after 'p': ")
    assert text.splitlines()[0] == "after 'p': cycles: 138"
    assert "  MTE2     1        74        53.6%" in text
    assert "  lower bound: 74 (MTE2, the busiest pipe)" in text
    assert "  efficiency: 53.6% (lower bound / cycles)" in text
    overlapped = schedule(trace[:1] + [event("pto.tload", [Access("%A", 0, 64)], [tile("vec", 128, 64)])], UNIT)
    assert format_gain(schedule(trace, UNIT), overlapped, "p") == "cycles: 138 -> 74 after 'p' (speedup 1.86x)"


# --- the interval bookkeeping against a brute-force per-byte model --------------------------


class BytewiseTimes:
    """The obvious per-byte version of ByteTimes."""

    def __init__(self, size: int) -> None:
        self.written = np.zeros(size, dtype=np.int64)
        self.touched = np.zeros(size, dtype=np.int64)

    def last_write_end(self, lo, hi):
        return int(self.written[lo:hi].max(initial=0))

    def last_access_end(self, lo, hi):
        return int(self.touched[lo:hi].max(initial=0))

    def read(self, lo, hi, end):
        np.maximum(self.touched[lo:hi], end, out=self.touched[lo:hi])

    def write(self, lo, hi, end):
        self.written[lo:hi] = end
        self.touched[lo:hi] = end


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 60), st.integers(1, 20)), max_size=40))
def test_byte_times_match_a_per_byte_model(accesses):
    fast, slow = ByteTimes(), BytewiseTimes(100)
    end = 0
    for is_write, lo, length in accesses:
        hi = lo + length
        if is_write:
            assert fast.last_access_end(lo, hi) == slow.last_access_end(lo, hi)
            end = max(end, fast.last_access_end(lo, hi)) + 1  # a write ends after all it waited for
            fast.write(lo, hi, end)
            slow.write(lo, hi, end)
        else:
            assert fast.last_write_end(lo, hi) == slow.last_write_end(lo, hi)
            end += 1
            fast.read(lo, hi, end)
            slow.read(lo, hi, end)
        assert fast.starts == sorted(set(fast.starts))  # segments stay well-formed


def test_schedule_matches_all_pairs_dependences_on_random_traces():
    # The reference: an op waits for every earlier op touching an overlapping byte
    # range of the same buffer with at least one write (all pairs, quadratic).
    rng = random.Random(7)
    ops = ["pto.tload", "pto.tstore", "pto.texp", "pto.tmov", "pto.tadd"]
    for _ in range(30):
        trace = []
        for _ in range(40):
            op = rng.choice(ops)

            def acc():
                buf = rng.choice(["vec", "vec#1", "%A"])
                if buf == "%A" and rng.random() < 0.5:
                    return Access(buf, rng.randrange(0, 32), rng.randrange(33, 64), rows=rng.randrange(1, 4), pitch=64)
                lo = rng.randrange(0, 200)
                return Access(buf, lo, lo + rng.randrange(1, 64))

            trace.append(event(op, [acc() for _ in range(rng.randrange(1, 3))], [acc()]))
        got = schedule(trace, UNIT)
        pipe_free: dict[str, int] = {}
        ends: list[int] = []
        for k, e in enumerate(trace):
            ready = pipe_free.get(e.pipe, 0)
            for j in range(k):
                p = trace[j]
                conflict = any(w.overlaps(a) for w in p.writes for a in (*e.reads, *e.writes)) or any(
                    r.overlaps(w) for r in p.reads for w in e.writes
                )
                if conflict:
                    ready = max(ready, ends[j])
            end = ready + UNIT.duration(e)
            ends.append(end)
            pipe_free[e.pipe] = end
            assert (got.ops[k].start, got.ops[k].end) == (ready, end), f"op {k}"


def test_tracker_is_not_quadratic_in_the_trace_length():
    # Many ops over a few buffers keep a few segments each: the bookkeeping
    # grows with the distinct byte boundaries, not with the ops.
    tracker = DependenceTracker()
    for k in range(5000):
        e = event("pto.tload", [Access("%A", (k % 8) * 64, (k % 8) * 64 + 64, rows=16, pitch=512)], [tile("vec", (k % 2) * 1024, 1024)])
        reads, writes = tracker.ranges(e)
        tracker.record(reads, writes, tracker.ready(reads, writes) + 1)
    assert len(tracker.buffers["vec"].starts) <= 3
    assert len(tracker.buffers["%A"].starts) <= 2 * 8 * 16 + 1
