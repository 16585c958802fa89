"""Running the tool on a source: a `Session` (one Context: read either
spelling, print, diagnostics at the user's file), and pass pipelines that
mix pto's Python passes with upstream C++ passes."""
