"""pto-allocate-memory-addr: constant slot addresses, with reuse that costs no pipe cycles."""

from __future__ import annotations

import heapq
import sys
from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from ..analysis.liveness import FunctionLiveness, LiveRange, function_liveness
from ..analysis.placement import Placement, Request, live_peak, place
from ..analysis.sharing import PipeAwareSharing, ShareFacts, Tier, share_facts
from ..dialect.allocs import ALLOC_OPS, AllocOperands, alloc_attributes, alloc_operands, create_alloc, has_addr
from ..dialect.annotations import MEMORY_USAGE_ATTR, ArchError, resolve_arch, set_memory_usage
from ..dialect.attributes import generic_value
from ..dialect.scratch import decide, has_rule, with_tmp
from ..dialect.targets import ARCH_NAMES, space_spec
from ..dialect.types import SPACES, MultiTileBufType, TypeBuilder, align_up, buffer_type
from ..pass_infra import ModulePass, PassFailed, PassRun, option
from ..reports.decisions import BufferPlacement, FunctionMemory
from ..reports.memory import FORMATS, render
from ..support import diagnostics
from ..support.diagnostics import location_text
from ..support.ir_utils import constant_int
from ..support.value_names import derived
from ..timing import slot_depth

_MAX_PEAK_NOTES = 8  # buffers named at an overflow; the rest are counted


@dataclass
class _Buffer:
    live: LiveRange
    space: str
    size: int  # bytes; a region: N * stride
    type_text: str
    fixed: int | None
    dynamic: bool = False  # its addr operand is not a constant
    index: int = 0  # its range's position in FunctionLiveness.buffers
    type: ir.Type | None = None  # the alloc's result type
    operands: AllocOperands | None = None  # the alloc's operands
    tmp_for: str = ""  # the op this pass added it for as its level3 tmp (its ptoas name)

    @property
    def alloc(self) -> ir.Operation:
        return self.live.alloc


@dataclass(frozen=True)
class AllocateMemoryAddr(ModulePass):
    """Give every pto buffer a constant address; buffers with disjoint lifetimes share memory.

    Every `pto.alloc_tile` and `pto.alloc_multi_tile` without `addr` gets an
    `arith.constant <addr> : i64` operand: a byte offset into its memory
    space, aligned for the space (32 bytes for vec, mat, bias; 512 for left,
    right, acc). Each function is allocated on its own, per memory space,
    callers before callees: a function's buffers go above every byte its
    callers hold while it runs (their buffers live at a `func.call` of it,
    arguments included), so a tile live across a call is never overlapped
    by the callee's. A tile live across a recursive or indirect call is an
    error at the call (each activation would need its own addresses), as is
    a user's fixed address in the bytes the callers hold.

    A buffer lives from its first write (the first op that touches its
    bytes, through any alias: an alloc, a view or a valid-shape change
    touches none, so a tile PyPTO allocates at the top of the function but
    writes late is not live before) to its last use, through its aliases
    (`multi_tile_get` results are their region; scf.for iter_args and
    results, scf.if results). It lives through a whole loop when it is
    written before the loop and used in it, when it is written in the loop
    and used after it, when it is loop-carried through memory in it (an
    iteration may read what the previous one left), or when it is a
    multi-tile region used in it. Buffers whose lifetimes do not
    overlap may share addresses (`reuse=false` gives each its own range). A
    multi-tile region takes N * stride contiguous bytes, stride = its slot's
    bytes aligned up. Placement is a best-fit sweep over program points,
    each buffer placed by a binary search of its space's free holes (kept
    sorted by address and by size).

    Sharing is pipe-aware (`pipe-aware=true`, the default): a buffer takes
    bytes another one held before only when the dependence that creates
    costs no cycles, because the pipes already order the two (the first
    access of the later one is a write on the pipe that, running in order,
    comes after every access of the earlier one; inside a loop holding
    both, the same the other way round, since the sharing repeats every
    iteration). When a space does not fit that way, the buffers also share
    bytes across pipes where an op then waits once (never inside a loop
    holding both), and if that does not fit either, wherever lifetimes
    allow; a remark on the function says which, with the bytes each needs,
    and the report's `sharing` per space says the same
    (`free`, `once`, `any`). `pipe-aware=false` shares by lifetimes alone
    (the least memory). Sharing never changes results, only when ops may
    start.

    Allocs that already have a constant `addr` keep it, as fixed
    reservations that the other buffers avoid (so running the pass twice
    changes nothing, and a kernel PyPTO planned keeps its plan). Tiles at
    overlapping user addresses are views of the same bytes, as PyPTO's
    planner writes an in-place result or a reinterpretation: the bytes stay
    reserved from the first use of any of them to the last use of any.
    and a tile within another's range is a view of it (PyPTO takes row i at
    base + i * row bytes). Two that overlap while both hold data with
    neither within the other are an error naming both: one overwrites
    the other. An `addr` that is not a constant is an
    error when buffers the pass places in that space are live at the same
    time (nothing could keep them clear of it), else a remark (it is not
    counted in the usage). A space whose buffers need more than its
    capacity is an error on the function naming the space, the bytes
    required and available, and the buffers live at the peak. With
    `degrade=true` (what pto-pipeline runs, so that a kernel that fits
    unpipelined never fails pipelined) the pass first takes slots, one at a
    time, from the multi-tile buffers whose iterations do not depend on each
    other (each used at `x mod N` in the loop that computes x, and
    iteration-local there: fewer slots change when iterations may overlap,
    never what they compute), the one freeing most bytes of the space most
    over first, down to a plain tile; a remark at the loop gives the bytes
    each step frees and the modelled cycles per iteration before and after.
    A callee that would not fit above what its caller holds at the call
    counts as the caller's overflow.

    Ops whose target implementation needs scratch and that ptoas requires
    to carry a `tmp` at level3 (it cannot make one there: the addresses
    are the user's) get one: a new `pto.alloc_tile` right before the op,
    of the type ptoas's pto-materialize-implicit-tmp would make (the op
    table's `level3_tmp` facts, docs/dialect.md "Scratch tiles at level3":
    on a2a3 a row reduction's is like its src, a `tci`'s 1x192xf32, a
    narrowing `tcvt`'s 1xNxi8, ...; a binary `tcolsum` on both arches),
    placed like any buffer. It lives at that op only and shares bytes with
    anything not live there (the tmp of a syntax-only op, like every tile
    such an op touches, for the whole function). An op that has a `tmp`
    keeps it; one whose
    tmp no ptoas verifier would accept (a dynamic valid shape where ptoas
    sizes it from a static one) is a warning. `--verbose` says, per op,
    which tmp it got and why, or why none; the memory report marks each
    such tile (`tmp of pto.trowsum`), `pto.memory_usage` counts it, and an
    overflow names the tmps live at the peak.

    The bytes a `pto.reserve_buffer` holds for a cross-core pipe are kept
    clear for the whole function: at its `base`, or, with `auto = true` and
    no base, placed like a buffer and given that base (ptoas at level3
    needs it, as its planner gives it at level2); a tile at a user address
    over reserved bytes is an error.

    Each function gets `pto.memory_usage = {vec = B : i64, ...}`: per space
    it uses, the bytes from 0 to the end of its highest buffer (a region
    counts its N * stride bytes). The
    placements are in the pass report (`--pto-report`), and `report=text`
    or `report=json` (or `pto-opt --pto-memory-report[=json]`) prints each
    buffer's address range and lifetime.

    Before:

        !t = !pto.tile_buf<vec, 16x16xf32>
        !pv = !pto.partition_tensor_view<16x16xf32>
        func.func @f(%src: !pto.ptr<f32>, %dst: !pto.ptr<f32>) {
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %c16 = arith.constant 16 : index
          %sv = pto.make_tensor_view %src, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf32>
          %dv = pto.make_tensor_view %dst, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf32>
          %in = pto.partition_view %sv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<16x16xf32> -> !pv
          %out = pto.partition_view %dv, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<16x16xf32> -> !pv
          %a = pto.alloc_tile : !t
          pto.tload ins(%in : !pv) outs(%a : !t)
          pto.tstore ins(%a : !t) outs(%out : !pv)
          %b = pto.alloc_tile : !t
          pto.tload ins(%in : !pv) outs(%b : !t)
          pto.texp ins(%b : !t) outs(%b : !t)
          pto.tstore ins(%b : !t) outs(%out : !pv)
          return
        }

    After (%a and %b live apart, but the tload of %b (MTE2) could start
    before the tstore of %a (MTE3) has read it, so pipe-aware sharing keeps
    them apart; with `pipe-aware=false` both are at 0):

        module {
          func.func @f(%src: !pto.ptr<f32, gm>, %dst: !pto.ptr<f32, gm>) attributes {pto.memory_usage = {vec = 2048 : i64}} {
          ...
            %a_addr = arith.constant 0 : i64
            %a = pto.alloc_tile addr = %a_addr : !pto.tile_buf<vec, 16x16xf32>
            ...
            %b_addr = arith.constant 1024 : i64
            %b = pto.alloc_tile addr = %b_addr : !pto.tile_buf<vec, 16x16xf32>
            ...
    """

    name: ClassVar[str] = "pto-allocate-memory-addr"
    dependent_dialects: ClassVar[tuple[str, ...]] = ("arith",)  # the address constants
    records_changes: ClassVar[bool] = True
    arch: str | None = option(None, "target arch for capacities and alignment (default: the module's pto.target_arch, else a2a3)", choices=ARCH_NAMES)
    reuse: bool = option(True, "let buffers whose lifetimes do not overlap share addresses")
    pipe_aware: bool = option(True, "share bytes only where the pipes already order the buffers, unless the space then overflows")
    report: str = option("none", "print the memory report to stderr: none, text or json", choices=("none", *FORMATS))
    degrade: bool = option(False, "when a space overflows, first take slots from iteration-local multi-tile buffers (pto-pipeline sets it)")

    def apply(self, run: PassRun, module: ir.Operation) -> None:
        _Allocation(self).apply(run, module)


class _Allocation:
    """One run of the pass: its options (the frozen pass) and the work, function by function."""

    def __init__(self, options: AllocateMemoryAddr) -> None:
        self.options = options

    def apply(self, run: PassRun, module: ir.Operation) -> None:
        try:
            arch = resolve_arch(module, self.options.arch)
        except ArchError as e:
            diagnostics.emit_error(module.location, str(e))
            raise PassFailed() from None
        ok = True
        functions, strays = _functions_and_strays(module)
        for alloc in strays:
            diagnostics.emit_warning(
                alloc.location,
                f"'{alloc.name}' outside a func.func gets no address: the allocator places the buffers of each function",
            )
        graph = CallGraph.of(functions)
        bases: dict[str, dict[str, int]] = {}  # callee -> per space, the bytes its callers hold across calls to it
        placed: dict[str, FunctionMemory] = {}
        needs: dict[str, dict[str, int]] = {}  # degrade: per callee, the bytes it takes on its own
        for name, func in graph.callers_first():
            memory, func_ok, held = self.allocate_function(run, func, arch, bases.get(name, {}), graph, needs)
            placed[name] = memory
            ok = ok and func_ok
            for callee, heights in held.items():
                base = bases.setdefault(callee, {})
                for space, height in heights.items():
                    base[space] = max(base.get(space, 0), height)
        memories = [placed[n] for n in graph.names]  # reported in module order
        run.report.memory.extend(memories)
        if self.options.report != "none":
            sys.stderr.write(render(memories, self.options.report))
            sys.stderr.flush()
        if not ok:
            raise PassFailed()

    # -- one function -----------------------------------------------------------

    def allocate_function(
        self, run: PassRun, func: ir.Operation, arch: str, base: dict[str, int], graph: CallGraph, needs: dict
    ) -> tuple[FunctionMemory, bool, dict[str, dict[str, int]]]:
        """Place the buffers of `func` above `base` (per space, the bytes its
        callers hold while it runs); rewrite it only when all fit. Returns,
        per function it calls, the bytes held while that call runs."""
        name = ir.StringAttr(func.attributes["sym_name"]).value
        pipe_aware = self.options.reuse and self.options.pipe_aware
        tmps = self._add_level3_tmps(run, func, arch)
        # The degrade loop's last footprint read the function as it now is
        # (nothing changed after it): its liveness is the one placed below.
        last = self._degrade(run, func, arch, base, tmps, graph, needs) if self.options.degrade else None
        liveness = last if last is not None else function_liveness(func, keep_uses=pipe_aware)
        buffers = self._buffers(liveness, arch, tmps)
        held_below = len(buffers)  # the key of the reservation of `base`, in spaces that have one
        reserves = reserved_buffers(func)  # keys held_below + 1 + j
        facts = []  # per buffer, what pipe-aware sharing needs
        if pipe_aware:
            per_range = share_facts(liveness)
            facts = [per_range[b.index] for b in buffers] + [_HELD_BY_CALLERS] * (1 + len(reserves))
        ok = True
        memory = FunctionMemory(function=name, arch=arch)
        placements: dict[str, Placement] = {}
        in_space: dict[str, list[int]] = {}  # space -> its buffers, in order
        for i, b in enumerate(buffers):
            in_space.setdefault(b.space, []).append(i)
        for space in SPACES:
            members = [i for i in in_space.get(space, ()) if not buffers[i].dynamic]
            dynamic = [buffers[i] for i in in_space.get(space, ()) if buffers[i].dynamic]
            if dynamic:
                ok = self._check_dynamic(space, dynamic, [buffers[i] for i in members if buffers[i].fixed is None]) and ok
            if not members and not any(r.space == space for r in reserves):
                continue
            spec = space_spec(arch, space)
            requests, below, placement, tier, first_need = self._place_space(space, members, buffers, liveness, base, facts, arch, reserves)
            if tier is not None:
                memory.sharing[space] = tier.value
                if tier is not Tier.FREE and placement.footprint <= spec.capacity:  # else the overflow error says it all
                    diagnostics.emit_remark(
                        func.location,
                        f"memory space \"{space}\" in @{name}: sharing bytes only where the pipes already order the buffers "
                        f"needs at least {first_need} bytes, more than its {spec.capacity} on {arch}; buffers share bytes "
                        f"{tier.describe()} ({placement.footprint} bytes)",
                    )
            else:
                memory.sharing[space] = Tier.ANY.value if self.options.reuse else "none"
            peak = live_peak(requests, spec.alignment)
            placements[space] = placement
            memory.peak[space] = placement.footprint
            memory.capacity[space] = spec.capacity
            memory.live_peak[space] = peak.bytes
            for first, second in placement.collisions:
                if first < held_below and second < held_below:  # the reservations are checked below
                    ok = False
                    self._report_collision(space, buffers[first], buffers[second])
            for i in members:
                if buffers[i].fixed is not None and buffers[i].fixed < below:
                    ok = False
                    self._report_below(space, buffers[i], below, graph.callers_of(name))
                for r in reserves:  # a reserve's bytes are no tile's, not even a view's
                    b = buffers[i]
                    if r.space == space and r.base is not None and b.fixed is not None and b.fixed < r.base + r.size and r.base < b.fixed + b.size:
                        ok = False
                        self._report_reserved(space, b, r)
            if placement.footprint > spec.capacity:
                ok = False
                at_peak = {k: buffers[k] for k in peak.keys if k < held_below}
                self._report_overflow(func, name, arch, space, placement, peak.bytes, at_peak, spec.capacity, below)
        addrs = {k: a for p in placements.values() for k, a in p.addrs.items() if k < held_below}
        reserved_at = {k - held_below - 1: a for p in placements.values() for k, a in p.addrs.items() if k > held_below}
        if run.buffer_records or self.options.report != "none":  # a record per buffer only for whoever reads them
            records = _Records(liveness)
            memory.buffers = [records.record(b, addrs[i]) for i, b in enumerate(buffers) if i in addrs]
        held = self._held_across_calls(name, liveness, buffers, addrs, base, graph) if ok else {}
        ok = ok and held is not None
        if ok:
            i64 = ir.IntegerType.get_signless(64, func.context)
            attrs: dict[int, ir.Attribute] = {}
            for i, b in enumerate(buffers):
                if b.fixed is None and not b.dynamic:
                    addr = addrs[i]
                    if addr not in attrs:
                        attrs[addr] = ir.IntegerAttr.get(i64, addr)
                    run.changed(_set_addr(b, i64, attrs[addr]))
            set_memory_usage(func, memory.peak)
            for j, r in enumerate(reserves):
                if r.base is None and j in reserved_at:  # auto: where it was placed, as ptoas's planner resolves it
                    r.op.attributes["base"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32, func.context), reserved_at[j])
                    run.changed(r.op)
        return memory, ok, held or {}

    def _held_across_calls(
        self, name: str, liveness: FunctionLiveness, buffers: list[_Buffer], addrs: dict[int, int], base: dict[str, int], graph: CallGraph
    ) -> dict[str, dict[str, int]] | None:
        """Per function @`name` calls, per space, the end of the highest byte
        held while the call runs (its callers' bytes, and every buffer of
        the function live at the call: one the callee gets as an argument
        too), so that the callee's buffers go above. None after an error: a
        tile is live across a recursive call or an indirect one."""
        held: dict[str, dict[str, int]] = {}
        ok = True
        for point in liveness.calls:
            call = liveness.ops[point]
            callee = ir.FlatSymbolRefAttr(call.attributes["callee"]).value if call.name == "func.call" else None
            if callee is not None and callee not in graph.calls:
                continue  # a declaration: it runs no tiles the pass places
            heights = dict(base)
            live = []
            for i, b in enumerate(buffers):
                if b.live.start <= point <= b.live.end and not b.dynamic and i in addrs:
                    heights[b.space] = max(heights.get(b.space, 0), addrs[i] + b.size)
                    live.append(b)
            if callee is None or graph.recursive(name, callee):
                if live:
                    ok = False
                    what = "an indirect call, whose callee is not known" if callee is None else "a call to a function that calls back into this one"
                    diagnostics.emit_error(
                        call.location,
                        f"{len(live)} tile buffer{'s are' if len(live) != 1 else ' is'} live across {what}: the allocator "
                        "cannot keep the callee's tiles off them (each activation would need its own addresses)",
                        notes=[(b.alloc.location, f"live across the call: {b.type_text}") for b in live[:_MAX_PEAK_NOTES]],
                    )
                continue
            mine = held.setdefault(callee, {})
            for space, height in heights.items():
                mine[space] = max(mine.get(space, 0), height)
        return held if ok else None

    def _place_space(
        self, space: str, members: list[int], buffers: list[_Buffer], liveness: FunctionLiveness, base: dict[str, int], facts, arch: str, reserves
    ):
        """The placement of one space's buffers (`members`, indices into
        `buffers`) above what the callers hold (`base`), beside the
        function's `pto.reserve_buffer`s (`reserves`): (requests, the bytes
        reserved below, placement, the sharing tier or None when sharing was
        not pipe-aware, the bytes the FREE tier needs)."""
        spec = space_spec(arch, space)
        requests = [Request(i, buffers[i].size, buffers[i].live.start, buffers[i].live.end, buffers[i].fixed, buffers[i].live.first_use) for i in members]
        below = align_up(base.get(space, 0), spec.alignment)
        last = len(liveness.ops) - 1
        if below:  # what the callers hold across their calls: reserved for the whole function
            requests.append(Request(len(buffers), below, 0, last, 0, 0))
        for j, r in enumerate(reserves):
            if r.space == space:  # a cross-core pipe's bytes: held for the whole function
                requests.append(Request(len(buffers) + 1 + j, align_up(r.size, spec.alignment), 0, last, r.base, 0))
        if self.options.reuse and self.options.pipe_aware and any(buffers[i].fixed is None for i in members):
            placement, tier, first_need = self._place_pipe_aware(requests, spec.alignment, spec.capacity, facts)
            return requests, below, placement, tier, first_need
        return requests, below, place(requests, spec.alignment, self.options.reuse), None, 0

    def _footprint(self, func: ir.Operation, arch: str, base: dict[str, int], tmps=None) -> tuple:
        """A placement of `func` without changing it or saying anything:
        (liveness, buffers, per space its placement)."""
        pipe_aware = self.options.reuse and self.options.pipe_aware
        liveness = function_liveness(func, keep_uses=pipe_aware)
        buffers = self._buffers(liveness, arch, tmps)
        reserves = reserved_buffers(func)
        facts = []
        if pipe_aware:
            per_range = share_facts(liveness)
            facts = [per_range[b.index] for b in buffers] + [_HELD_BY_CALLERS] * (1 + len(reserves))
        placements = {}
        for space in SPACES:
            members = [i for i, b in enumerate(buffers) if b.space == space and not b.dynamic]
            if members or any(r.space == space for r in reserves):
                placements[space] = self._place_space(space, members, buffers, liveness, base, facts, arch, reserves)[2]
        return liveness, buffers, placements

    def _degrade(
        self, run: PassRun, func: ir.Operation, arch: str, base: dict[str, int], tmps: dict[ir.Operation, str], graph: CallGraph, needs: dict
    ) -> FunctionLiveness:
        """Lower the slot count of the iteration-local multi-tile regions of
        `func` (docs/passes.md, `degrade`) while a space overflows, here or
        in a function it calls above what it holds at the call (`needs`
        caches what each callee takes on its own): each step takes one slot
        from the region that frees the most bytes of the space most over,
        and says so at its loop. Returns the liveness of `func` as it is
        left (read after the last step), for the placement to reuse."""
        name = ir.StringAttr(func.attributes["sym_name"]).value
        tried: set = set()
        while True:
            liveness, buffers, placements = self._footprint(func, arch, base, tmps)
            over: dict[str, int] = {}
            at: dict[str, int] = {}  # where a space is over: a call's point, -1 everywhere
            for space, placement in placements.items():
                if placement.footprint > space_spec(arch, space).capacity:
                    over[space], at[space] = placement.footprint, -1
            for point in liveness.calls:
                call = liveness.ops[point]
                callee = ir.FlatSymbolRefAttr(call.attributes["callee"]).value if call.name == "func.call" else None
                if callee is None or callee not in graph.calls or graph.recursive(name, callee):
                    continue
                if callee not in needs:
                    needs[callee] = {s: p.footprint for s, p in self._footprint(graph.functions[callee], arch, {})[2].items()}
                for space, need in needs[callee].items():
                    placement = placements.get(space)
                    height = base.get(space, 0)
                    if placement is not None:
                        for i, b in enumerate(buffers):
                            if b.space == space and b.live.start <= point <= b.live.end and i in placement.addrs:
                                height = max(height, placement.addrs[i] + b.size)
                    total = height + need
                    if total > space_spec(arch, space).capacity and total > over.get(space, 0):
                        over[space], at[space] = total, point
            if not over:
                return liveness
            candidates = [
                b
                for b in buffers
                if b.space in over
                and b.fixed is None
                and isinstance(buffer_type(b.type), MultiTileBufType)
                and (at[b.space] < 0 or b.live.start <= at[b.space] <= b.live.end)
            ]
            step = None
            for b in sorted(candidates, key=lambda b: (-over[b.space], -b.size // buffer_type(b.type).count)):
                if b.alloc in tried:
                    continue
                step = slot_depth.lower_by_one(b.alloc, space_spec(arch, b.space).alignment)
                if step is not None:
                    break
                tried.add(b.alloc)
            if step is None:
                return liveness  # nothing more to lower: the overflow error follows
            capacity = space_spec(arch, step.space).capacity
            text = (
                f"pipeline loop's multi-tile buffer of {step.slot_type} lowered from {step.before} to {step.after} "
                f"slot{'s' if step.after != 1 else ''}: \"{step.space}\" in @{name} needed {over[step.space]} bytes, more than its "
                f"{capacity} on {arch}; this frees {step.freed} bytes{step.cycles_text}"
            )
            diagnostics.emit_remark(step.loop.location, text)
            run.report.degraded.append(text)

    @staticmethod
    def _place_pipe_aware(requests: list[Request], alignment: int, capacity: int, facts) -> tuple[Placement, Tier, int]:
        """The placement of the cheapest sharing tier that fits (docs/passes.md,
        pipe-aware reuse), its tier, and (at least) the bytes the FREE tier needs."""
        # Under FREE, a buffer whose first pipe is no buffer's release pipe
        # only ever gets bytes nobody used: their sum bounds the footprint
        # from below, and when it is past the capacity FREE is not tried.
        releases = {facts[r.key].release_pipe for r in requests} - {None}
        first_need = sum(align_up(max(r.size, 1), alignment) for r in requests if r.fixed is None and facts[r.key].first_pipe not in releases)
        for tier in Tier:
            if tier is Tier.FREE and first_need > capacity:
                continue
            sharing = None if tier is Tier.ANY else PipeAwareSharing(facts, tier)
            placement = place(requests, alignment, True, sharing)
            if tier is Tier.FREE:
                first_need = placement.footprint
            if placement.footprint <= capacity:
                break
        return placement, tier, first_need

    def _add_level3_tmps(self, run: PassRun, func: ir.Operation, arch: str) -> dict[ir.Operation, str]:
        """Give every op of `func` that ptoas requires a `tmp` of at level3
        on `arch` and has none a new `pto.alloc_tile` right before it
        (docs/dialect.md, "Scratch tiles at level3"), placed below like any
        buffer: it lives at that op only. Returns the new allocs, each with
        the (ptoas) name of its op. An op whose tmp cannot be built is a
        warning: ptoas will reject it."""
        decisions = []

        def visit(op: ir.Operation) -> ir.WalkResult:
            if has_rule(op.name):
                decision = decide(op, arch)
                if decision is not None:
                    decisions.append(decision)
            return ir.WalkResult.ADVANCE

        func.walk(visit, ir.WalkOrder.PRE_ORDER)  # every decision first: the rewrite erases ops
        added: dict[ir.Operation, str] = {}
        types = TypeBuilder(func.context) if decisions else None
        for d in decisions:
            if not d.needed:
                if run.verbose:
                    diagnostics.emit_remark(d.op.location, f"'{d.op_name}' gets no tmp: {d.why}")
                continue
            if d.tile is None:
                diagnostics.emit_warning(
                    d.op.location,
                    f"{d.rule_text()}, and none can be given: {d.why}; ptoas --pto-level=level3 rejects this op",
                )
                continue
            loc = d.op.location
            alloc = create_alloc("pto.alloc_tile", types.get(d.tile), AllocOperands(), loc=derived(loc, "_tmp"), ip=ir.InsertionPoint(d.op))
            rule = d.rule_text()
            run.changed(with_tmp(d.op, alloc.result))  # (the alloc is rebuilt with its addr below, and recorded then)
            added[alloc] = d.op_name
            if run.verbose:
                diagnostics.emit_remark(loc, f"'{d.op_name}' gets a tmp, {d.tile.ptoas()} ({d.tile.nbytes} bytes): {rule}")
        return added

    def _buffers(self, liveness: FunctionLiveness, arch: str, tmps: dict[ir.Operation, str] | None = None) -> list[_Buffer]:
        buffers: list[_Buffer] = []
        # Printing a type is what reading it costs; types are uniqued, so once
        # each (and with it the space and size, which depend on the type alone).
        views: dict[ir.Type, tuple] = {}
        for index, live in enumerate(liveness.buffers):
            alloc = live.alloc
            ty = alloc.results[0].type
            known = views.get(ty)
            if known is None:
                known = views[ty] = _type_facts(ty, arch)
            view, type_text, size = known
            if view is None or view.loc not in SPACES:  # the verifier reports malformed types
                continue
            operands = alloc_operands(alloc)
            addr = operands.addr
            fixed = constant_int(addr) if addr is not None else None
            dynamic = addr is not None and fixed is None
            tmp_for = tmps.get(alloc, "") if tmps else ""
            buffers.append(_Buffer(live, view.loc, size, type_text, fixed, dynamic, index, ty, operands, tmp_for))
        return buffers

    # -- errors -------------------------------------------------------------------

    def _report_collision(self, space: str, first: _Buffer, second: _Buffer) -> None:
        # An error (issue 7): a straddling pair clobbers data. Nested ranges are
        # views and never get here (docs/passes.md, `pto-allocate-memory-addr`).
        diagnostics.emit_error(
            second.alloc.location,
            f"buffer at fixed addr {second.fixed} ({second.size} bytes) overlaps the buffer at fixed "
            f"addr {first.fixed} ({first.size} bytes) in space \"{space}\" while both hold data: "
            "neither lies within the other, so one overwrites the other",
            notes=[(first.alloc.location, f"the other buffer, {first.type_text}, is allocated here")],
        )

    def _report_reserved(self, space: str, b: _Buffer, r: Reserved) -> None:
        diagnostics.emit_error(
            b.alloc.location,
            f"buffer at fixed addr {b.fixed} ({b.size} bytes) overlaps the bytes [{r.base}, {r.base + r.size}) of space \"{space}\" "
            f"that a pto.reserve_buffer holds for the whole function",
            notes=[(r.op.location, "reserved here")],
        )

    def _report_below(self, space: str, b: _Buffer, below: int, callers: list[str]) -> None:
        diagnostics.emit_error(
            b.alloc.location,
            f"buffer at fixed addr {b.fixed} ({b.size} bytes) lies in the first {below} bytes of space \"{space}\", which "
            "a caller holds while this function runs (its tiles live across the call)",
            notes=[(b.alloc.location, f"called by @{', @'.join(callers)}")],
        )

    def _check_dynamic(self, space: str, dynamic: list[_Buffer], to_place: list[_Buffer]) -> bool:
        """Buffers at addresses that are not constants: fine while nothing the
        pass places is live with them (they are left out of the usage), an
        error otherwise (nothing could keep the placed buffers clear)."""
        ok = True
        for d in dynamic:
            clash = next(
                (b for b in to_place if not self.options.reuse or (b.live.start <= d.live.end and d.live.start <= b.live.end)),
                None,
            )
            if clash is None:
                diagnostics.emit_remark(
                    d.alloc.location,
                    f"'{d.alloc.name}' has an addr that is not a constant: not counted in {MEMORY_USAGE_ATTR}",
                )
                continue
            ok = False
            diagnostics.emit_error(
                d.alloc.location,
                f"'{d.alloc.name}' has an addr that is not a constant, and buffers to place in space "
                f"\"{space}\" are live at the same time; the allocator cannot keep them clear of an "
                "address it does not know",
                notes=[(clash.alloc.location, f"this buffer, {clash.type_text}, is live at the same time")],
            )
        return ok

    def _report_overflow(
        self,
        func: ir.Operation,
        name: str,
        arch: str,
        space: str,
        placement: Placement,
        live_bytes: int,
        at_peak: dict[int, _Buffer],
        capacity: int,
        below: int = 0,
    ) -> None:
        if live_bytes > capacity:
            why = "more than the space holds"
        elif not self.options.reuse:
            why = "with reuse=false no two buffers share memory"
        else:
            why = "the rest is lost to fragmentation or fixed addresses"
        shown = sorted(at_peak, key=lambda k: (-at_peak[k].size, k))[:_MAX_PEAK_NOTES]
        notes = []
        for k in shown:
            b, addr = at_peak[k], placement.addrs[k]
            what = f"the tmp this pass added for '{b.tmp_for}' (ptoas requires one at level3), " if b.tmp_for else ""
            notes.append((b.alloc.location, f"live at the peak: {what}{b.type_text}, {b.size} bytes at [{addr}, {addr + b.size})"))
        more = len(at_peak) - len(shown)
        tmps = [b for b in at_peak.values() if b.tmp_for]
        tmp_bytes = sum(b.size for b in tmps)
        diagnostics.emit_error(
            func.location,
            f"memory space \"{space}\" overflows in @{name}: {placement.footprint} bytes required, "
            f"{capacity} bytes available on {arch}; {live_bytes} bytes are live at once at the peak "
            f"({why}), in {len(at_peak)} buffer{'s' if len(at_peak) != 1 else ''}"
            + (f" ({len(shown)} shown below, {more} more)" if more else "")
            + (
                f"; {tmp_bytes} of them in {len(tmps)} tmp{'s' if len(tmps) != 1 else ''} this pass added for ops "
                "ptoas requires a tmp of at level3"
                if tmps
                else ""
            )
            + (f"; its callers hold the first {below} bytes while it runs" if below else ""),
            notes=notes,
        )


def _type_facts(ty: ir.Type, arch: str) -> tuple:
    """(view, text, bytes) of a buffer type: its `buffer_type` view (None
    when malformed), its ptoas spelling, and the bytes a buffer of it takes
    (a region: N * stride, the stride aligned for its space)."""
    view = buffer_type(ty)
    if view is None:
        return None, str(ty), 0
    if view.loc not in SPACES:
        return view, view.ptoas(), 0
    if isinstance(view, MultiTileBufType):
        size = view.region_bytes(space_spec(arch, view.loc).alignment)
    else:
        size = view.nbytes
    return view, view.ptoas(), size


class _Records:
    """The report's record of each placed buffer. A location costs several
    binding calls to read, and buffers share them (a range often starts at
    its alloc; the buffers of one loop end at its last op and live through
    it), so each op's and each loop's text is read once."""

    def __init__(self, liveness: FunctionLiveness) -> None:
        self.liveness = liveness
        self.at_point: dict[int, str] = {}  # program point -> its op's location text
        self.loop_names: dict[int, str] = {}  # loop index -> "the <op> at <location>"

    def location(self, point: int) -> str:
        text = self.at_point.get(point)
        if text is None:
            text = self.at_point[point] = location_text(self.liveness.ops[point].location)
        return text

    def loop(self, index: int) -> str:
        text = self.loop_names.get(index)
        if text is None:
            op = self.liveness.loops[index].op
            text = self.loop_names[index] = f"the {op.name} at {location_text(op.location)}"
        return text

    def record(self, b: _Buffer, addr: int) -> BufferPlacement:
        live = b.live
        return BufferPlacement(
            location=self.location(self.liveness.point_of(b.alloc)),
            space=b.space,
            type=b.type_text,
            addr=addr,
            size=b.size,
            first=live.start,
            last=live.end,
            fixed=b.fixed is not None,
            first_at=self.location(live.start),
            last_at=self.location(live.end),
            whole_loops=[f"{self.loop(i)}: {why}" for i, why in sorted(live.whole_loops.items())]
            + ([f"the whole function: {live.whole_function}"] if live.whole_function else []),
            tmp_for=b.tmp_for,
        )


_HELD_BY_CALLERS = ShareFacts(None, None, -1)
"""The sharing facts of the bytes a function's callers hold: never freed."""


@dataclass
class CallGraph:
    """Which functions of the module call which (by symbol: `func.call`),
    and the order the allocator places them in: callers before callees, so
    that a callee's buffers go above what its callers hold across a call."""

    names: list[str]  # the functions with a body, in module order
    functions: dict[str, ir.Operation]
    calls: dict[str, list[str | None]]  # per function, the functions it calls (None: an indirect call)
    component: dict[str, int]  # per function, its strongly connected component, numbered callers first

    @classmethod
    def of(cls, functions: list[ir.Operation]) -> CallGraph:
        names = [ir.StringAttr(f.attributes["sym_name"]).value for f in functions]
        calls: dict[str, list] = {}
        for name, func in zip(names, functions):
            found: list = []

            def visit(op: ir.Operation, found=found) -> ir.WalkResult:
                if op.name == "func.call":
                    found.append(ir.FlatSymbolRefAttr(op.attributes["callee"]).value)
                elif op.name == "func.call_indirect":
                    found.append(None)
                return ir.WalkResult.ADVANCE

            func.walk(visit, ir.WalkOrder.PRE_ORDER)
            calls[name] = found
        known = set(names)
        for name in names:  # a declaration runs no tiles the pass places
            calls[name] = [c for c in calls[name] if c is None or c in known]
        return cls(names, dict(zip(names, functions)), calls, _components(names, calls))

    def recursive(self, caller: str, callee: str) -> bool:
        return self.component[caller] == self.component[callee]

    def callers_of(self, name: str) -> list[str]:
        return [f for f in self.names if name in self.calls[f]]

    def callers_first(self) -> list[tuple[str, ir.Operation]]:
        """The functions, every caller before its callees (the functions of
        a recursive cycle in module order among themselves)."""
        order = sorted(range(len(self.names)), key=lambda i: (self.component[self.names[i]], i))
        return [(self.names[i], self.functions[self.names[i]]) for i in order]


def _components(names: list[str], calls: dict[str, list[str | None]]) -> dict[str, int]:
    """Tarjan's strongly connected components (iterative: call chains are the
    user's), numbered callers first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []

    def callees(name: str):
        return iter([c for c in calls[name] if c is not None])

    for root in names:
        if root in index:
            continue
        work = [(root, callees(root))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, pending = work[-1]
            for callee in pending:
                if callee not in index:
                    index[callee] = low[callee] = len(index)
                    stack.append(callee)
                    on_stack.add(callee)
                    work.append((callee, callees(callee)))
                    break
                if callee in on_stack:
                    low[node] = min(low[node], index[callee])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    members = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        members.append(member)
                        if member == node:
                            break
                    found.append(members)
    # Number the components callers first (Kahn's order over the condensation),
    # ties in module order, so that the functions are placed, and report, in
    # the order a reader expects.
    of = {f: n for n, members in enumerate(found) for f in members}
    position = {f: i for i, f in enumerate(names)}
    first = [min(position[f] for f in members) for members in found]
    edges: list[set[int]] = [set() for _ in found]
    waiting = [0] * len(found)
    for f in names:
        for c in calls[f]:
            if c is not None and of[c] != of[f] and of[c] not in edges[of[f]]:
                edges[of[f]].add(of[c])
                waiting[of[c]] += 1
    ready = [(first[n], n) for n in range(len(found)) if not waiting[n]]
    heapq.heapify(ready)
    number: dict[int, int] = {}
    while ready:
        _, n = heapq.heappop(ready)
        number[n] = len(number)
        for c in edges[n]:
            waiting[c] -= 1
            if not waiting[c]:
                heapq.heappush(ready, (first[c], c))
    return {f: number[of[f]] for f in names}


@dataclass(frozen=True)
class Reserved:
    """A `pto.reserve_buffer` of the function: bytes of a space a cross-core
    pipe holds for the whole function, at `base` (None: `auto = true`
    without one, which the pass places and resolves, as ptoas's planner
    does; ptoas at level3 needs the base)."""

    op: ir.Operation
    space: str
    size: int
    base: int | None


def reserved_buffers(func: ir.Operation) -> list[Reserved]:
    found: list[Reserved] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "pto.reserve_buffer":
            attrs = op.attributes
            location = generic_value(str(attrs["location"])) if "location" in attrs else None
            if location is not None and location[1] in SPACES and "size" in attrs:
                base = ir.IntegerAttr(attrs["base"]).value if "base" in attrs else None
                found.append(Reserved(op, location[1], ir.IntegerAttr(attrs["size"]).value, base))
        return ir.WalkResult.ADVANCE

    func.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def _functions_and_strays(module: ir.Operation) -> tuple[list[ir.Operation], list[ir.Operation]]:
    """The functions with a body, and allocs without addr outside any function
    (collected before any rewrite: the allocs are replaced later)."""
    functions: list[ir.Operation] = []
    strays: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        name = op.name
        if name == "func.func":
            if len(op.regions[0].blocks):
                functions.append(op)
            return ir.WalkResult.SKIP
        if name in ALLOC_OPS and not has_addr(op):
            strays.append(op)
        return ir.WalkResult.ADVANCE

    module.walk(visit, ir.WalkOrder.PRE_ORDER)
    return functions, strays


def _set_addr(b: _Buffer, i64: ir.Type, addr: ir.Attribute) -> ir.Operation:
    """Rebuild the alloc of `b` with a constant `addr` operand (inserted
    right before it), keeping its valid-shape operands and attributes
    (its type and operands as `_buffers` read them)."""
    alloc = b.alloc
    ip = ir.InsertionPoint(alloc)
    loc = alloc.location
    const = ir.Operation.create("arith.constant", results=[i64], attributes={"value": addr}, loc=derived(loc, "_addr"), ip=ip)
    operands = b.operands.with_addr(const.result)
    new = create_alloc(alloc.name, b.type, operands, loc=loc, ip=ip, attributes=alloc_attributes(alloc))
    alloc.results[0].replace_all_uses_with(new.results[0])
    alloc.erase()
    return new
