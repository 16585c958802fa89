"""Python modules of dialects, where the MLIR bindings look for them (see
`pto_dialect.dialect.register_python_module`)."""
