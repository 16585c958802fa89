"""Text in and out: the ptoas spelling of pto ops (reader and writer,
translated to and from MLIR's generic form) and the grammar of pass
pipelines and their options."""
