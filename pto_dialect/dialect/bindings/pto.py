"""The Python module of the `pto` dialect, as the MLIR bindings see it.

The bindings look for a module named after an op's dialect whenever they
wrap an op (`mlir.dialects.<namespace>`, then every registered search
prefix). They remember only a module they found: without one, every
wrapped pto op re-ran a failing import through the file system (~50 us, most
of the time spent walking IR). The ops are IRDL-defined and generic, so
there is nothing to put here.
"""
