"""pto-run's memory is in proportion to its arguments (issue 21, item 7;
docs/reliability.md, "Bounded cost"): filling an argument, growing a
pointer's buffer, the digest and the comparison of two runs each make no
copy of a large buffer. Measured with tracemalloc, which sees numpy's
allocations: these are counts of bytes, not timings. (Whole runs are
measured by scripts/reliability.py.) Before: filling drew float64 for the
whole argument, the digest widened it to float64 twice and hashed a copy of
its bytes, a comparison made a mask as large as the buffer, and a pointer's
buffer was joined from a list of blocks and then again with what it held:
3.2 GB for one 264 MB argument."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from pto_dialect.interpreter import compare, format_digest
from pto_dialect.interpreter.execution import BufferResult, Execution
from pto_dialect.interpreter.inputs import _rng, fill

ELEMENTS = 8 << 20  # 32 MB of f32


def peak_bytes(work) -> tuple[int, object]:
    """Bytes allocated at the peak of `work()` above what was allocated
    before, and what it returned."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        result = work()
        return tracemalloc.get_traced_memory()[1] - before, result
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("dtype", ["f32", "bf16", "i8", "i32"])
def test_filling_an_argument_allocates_it_and_a_chunk(dtype):
    peak, values = peak_bytes(lambda: fill(dtype, (ELEMENTS // 64, 64), _rng(0, 1)))
    assert peak <= values.nbytes + (16 << 20), (peak, values.nbytes)  # (the whole in float64: 64 MB more)


def test_the_filled_values_do_not_depend_on_the_chunks():
    from pto_dialect.interpreter import inputs

    whole = fill("f32", (1000, 64), _rng(3, 0))
    saved = inputs.FILL_CHUNK
    inputs.FILL_CHUNK = 777
    try:
        chunked = fill("f32", (1000, 64), _rng(3, 0))
        ints = fill("i8", (1000, 64), _rng(3, 0))
    finally:
        inputs.FILL_CHUNK = saved
    assert whole.tobytes() == chunked.tobytes()
    assert ints.tobytes() == fill("i8", (1000, 64), _rng(3, 0)).tobytes()


def execution(array: np.ndarray) -> Execution:
    return Execution("k", "a2a3", 0, [BufferResult("%A", "!pto.tensor_view<?x64xf32>", "f32", array, True)], [])


def test_the_digest_of_a_large_buffer_makes_no_copy_of_it():
    array = np.random.default_rng(0).standard_normal(ELEMENTS, dtype=np.float32)
    array[5] = np.nan
    array[7] = np.inf
    peak, text = peak_bytes(lambda: format_digest(execution(array)))
    assert peak <= array.nbytes // 4, peak
    finite = array[np.isfinite(array)].astype(np.float64)
    assert f"min={finite.min():.6g}" in text and f"max={finite.max():.6g}" in text and "nan=1" in text and "inf=1" in text


def test_comparing_large_buffers_makes_no_mask_of_their_size():
    a = np.arange(ELEMENTS, dtype=np.float32)
    b = a.copy()
    b[ELEMENTS - 3] = -1.0
    b[ELEMENTS - 1] = -2.0
    peak, mismatch = peak_bytes(lambda: compare(execution(a), execution(b)))
    assert peak <= ELEMENTS // 2, peak  # (a mask of the whole is ELEMENTS bytes)
    assert mismatch.index == (ELEMENTS - 3,) and mismatch.differing == 2 and mismatch.total == ELEMENTS


def test_a_pointer_buffer_grows_into_one_new_array(context):
    from mlir import ir

    from pto_dialect.dialect.types import PtrType
    from pto_dialect.interpreter.inputs import Argument, ArgumentBudget, _pointer

    t = ir.Type.parse(PtrType("f32").generic())
    buffer = _pointer(Argument(0, "%P", t, ir.Location.unknown()), 0, ArgumentBudget(1 << 40))
    small = buffer._grow(buffer.flat, 1000)
    peak, grown = peak_bytes(lambda: buffer._grow(small, ELEMENTS))
    assert peak <= grown.nbytes + (1 << 20), (peak, grown.nbytes)
    assert grown[:1000].tobytes() == small.tobytes()
    assert grown.tobytes()[: 4 * 5000] == buffer._grow(buffer.flat, 5000).tobytes()  # an element's value depends on its position only
