"""pto-dialect: the Ascend PTO `pto` dialect on the upstream MLIR Python
bindings, with passes that turn pipelined `scf.for` loops into ptoas
multi-buffer form and assign slot addresses.

Python API (docs/api.md):

    from mlir import ir
    import pto_dialect

    with ir.Context() as ctx:
        module = pto_dialect.parse(text, name="kernel.pto")
        report = pto_dialect.run_passes(module, "convert-to-ptoas-multi-buffer")
        for loop in report.loops: ...
        print(pto_dialect.print_module(module))

The IRDL file `pto_dialect.IRDL_FILE` is the C++ entry point
(`mlir-opt --irdl-file=...`).
"""

__version__ = "0.1.0"
LLVM_VERSION = "22.1.8"

# The API is imported lazily: `import pto_dialect` (and `pto-opt --version`)
# must not pay for loading MLIR.
_API = {
    "ParseError": "api",
    "parse": "api",
    "print_module": "api",
    "to_generic": "api",
    "to_ptoas": "api",
    "load_dialect": "api",
    "run_passes": "api",
    "add_passes": "api",
    "verify": "api",
    "IRDL_FILE": "dialect.load",
}

__all__ = [*_API, "LLVM_VERSION", "__version__"]


def __getattr__(name):
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'pto_dialect' has no attribute '{name}'")
    import importlib

    return getattr(importlib.import_module(f".{module}", __name__), name)
