// Runtime errors are `file:line:col: error:` at the op that failed, exit 1,
// never a traceback.

// RUN: not pto-run %s --func oob_load --arg row=60 2>&1 | FileCheck %s --check-prefix=OOB-LOAD
// RUN: not pto-run %s --func oob_store 2>&1 | FileCheck %s --check-prefix=OOB-STORE
// RUN: not pto-run %s --func slot --arg k=2 2>&1 | FileCheck %s --check-prefix=SLOT
// RUN: not pto-run %s --func beyond --arg a=196352 2>&1 | FileCheck %s --check-prefix=BEYOND
// RUN: pto-run %s --func beyond --arg a=196096
// RUN: not pto-run %s --func divide --arg n=0 2>&1 | FileCheck %s --check-prefix=DIVIDE
// RUN: not pto-run %s --func unknown --arg i=0 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not pto-run %s --func forever --max-ops 1000 2>&1 | FileCheck %s --check-prefix=FOREVER
// RUN: not pto-run %s --func texp_int 2>&1 | FileCheck %s --check-prefix=TEXP

// None of them may show a Python traceback.
// RUN: not pto-run %s --func oob_load --arg row=60 2>&1 | FileCheck %s --check-prefix=NO-TRACE
// NO-TRACE-NOT: Traceback

!t = !pto.tile_buf<"vec", array<i64: 8, 16>, f32>

func.func @oob_load(%A: memref<64x16xf32>, %row: index) {
  %c0 = arith.constant 0 : index
  %t = "pto.alloc_tile"() : () -> !t
  // OOB-LOAD: runtime-errors.mlir:[[@LINE+1]]:3: error: 'pto.tload': block [60:68, 0:16] is out of bounds of %A (64x16)
  "pto.tload"(%A, %row, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
  return
}

func.func @oob_store(%A: memref<64x16xf32>, %B: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %t = "pto.alloc_tile"() : () -> !t
    %r = arith.muli %i, %c8 : index
    "pto.tload"(%A, %r, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
    // the third iteration stores rows [16, 24) of a 16-row memref
    // OOB-STORE: runtime-errors.mlir:[[@LINE+1]]:5: error: 'pto.tstore': block [16:24, 0:16] is out of bounds of %B (16x16)
    "pto.tstore"(%t, %B, %r, %c0) : (!t, memref<16x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}

func.func @slot(%k: index) {
  %mb = "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<!t, 2 : i64>
  // SLOT: runtime-errors.mlir:[[@LINE+1]]:8: error: 'pto.multi_tile_get': slot 2 is out of range [0, 2)
  %t = "pto.multi_tile_get"(%mb, %k) : (!pto.multi_tile_buf<!t, 2 : i64>, index) -> !t
  return
}

func.func @beyond(%a: i64) {
  // BEYOND: runtime-errors.mlir:[[@LINE+1]]:8: error: 'pto.alloc_tile': buffer at addr 196352 of 512 bytes ends at 196864, beyond space "vec" (196608 bytes on a3)
  %t = "pto.alloc_tile"(%a) : (i64) -> !t
  return
}

func.func @divide(%n: index) -> index {
  %c8 = arith.constant 8 : index
  // DIVIDE: runtime-errors.mlir:[[@LINE+1]]:8: error: 'arith.ceildivui': division by zero
  %q = arith.ceildivui %c8, %n : index
  return %q : index
}

func.func @unknown(%A: memref<4xf32>, %i: index) {
  // UNKNOWN: runtime-errors.mlir:[[@LINE+1]]:8: error: cannot execute 'memref.load': the interpreter runs pto, func, scf and arith ops, and does not know this one
  %x = memref.load %A[%i] : memref<4xf32>
  return
}

func.func @forever() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %big = arith.constant 1000000000000 : index
  // FOREVER: runtime-errors.mlir:[[@LINE+1]]:3: error: execution stopped after 1000 ops (the limit; pto-run --max-ops raises it)
  scf.for %i = %c0 to %big step %c1 {
  }
  return
}

!i = !pto.tile_buf<"vec", array<i64: 8, 16>, i32>
func.func @texp_int(%A: memref<8x16xi32>) {
  %c0 = arith.constant 0 : index
  %t = "pto.alloc_tile"() : () -> !i
  "pto.tload"(%A, %c0, %c0, %t) : (memref<8x16xi32>, index, index, !i) -> ()
  // TEXP: runtime-errors.mlir:[[@LINE+1]]:3: error: 'pto.texp': exp is defined for float tiles (f16, bf16, f32), not i32
  "pto.texp"(%t, %t) : (!i, !i) -> ()
  return
}
