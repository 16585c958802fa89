"""Differential testing: a kernel must compute the same bits before and
after a pass pipeline.

`check_kernel` parses a kernel once, executes it (the reference), then for
each pipeline runs the pipeline on a copy, executes the copy on the same
seeded inputs and compares bit for bit. A pass error, a runtime error only
after the pass, a read of never-written tile memory only after the pass, or
any differing bit is a failure, reported with the first difference.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from mlir import ir

PASS_PIPELINES = (
    "convert-to-ptoas-multi-buffer",
    "convert-to-ptoas-multi-buffer{normalize-loops=true}",
    "pto-lower-pipeline-loops",
    "pto-allocate-memory-addr",
    "pto-pipeline{use-ptoas-multi-buffer=true}",
    "pto-pipeline{use-ptoas-multi-buffer=false}",
    "pto-pipeline{use-ptoas-multi-buffer=true slots=model}",
)
"""What every pipeline kernel is checked under: every pass (docs/passes.md),
the conversion with loop normalization, the switch both ways, and the slot
counts the pipe model chooses (through lowering and the pipe-aware
allocation)."""

REPLAN_PIPELINES = (
    "convert-to-ptoas-multi-buffer{replan=true}",
    "pto-pipeline{use-ptoas-multi-buffer=true replan=true}",
    "pto-pipeline{use-ptoas-multi-buffer=false replan=true}",
)
"""What a kernel PyPTO addressed (`kernel_gen.addressed`) is checked under:
re-planned (docs/passes.md, `replan`), then converted, or through the
switch both ways, against the addressed kernel itself."""

SAME = "same"
MISMATCH = "mismatch"
PASS_ERROR = "pass-error"
RUN_ERROR = "run-error"
NEW_WARNING = "new-warning"
INVALID = "invalid"  # the kernel itself does not parse, verify or run


@dataclass
class Outcome:
    pipeline: str
    status: str
    message: str = ""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == SAME


@dataclass
class KernelCheck:
    """Everything `check_kernel` learnt about one kernel."""

    name: str
    reference_error: str | None = None
    reference_warnings: list[str] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    ops_executed: int = 0

    @property
    def failures(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.ok]


def unavailable_passes(pipeline: str) -> list[str]:
    """Names in `pipeline` that are neither registered pto passes nor
    upstream passes (e.g. a pto pass still being written)."""
    from ..driver.pass_pipeline import is_pass_name
    from ..syntax.pass_pipeline import parse_pipeline

    with ir.Context():
        return [
            element.name
            for top in parse_pipeline(pipeline)
            for element in top.walk()
            if element.children is None and not is_pass_name(element.name)
        ]


def check_kernel(
    text: str,
    function: str,
    values: dict[str, int | float] | None = None,
    pipelines: tuple[str, ...] | list[str] = PASS_PIPELINES,
    *,
    seed: int = 0,
    name: str = "<kernel>",
) -> KernelCheck:
    from ..driver.pass_pipeline import PipelineRun, build_pass_manager, run_pass_manager
    from ..driver.session import Session, Source
    from ..interpreter import InterpreterError, execute

    result = KernelCheck(name)
    with Session(Source(name, text)) as session:
        module = session.parse()
        if module is None:
            result.reference_error = session.errors_text() or "the kernel does not parse"
            return result

        def run(op):
            return execute(op, function, seed=seed, values=values, source_text=text)

        try:
            reference = run(module.operation)
        except InterpreterError as e:
            result.reference_error = e.message
            return result
        result.ops_executed = reference.ops_executed
        result.reference_warnings = [w.message for w in reference.warnings]
        for pipeline in pipelines:
            start = time.perf_counter()
            outcome = Outcome(pipeline, SAME)
            session.diagnostics.clear()
            transformed = module.operation.clone()
            try:
                pipeline_run = PipelineRun()
                run_pass_manager(build_pass_manager(pipeline, pipeline_run, session.context), transformed, pipeline_run)
            except ir.MLIRError as e:
                session.add_error(e)
                outcome = Outcome(pipeline, PASS_ERROR, session.errors_text() or "the pipeline failed without a diagnostic")
            if outcome.ok:
                try:
                    after = run(transformed)
                except InterpreterError as e:
                    outcome = Outcome(pipeline, RUN_ERROR, e.message)
            if outcome.ok:
                outcome = judge(pipeline, reference, after)
            transformed.erase()
            outcome.seconds = time.perf_counter() - start
            result.outcomes.append(outcome)
    return result


def judge(label: str, reference, after) -> Outcome:
    """The outcome of comparing two executions of the same kernel."""
    from ..interpreter import compare

    mismatch = compare(reference, after)
    if mismatch is not None:
        return Outcome(label, MISMATCH, mismatch.message())
    before_warnings = {w.message for w in reference.warnings}
    new_warnings = [w.message for w in after.warnings if w.message not in before_warnings]
    if new_warnings and not reference.warnings:
        return Outcome(label, NEW_WARNING, new_warnings[0])
    return Outcome(label, SAME)


def check_transformation(
    before_text: str,
    after_text: str,
    function: str,
    values: dict[str, int | float] | None = None,
    *,
    seed: int = 0,
    label: str = "hand-written transformation",
) -> Outcome:
    """Compare a kernel with a transformed version given as text (a
    transformation done by hand, or by a tool outside the pipeline)."""
    from ..driver.session import Session, Source
    from ..interpreter import InterpreterError, execute

    runs = []
    for which, text in (("before", before_text), ("after", after_text)):
        with Session(Source(f"<{which}>", text)) as session:
            module = session.parse()
            if module is None:
                return Outcome(label, INVALID if not runs else RUN_ERROR, session.errors_text())
            try:
                runs.append(execute(module.operation, function, seed=seed, values=values, source_text=text))
            except InterpreterError as e:
                return Outcome(label, RUN_ERROR if runs else INVALID, e.message)
    return judge(label, *runs)
