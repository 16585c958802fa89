"""The limits of a pto-run execution (docs/tools.md, `pto-run`), in a module
that imports nothing: `pto-run --help` shows them, and a command-line error
must not wait for numpy and MLIR to load."""

DEFAULT_MAX_OPS = 20_000_000
"""Executed ops before a run stops with an error (a runaway loop)."""

DEFAULT_MAX_ARG_BYTES = 256 << 20
"""Largest total size of global-memory arguments a run allocates."""
