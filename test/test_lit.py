"""Runs the lit suite under pytest, one pytest test per lit test.

lit runs once per session (in parallel, on the tests pytest selected); each
parametrized test then reports its own lit result, so `pytest` lists every
lit test by path and a failure shows lit's output for it.

The tools run through a tool server for the session (pto_dialect/tools/server.py;
docs/tools.md, "The tool server"): a fork of one warm process per run
instead of a Python start and `import mlir` per run. PTO_LIT_PLAIN=1 runs
them as plain processes; test/python/test_tool_server.py proves the two
give the same runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TEST_DIR = ROOT / "test"


def _lit_tests() -> list[str]:
    tests = []
    for path in sorted([*TEST_DIR.rglob("*.pto"), *TEST_DIR.rglob("*.mlir")]):
        if "Inputs" in path.parts:
            continue
        head = path.read_text(errors="replace")[:4096]
        if "RUN:" in head:
            tests.append(path.relative_to(ROOT).as_posix())
    return tests


LIT_TESTS = _lit_tests()


class tool_server:
    """A tool server on a fresh socket while the block runs (None when not
    enabled or when it does not come up: lit then runs the plain tools)."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.process = None
        self.dir = None

    def __enter__(self) -> str | None:
        if not self.enabled:
            return None
        self.dir = tempfile.TemporaryDirectory(prefix="pto-tool-server-")
        path = os.path.join(self.dir.name, "socket")
        from pto_dialect.tools.server import spawn

        try:
            self.process = spawn(path, idle_exit=600, cwd=str(ROOT))
        except RuntimeError:
            return None
        return path

    def __exit__(self, *exc) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=60)
        if self.dir is not None:
            self.dir.cleanup()


@pytest.fixture(scope="session")
def lit_results(request, tmp_path_factory) -> dict[str, tuple[str, str]]:
    selected = sorted(
        {item.callspec.params["lit_test"] for item in request.session.items if "lit_test" in getattr(getattr(item, "callspec", None), "params", {})}
    )
    xml = tmp_path_factory.mktemp("lit") / "lit.xml"
    cmd = [sys.executable, "-c", "from lit.main import main; main()", "-q", "--xunit-xml-output", str(xml), *[str(ROOT / t) for t in selected]]
    env = dict(os.environ)
    with tool_server(enabled=bool(selected) and not os.environ.get("PTO_LIT_PLAIN")) as socket_path:
        if socket_path:
            env["PTO_TOOL_SERVER"] = socket_path
        run = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    results: dict[str, tuple[str, str]] = {"": ("output", run.stdout)}
    if xml.exists():
        for case in ET.parse(xml).getroot().iter("testcase"):
            # classname "<suite>.<dir relative to the suite root>", name "<file>"
            suite_dir = case.get("classname", "").split(".", 1)[-1]
            name = f"{suite_dir}/{case.get('name', '')}"
            failure = case.find("failure")
            skipped = case.find("skipped")
            status = "fail" if failure is not None else "skip" if skipped is not None else "pass"
            text = (failure.text or "") if failure is not None else (skipped.get("message", "") if skipped is not None else "")
            results[name] = (status, text)
    return results


@pytest.mark.parametrize("lit_test", LIT_TESTS)
def test_lit(lit_test: str, lit_results) -> None:
    result = lit_results.get(lit_test)
    assert result is not None, f"lit did not report {lit_test}; lit said:\n{lit_results[''][1]}"
    status, text = result
    if status == "skip":
        pytest.skip(text)
    assert status == "pass", text
