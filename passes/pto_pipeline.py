"""pto-pipeline: the switch between ptoas multi-buffering and replication."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import ClassVar

from ..dialect.targets import ARCH_NAMES
from ..dialect.types import SPACES
from ..pass_infra import ModulePass, OptionError, option
from ..reports.decisions import SwitchDecision
from ..syntax.pass_pipeline import parse_bool
from . import get_pass_class

ENV_SWITCH = "PTO_PTOAS_MULTI_BUFFER"


def resolve_switch(option_value: bool | None, settings) -> SwitchDecision:
    """use-ptoas-multi-buffer: the pass option, else the flag or Python
    keyword (in the pipeline's `settings`), else the environment, else off
    (docs/passes.md, `pto-pipeline`)."""
    if option_value is not None:
        return SwitchDecision(option_value, "the pto-pipeline option use-ptoas-multi-buffer")
    if settings.use_ptoas_multi_buffer is not None:
        return SwitchDecision(settings.use_ptoas_multi_buffer, settings.use_ptoas_multi_buffer_source or "the caller")
    raw = os.environ.get(ENV_SWITCH)
    if raw is not None and raw.strip():
        try:
            return SwitchDecision(parse_bool(raw), f"the environment ({ENV_SWITCH}={raw})")
        except OptionError as e:
            raise OptionError(f"{ENV_SWITCH}: {e}") from None
    return SwitchDecision(False, "the default (off)")


@dataclass(frozen=True)
class PtoPipeline(ModulePass):
    """Lower pipeline loops either way: ptoas multi-buffering or replication.

    Runs, in order: `convert-to-ptoas-multi-buffer` (only when the switch is
    on, with this pass's `slots`, `spaces` and `normalize-loops`),
    `pto-lower-pipeline-loops`, then
    `pto-allocate-memory-addr` (only when `allocate=true`), each with this
    pass's `arch`. With the switch on,
    converted loops are at `pto.pipeline_stages = 1`, so only the loops the
    conversion declined are replicated; with it off, every pipeline loop is.

    With `replan=true`, PyPTO's constant tile addresses are dropped first,
    keeping its aliases as views (`pto-replan`): with the switch on, by
    the conversion's `replan`, with it off, by `pto-replan` before the
    replication, so both paths plan the kernel again.

    The switch resolves as: the `use-ptoas-multi-buffer` option if given,
    else `pto-opt --use-ptoas-multi-buffer[=bool]` or the Python keyword
    `use_ptoas_multi_buffer=`, else the environment variable
    `PTO_PTOAS_MULTI_BUFFER` (1/true/yes/on, 0/false/no/off), else off. The
    value and where it came from are in the pass report, and `pto-opt
    --verbose` prints them as a remark.

    The sub-passes are scheduled in this pass's place, so
    `--mlir-print-ir-after-all` and `--mlir-timing` show each of them, and
    every option reaches them however the pipeline is run.

    Example: `pto-opt --pto-pipeline --use-ptoas-multi-buffer` on a loop

        scf.for %i = ... { %t = "pto.alloc_tile"() ... } {pto.pipeline_stages = 2 : i64}

    gives a 2-slot `pto.alloc_multi_tile` at a constant address before the
    loop and `pto.multi_tile_get %mb[%slot]` in it; without the switch, the
    loop body is replicated twice, each copy's tile at its own address.
    """

    name: ClassVar[str] = "pto-pipeline"
    use_ptoas_multi_buffer: bool | None = option(
        None, "convert pipeline loops to ptoas multi-buffer form (default: flag, then $PTO_PTOAS_MULTI_BUFFER, then off)"
    )
    arch: str | None = option(None, "target arch for every sub-pass (default: the module's pto.target_arch, else a2a3)", choices=ARCH_NAMES)
    allocate: bool = option(True, "assign slot addresses (pto-allocate-memory-addr) at the end")
    slots: str = option(
        "uniform", "the conversion's slots option: uniform (N slots per tile) or model (each tile its own count)", choices=("uniform", "model")
    )
    spaces: tuple[str, ...] = option(("vec", "mat"), "the conversion's spaces option: memory spaces whose tiles are multi-buffered", choices=SPACES)
    normalize_loops: bool = option(False, "the conversion's normalize-loops option: loops to lb = 0, step = 1 first")
    replan: bool = option(False, "first drop the constant addresses PyPTO planned, keeping its aliases as views (also with the switch off)")

    def expand(self, pipeline) -> list[ModulePass]:
        switch = resolve_switch(self.use_ptoas_multi_buffer, pipeline.settings)
        pipeline.report.switch.append(switch)
        if pipeline.settings.verbose:
            state = "on" if switch.value else "off"
            pipeline.announce(f"pto-pipeline: use-ptoas-multi-buffer is {state}, from {switch.source}")
        passes: list[ModulePass] = []
        if switch.value:
            conversion = get_pass_class("convert-to-ptoas-multi-buffer")
            passes.append(conversion(arch=self.arch, slots=self.slots, spaces=self.spaces, normalize_loops=self.normalize_loops, replan=self.replan))
        elif self.replan:
            passes.append(get_pass_class("pto-replan")())
        passes.append(get_pass_class("pto-lower-pipeline-loops")(arch=self.arch))
        if self.allocate:
            passes.append(get_pass_class("pto-allocate-memory-addr")(arch=self.arch, degrade=True))
        return passes
