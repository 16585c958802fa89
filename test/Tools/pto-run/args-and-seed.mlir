// --arg: by name with or without %, or by position; dynamic memrefs take a shape.
// RUN: pto-run %s --func rows --arg n=2 --arg src=32x8 | FileCheck %s --check-prefix=TWO
// RUN: pto-run %s --func rows --arg %%n=3 --arg arg0=32x8 | FileCheck %s --check-prefix=THREE
// RUN: not pto-run %s --func rows --arg src=32x8 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not pto-run %s --func rows --arg n=2 --arg src=32x8 --arg m=1 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not pto-run %s --func rows --arg n=2 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: not pto-run %s --func rows --arg n=two --arg src=32x8 2>&1 | FileCheck %s --check-prefix=NOTNUM

// --seed: the same seed gives the same bytes, another seed other bytes.
// RUN: pto-run %s --func rows --arg n=2 --arg src=32x8 --seed 7 > %t.a
// RUN: pto-run %s --func rows --arg n=2 --arg src=32x8 --seed 7 > %t.b
// RUN: pto-run %s --func rows --arg n=2 --arg src=32x8 --seed 8 > %t.c
// RUN: diff %t.a %t.b
// RUN: not diff %t.a %t.c
// RUN: FileCheck %s --check-prefix=SEED < %t.a

!t = !pto.tile_buf<"vec", array<i64: 8, 8>, i32>

// Two iterations of 5 ops (+1 for the loop's step), three of them:
// TWO:   @rows: 14 ops executed
// THREE: @rows: 20 ops executed
// TWO:   %src  memref<?x8xi32>  in  hash=
// TWO:   %dst  memref<32x8xi32>  out  hash=
// MISSING: args-and-seed.mlir:[[@LINE+6]]:42: error: no value for argument %n of type index (pass --arg n=VALUE)
// UNKNOWN: pto-run: error: --arg m: the function has no integer, index or float argument of that name (it has: n)
// DYNAMIC: args-and-seed.mlir:[[@LINE+4]]:19: error: memref argument %src of type memref<?x8xi32> has a dynamic shape: give one with --arg src=RxC
// NOTNUM: pto-run: error: --arg n: 'two' is not a number
// SEED: @rows: {{[0-9]+}} ops executed (arch a5, seed 7)
module attributes {pto.target_arch = "a5"} {
  func.func @rows(%src: memref<?x8xi32>, %n: index, %dst: memref<32x8xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    scf.for %i = %c0 to %n step %c1 {
      %t = "pto.alloc_tile"() : () -> !t
      %r = arith.muli %i, %c8 : index
      "pto.tload"(%src, %r, %c0, %t) : (memref<?x8xi32>, index, index, !t) -> ()
      "pto.tabs"(%t, %t) : (!t, !t) -> ()
      "pto.tstore"(%t, %dst, %r, %c0) : (!t, memref<32x8xi32>, index, index) -> ()
    } {pto.pipeline_stages = 2 : i64}
    return
  }
}
