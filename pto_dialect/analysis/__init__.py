"""What the passes know of a kernel before they change it: which buffers
ops touch and how values alias, the byte regions ops read and write, loops
as MLIR defines them, what a loop carries, liveness, what a loop holds in
memory, placement, sharing, and replanning fixed addresses."""
