"""The command-line tools: `pto-opt` and `pto-run` (launched by `launch`,
which loads nothing heavy before it must), their output and exit codes,
`--verify-diagnostics`, and the generators of docs/passes.md and the op
table of docs/dialect.md."""
