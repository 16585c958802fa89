"""What the pto dialect is: the op table and its assembly formats, the
types and `#pto` attributes, the attributes kernels and passes exchange
(annotations), the targets, what each op reads and writes (effects) and the
tmp tiles ptoas asks for (scratch), the IRDL file generated from the table
and loading it, and the verifier (our rules and ptoas's per-target ones)."""
