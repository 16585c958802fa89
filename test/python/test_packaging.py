"""What a user gets from the sdist and the license (issue 25, item 4): the
license file pyproject names, the examples and docs the README points at,
the dialect file and the measured cycles the package reads at run time."""

from __future__ import annotations

import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[2]


def test_the_license_file_is_the_license_pyproject_names():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "Apache-2.0 WITH LLVM-exception"
    assert project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "---- LLVM Exceptions to the Apache 2.0 License ----" in text
    assert "END OF TERMS AND CONDITIONS" in text


@pytest.fixture(scope="module")
def sdist(tmp_path_factory) -> set[str]:
    out = tmp_path_factory.mktemp("sdist")
    done = subprocess.run([sys.executable, "-m", "build", "--sdist", "--outdir", str(out), str(ROOT)], capture_output=True, text=True, timeout=600)
    if done.returncode != 0 and "No module named build" in done.stderr:
        pytest.skip("the `build` package is not installed (pip install -e '.[test]')")
    assert done.returncode == 0, done.stderr[-3000:]
    (archive,) = out.glob("*.tar.gz")
    with tarfile.open(archive) as tar:
        return {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}


def test_the_sdist_holds_what_the_readme_and_the_package_need(sdist):
    for path in ("LICENSE", "README.md", "CMakeLists.txt", "cmake/PtoDialectConfig.cmake.in", "lit.cfg.py"):
        assert path in sdist, path
    for name in (p.name for p in (ROOT / "examples").glob("*.pto")):
        assert f"examples/{name}" in sdist, name
    for name in (p.name for p in (ROOT / "docs").glob("*.md")):
        assert f"docs/{name}" in sdist, name
    for path in ("pto_dialect/dialect/pto.irdl.mlir", "pto_dialect/timing/measured_cycles.json", "passes/verify.py"):
        assert path in sdist, path
    assert not any("__pycache__" in p for p in sdist)
