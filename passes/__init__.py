"""The pto passes, by name (installed as `pto_dialect.passes`).

The registry is lazy, like xDSL's: a name maps to a function that imports the
pass's module only when the pass is used, so `pto-opt` start-up does not pay
for passes it does not run.
"""

from __future__ import annotations

from collections.abc import Callable

from ..pass_infra import ModulePass


def _verify():
    from .verify import PtoVerify

    return PtoVerify


def _convert_to_ptoas_multi_buffer():
    from .convert_to_ptoas_multi_buffer import ConvertToPtoasMultiBuffer

    return ConvertToPtoasMultiBuffer


def _allocate_memory_addr():
    from .allocate_memory_addr import AllocateMemoryAddr

    return AllocateMemoryAddr


def _lower_pipeline_loops():
    from .lower_pipeline_loops import LowerPipelineLoops

    return LowerPipelineLoops


def _replan():
    from .replan import PtoReplan

    return PtoReplan


def _pto_pipeline():
    from .pto_pipeline import PtoPipeline

    return PtoPipeline


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> a function returning the pass class."""
    return {
        "pto-verify": _verify,
        "convert-to-ptoas-multi-buffer": _convert_to_ptoas_multi_buffer,
        "pto-lower-pipeline-loops": _lower_pipeline_loops,
        "pto-allocate-memory-addr": _allocate_memory_addr,
        "pto-pipeline": _pto_pipeline,
        "pto-replan": _replan,
    }


def get_pass_class(name: str) -> type[ModulePass] | None:
    loader = get_all_passes().get(name)
    return loader() if loader else None


def all_pass_classes() -> list[type[ModulePass]]:
    return [load() for load in get_all_passes().values()]
