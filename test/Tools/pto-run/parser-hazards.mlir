// Fuzzing regression: inputs that crash the pinned MLIR parser (an assertion
// on a dense array of `index`, found by mutating test/Dialect/pto/invalid-types.mlir;
// a stack overflow on very deep nesting) are rejected with a diagnostic
// before parsing, as pto-opt does, instead of killing pto-run.

// RUN: not pto-run %s --func g 2>&1 | FileCheck %s --check-prefix=INDEX
// INDEX: parser-hazards.mlir:[[@LINE+5]]:45: error: expected integer or float type, got: 'index'
// INDEX-NOT: Assertion

// RUN: %python -c "print('func.func @f() {' + 'scf.execute_region {' * 1200 + '}' * 1200 + ' return }')" | not pto-run - --func f 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: <stdin>:1:{{[0-9]+}}: error: nesting deeper than 1000 levels is not supported
func.func @g(%a: !pto.tile_buf<"vec", array<index: 16, 16>, f32>) {
  return
}

// A string that does not close on its line, before more ops: the parser's
// error recovery left an error unreported and the bindings aborted (found
// by the fuzzer). Refused before parsing, by both tools, at the parser's column.
// RUN: %python -c "print('func.func @h() {\n  %%t = \"pto.alloc_tile\"() : () -> !pto.tile_buf<\"vec\", array<i64: 16, 16>, f32>\n\"x4>, f32>\n  return\n}')" > %t.unterminated.mlir
// RUN: not pto-run %t.unterminated.mlir --func h 2>&1 | FileCheck %s --check-prefix=STRING
// RUN: not pto-opt %t.unterminated.mlir 2>&1 | FileCheck %s --check-prefix=STRING
// STRING: unterminated.mlir:3:11: error: expected '"' in string literal
// STRING-NOT: Assertion
