"""Unit tests of pto_dialect.analysis.placement: addresses for one memory space."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pto_dialect.analysis.placement import Request, fixed_collisions, live_peak, place


def overlaps(a: Request, b: Request, addrs: dict[int, int], align: int) -> bool:
    """Both live at some point and their aligned address ranges intersect."""
    def end(r):
        return addrs[r.key] + -(-r.size // align) * align

    in_time = a.start <= b.end and b.start <= a.end
    return in_time and addrs[a.key] < end(b) and addrs[b.key] < end(a)


def test_disjoint_lifetimes_share_address_zero():
    p = place([Request(0, 1024, 0, 3), Request(1, 1024, 4, 6), Request(2, 512, 7, 9)], 32)
    assert p.addrs == {0: 0, 1: 0, 2: 0}
    assert p.footprint == 1024


def test_lifetimes_touching_at_one_point_overlap():
    # Closed intervals: a buffer last used at point 3 and one first live at 3 coexist there.
    p = place([Request(0, 1024, 0, 3), Request(1, 1024, 3, 6)], 32)
    assert p.addrs[0] != p.addrs[1]
    assert p.footprint == 2048


def test_bases_are_aligned_and_sizes_rounded_up():
    p = place([Request(0, 6, 0, 9), Request(1, 6, 0, 9), Request(2, 400, 0, 9)], 512)
    assert sorted(p.addrs.values()) == [0, 512, 1024]
    assert all(a % 512 == 0 for a in p.addrs.values())
    assert p.addrs == {0: 0, 1: 512, 2: 1024}  # same aligned size: in key order
    assert p.footprint == 1024 + 400  # the end of the highest buffer, not rounded up


def test_best_fit_takes_the_smallest_hole_that_fits():
    reqs = [
        Request(0, 128, 0, 5),  # -> 0, freed at 6: hole of 128
        Request(1, 32, 1, 9),  # -> 128
        Request(2, 64, 2, 5),  # -> 160, freed at 6: hole of 64
        Request(3, 32, 3, 9),  # -> 224
        Request(4, 64, 6, 9),  # best fit: the 64-byte hole at 160, not the first hole at 0
    ]
    p = place(reqs, 32)
    assert [p.addrs[k] for k in range(4)] == [0, 128, 160, 224]
    assert p.addrs[4] == 160
    assert p.footprint == 256


def test_freed_neighbours_coalesce():
    reqs = [Request(0, 64, 0, 2), Request(1, 64, 0, 2), Request(2, 64, 0, 9), Request(3, 128, 3, 9)]
    p = place(reqs, 32)
    # 0 and 1 (adjacent) die at 3; 3 needs both of their ranges merged
    assert p.addrs[3] == min(p.addrs[0], p.addrs[1])
    assert p.footprint == 192


def test_reuse_false_gives_every_buffer_its_own_range():
    reqs = [Request(0, 1024, 0, 3), Request(1, 1024, 4, 6), Request(2, 1024, 7, 9)]
    p = place(reqs, 32, reuse=False)
    assert sorted(p.addrs.values()) == [0, 1024, 2048]
    assert p.footprint == 3072


def test_fixed_addresses_are_kept_and_avoided_while_live():
    reqs = [Request(0, 1024, 0, 9, fixed=0), Request(1, 1024, 2, 4)]
    p = place(reqs, 32)
    assert p.addrs == {0: 0, 1: 1024}
    assert p.collisions == []


def test_a_fixed_reservation_starting_later_is_avoided():
    # 1 is placed at point 0, when nothing is live at 0..1024; but the fixed
    # 0 starts at 5 while 1 is still live.
    reqs = [Request(0, 1024, 5, 7, fixed=0), Request(1, 1024, 0, 9), Request(2, 1024, 0, 2)]
    p = place(reqs, 32)
    assert p.addrs[1] >= 1024
    assert p.addrs[2] == 0  # dead before the fixed one starts: may use its range
    assert p.addrs[0] == 0


def test_fixed_reservation_in_the_middle_of_the_top_range():
    reqs = [Request(0, 1024, 0, 9, fixed=4096), Request(1, 1024, 0, 9), Request(2, 4096, 0, 9)]
    p = place(reqs, 32)
    assert p.addrs[0] == 4096
    assert not overlaps(reqs[1], reqs[0], p.addrs, 32)
    assert not overlaps(reqs[2], reqs[0], p.addrs, 32)
    assert not overlaps(reqs[1], reqs[2], p.addrs, 32)


def test_fixed_collisions_only_while_both_live():
    live_together = [Request(0, 1024, 0, 5, fixed=0), Request(1, 1024, 3, 8, fixed=512)]
    assert fixed_collisions(live_together, 32) == [(0, 1)]
    apart_in_time = [Request(0, 1024, 0, 2, fixed=0), Request(1, 1024, 3, 8, fixed=512)]
    assert fixed_collisions(apart_in_time, 32) == []
    apart_in_space = [Request(0, 1024, 0, 5, fixed=0), Request(1, 1024, 0, 5, fixed=1024)]
    assert fixed_collisions(apart_in_space, 32) == []
    p = place(live_together, 32)
    assert p.collisions == [(0, 1)]


def test_user_tiles_within_another_are_views_not_collisions():
    # PyPTO's in-place result and reinterpreting view: same base, live together
    in_place = [Request(0, 1024, 0, 5, fixed=0), Request(1, 1024, 3, 8, fixed=0), Request(2, 32, 4, 9, fixed=0)]
    assert fixed_collisions(in_place, 32) == []
    # row 1 of a 16x16xf32 tile taken as a tile of its own at base + 64 bytes
    row_view = [Request(0, 1024, 0, 5, fixed=0), Request(1, 64, 3, 8, fixed=64)]
    assert fixed_collisions(row_view, 32) == []


def test_collisions_count_from_the_first_use_not_the_allocation():
    # 1 is allocated (point 1) while 0 is live but first touched after 0's last use
    reqs = [Request(0, 1024, 0, 3, fixed=0), Request(1, 1024, 1, 8, fixed=512, first_use=4)]
    assert fixed_collisions(reqs, 32) == []
    # meeting at one op at different bases: that op may overwrite input it has yet to read
    reqs = [Request(0, 1024, 0, 3, fixed=0), Request(1, 1024, 1, 8, fixed=512, first_use=3)]
    assert fixed_collisions(reqs, 32) == [(0, 1)]


def test_a_placed_buffer_keeps_off_bytes_that_aliases_carry_between_them():
    # 0 writes address 0 at points 0-2, its alias 1 reads it at 6-7: a buffer
    # live at 3-5 must not land there although neither alias is live then
    reqs = [Request(0, 1024, 0, 2, fixed=0), Request(1, 64, 6, 7, fixed=0), Request(2, 1024, 3, 5)]
    p = place(reqs, 32)
    assert p.collisions == []
    assert p.addrs[2] == 1024


def test_overlapping_fixed_buffers_keep_their_union_reserved():
    # 0 and 1 overlap on [512, 1024); 0 ends first. While 1 is live, [512,
    # 1536) stays reserved: 2, placed after 0 ends, must not land on it.
    reqs = [
        Request(0, 1024, 0, 3, fixed=0),
        Request(1, 1024, 1, 9, fixed=512),
        Request(2, 1024, 5, 9),
    ]
    p = place(reqs, 32)
    assert p.collisions == [(0, 1)]
    assert not overlaps(reqs[2], reqs[1], p.addrs, 32)
    assert p.addrs[2] == 1536  # nothing of 1024 bytes fits below 512


def test_fixed_collision_names_every_earlier_buffer_it_overlaps():
    reqs = [
        Request(0, 1024, 0, 9, fixed=0),
        Request(1, 2048, 0, 9, fixed=1024),
        Request(2, 2048, 5, 9, fixed=512),  # straddles both
    ]
    assert sorted(fixed_collisions(reqs, 32)) == [(0, 2), (1, 2)]


def test_unaligned_fixed_address_is_rejected():
    with pytest.raises(ValueError, match="not a non-negative multiple of 32"):
        place([Request(0, 64, 0, 1, fixed=16)], 32)


def test_live_peak_is_the_largest_sum_of_live_sizes():
    reqs = [Request(0, 100, 0, 4), Request(1, 64, 2, 6), Request(2, 32, 5, 9)]
    peak = live_peak(reqs, 32)
    assert peak.bytes == 128 + 64  # 0 and 1 live at 2..4, sizes rounded to 32
    assert 2 <= peak.point <= 4
    assert peak.keys == [0, 1]


def test_empty_input():
    p = place([], 32)
    assert p.addrs == {} and p.footprint == 0
    assert live_peak([], 32).bytes == 0


# -- invariants on random inputs ----------------------------------------------


def by_key(reqs: list[Request], key: int) -> Request:
    return next(r for r in reqs if r.key == key)


@st.composite
def request_sets(draw):
    align = draw(st.sampled_from([32, 512]))
    n = draw(st.integers(0, 40))
    reqs = []
    for key in range(n):
        start = draw(st.integers(0, 60))
        end = start + draw(st.integers(0, 20))
        size = draw(st.integers(1, 4096))
        # now and then a fixed address; fixed ones may overlap each other
        fixed = draw(st.integers(0, 16)) * align if draw(st.integers(0, 5)) == 0 else None
        reqs.append(Request(key, size, start, end, fixed))
    return align, reqs, draw(st.booleans())


@settings(max_examples=300, deadline=None)
@given(request_sets())
def test_random_placements_are_sound(case):
    align, reqs, reuse = case
    p = place(reqs, align, reuse=reuse)
    fixed = [r for r in reqs if r.fixed is not None]
    # a user tile within another's range is a view of it (PyPTO's in-place results, reinterpretations, row views)
    def nested(a: Request, b: Request) -> bool:
        lo_a, hi_a, lo_b, hi_b = a.fixed, a.fixed + -(-a.size // align) * align, b.fixed, b.fixed + -(-b.size // align) * align
        return (lo_a <= lo_b and hi_b <= hi_a) or (lo_b <= lo_a and hi_a <= hi_b)

    colliding = any(not nested(a, b) and overlaps(a, b, p.addrs, align) for i, a in enumerate(fixed) for b in fixed[i + 1 :])
    assert bool(p.collisions) == colliding
    for first, second in p.collisions:
        assert overlaps(by_key(reqs, first), by_key(reqs, second), p.addrs, align)
    assert set(p.addrs) == {r.key for r in reqs}
    for r in reqs:
        assert p.addrs[r.key] % align == 0
        if r.fixed is not None:
            assert p.addrs[r.key] == r.fixed
    for i, a in enumerate(reqs):
        for b in reqs[i + 1 :]:
            if a.fixed is not None and b.fixed is not None:
                continue  # the user's choice, checked by fixed_collisions
            if reuse:
                assert not overlaps(a, b, p.addrs, align), (a, b, p.addrs)
            else:
                forever = Request(a.key, a.size, 0, 10**9), Request(b.key, b.size, 0, 10**9)
                assert not overlaps(*forever, p.addrs, align), (a, b, p.addrs)
    assert p.footprint == max((p.addrs[r.key] + r.size for r in reqs), default=0)
