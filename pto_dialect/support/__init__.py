"""What every room uses and that knows nothing of the pto dialect: MLIR
diagnostics (with the native emitter), source text facts (positions,
comments, integer literals, parser hazards), walks without the Python
stack, small helpers over the bindings, atomic files, signals, the
interpreter's run limits (importable without numpy or MLIR)."""
