// Command-line problems and bad input: one error line, exit 1, no traceback.

// RUN: not pto-run %s 2>&1 | FileCheck %s --check-prefix=WHICH
// WHICH: pto-run: error: --func NAME is required (functions: @a, @b)

// RUN: not pto-run %s --func a --frobnicate 2>&1 | FileCheck %s --check-prefix=FLAG
// FLAG: pto-run: error: unrecognized arguments: --frobnicate

// RUN: not pto-run %s.does-not-exist --func a 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: pto-run: error: could not open input file '{{.*}}.does-not-exist': No such file or directory

// RUN: not pto-run %s --func a --arg 5 2>&1 | FileCheck %s --check-prefix=ARGFORM
// ARGFORM: pto-run: error: --arg expects NAME=VALUE, got '5'

// RUN: not pto-run %s --func a --seed x 2>&1 | FileCheck %s --check-prefix=SEED
// SEED: pto-run: error: argument --seed: 'x' is not an integer

// RUN: not pto-run %s --func a --pass-pipeline 'builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=PIPE
// PIPE: error: 'no-such-pass' does not refer to a registered pass or pass pipeline

// RUN: not pto-run %s --func a --pass-pipeline 'pto-allocate-memory-addr{reuse=maybe}' 2>&1 | FileCheck %s --check-prefix=OPTION
// OPTION: error: {{.*}}'maybe' is not a boolean

// The input is parsed and verified first.
// RUN: echo 'func.func @f() { %%x = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 0, 4>, f32> return }' | not pto-run - --func f 2>&1 | FileCheck %s --check-prefix=VERIFY
// VERIFY: <stdin>:1:23: error: invalid type !pto.tile_buf<"vec", array<i64: 0, 4>, f32>: shape dimensions must be positive, got 0x4
// RUN: echo 'func.func @f( {' | not pto-run - --func f 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: <stdin>:1:14: error: expected non-function type

// A pass that fails stops the run with its diagnostics.
// RUN: not pto-run %s --func b --pass-pipeline 'pto-allocate-memory-addr' 2>&1 | FileCheck %s --check-prefix=PASSFAIL
// PASSFAIL: cli.mlir:[[@LINE+11]]:1: error: memory space "left" overflows in @b

// RUN: pto-run --help | FileCheck %s --check-prefix=HELP
// HELP: usage: pto-run [-h] [--func NAME] [--arg NAME=INT]
// RUN: pto-run --version | FileCheck %s --check-prefix=VERSION
// VERSION: pto-run {{[0-9.]+}} (pto dialect; MLIR Python bindings, LLVM 22.1.8)

func.func @a(%A: memref<4x4xf32>) {
  return
}

func.func @b() {
  %a = "pto.alloc_tile"() : () -> !pto.tile_buf<"left", array<i64: 128, 128>, f16>
  %b = "pto.alloc_tile"() : () -> !pto.tile_buf<"left", array<i64: 128, 128>, f16>
  %c = "pto.alloc_tile"() : () -> !pto.tile_buf<"left", array<i64: 128, 128>, f16>
  "pto.tmov"(%a, %b) : (!pto.tile_buf<"left", array<i64: 128, 128>, f16>, !pto.tile_buf<"left", array<i64: 128, 128>, f16>) -> ()
  "pto.tmov"(%b, %c) : (!pto.tile_buf<"left", array<i64: 128, 128>, f16>, !pto.tile_buf<"left", array<i64: 128, 128>, f16>) -> ()
  "pto.tmov"(%c, %a) : (!pto.tile_buf<"left", array<i64: 128, 128>, f16>, !pto.tile_buf<"left", array<i64: 128, 128>, f16>) -> ()
  return
}
