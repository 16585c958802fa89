"""`pto-opt --list-passes` and docs/passes.md, both generated from the pass
classes (name, docstring, options): the description is the documentation.

    python -m pto_dialect.tools.pass_docs > docs/passes.md
"""

from __future__ import annotations

import textwrap


def _passes():
    from .. import passes

    return sorted(passes.all_pass_classes(), key=lambda c: c.name)


def render_pass_list(verbose: bool = False) -> str:
    lines = ["Available pto passes:"]
    for cls in _passes():
        lines.append(f"  --{cls.name:<36} {cls.summary()}")
        for name, type_name, default, help_text in cls.options():
            shown_default = f" (default: {default})" if default != "" else ""
            lines.append(f"      --{name}=<{type_name}>".ljust(40) + f" {help_text}{shown_default}")
        if verbose:
            body = cls.description().split("\n", 1)[1:] or [""]
            lines.append(textwrap.indent(body[0].strip("\n"), "      "))
            lines.append("")
    lines.append("")
    lines.append("Upstream C++ passes (canonicalize, cse, ...) mix freely with these, as")
    lines.append("flags or in --pass-pipeline; see `mlir-opt --help` for their list.")
    return "\n".join(lines)


def render_markdown() -> str:
    out = [
        "# pto passes",
        "",
        "Generated from the pass classes by `python -m pto_dialect.tools.pass_docs`;",
        "`pto-opt --list-passes --verbose` prints the same text. Do not edit by hand.",
        "",
    ]
    for cls in _passes():
        out.append(f"## `{cls.name}`")
        out.append("")
        out.append(cls.summary())
        out.append("")
        body = cls.description().split("\n", 1)
        if len(body) > 1 and body[1].strip():
            out.append(body[1].strip("\n"))
            out.append("")
        options = cls.options()
        if options:
            out.append("| option | type | default | meaning |")
            out.append("|---|---|---|---|")
            for name, type_name, default, help_text in options:
                out.append(f"| `{name}` | {type_name} | `{default}` | {help_text} |")
            out.append("")
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    print(render_markdown(), end="")
