"""A pipe timing model over the interpreter's execution trace (docs/tools.md, `pto-run`,
`pto-run --cycles --timeline`). A model, not measured hardware.

    from pto_dialect.interpreter import execute
    from pto_dialect.timing import cost_table, schedule
    run = execute(module.operation, "kernel", trace=True)
    s = schedule(run.trace, cost_table(run.arch))
    s.cycles, s.bound, s.efficiency

Modules, one concept each: `costs` (op durations: the per-arch parameter
table), `dependences` (byte-range RAW/WAR/WAW per buffer), `schedule` (ops
placed on pipes), `summary` (the text `--cycles` prints), `timeline` (JSON,
Chrome traces and Gantt charts), `static_schedule` (a loop body's steady
state from the IR alone, without running it: `loop_schedule(loop)`).
"""

from .costs import COST_TABLES, CostTable, PipeCost, cost_table
from .schedule import PIPE_NAMES, PipeUsage, Schedule, ScheduledOp, schedule
from .static_schedule import LoopSchedule, StaticScheduleError, loop_schedule
from .summary import format_cycles, format_gain
from .timeline import TimelineError, TimelineRun, check_timeline_path, chrome_trace, timeline_bytes, timeline_data, write_timeline

__all__ = [
    "COST_TABLES",
    "LoopSchedule",
    "StaticScheduleError",
    "CostTable",
    "PIPE_NAMES",
    "PipeCost",
    "PipeUsage",
    "Schedule",
    "ScheduledOp",
    "TimelineError",
    "TimelineRun",
    "check_timeline_path",
    "chrome_trace",
    "cost_table",
    "format_cycles",
    "format_gain",
    "loop_schedule",
    "schedule",
    "timeline_data",
    "timeline_bytes",
    "write_timeline",
]
