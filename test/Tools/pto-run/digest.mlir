// RUN: pto-run %s --func scale_add --arg n=4 | FileCheck %s
// RUN: pto-run %s --func copy | FileCheck %s --check-prefix=COPY
// RUN: pto-run %s --func cancel | FileCheck %s --check-prefix=CANCEL
// RUN: pto-run %s --func count --arg n=5 | FileCheck %s --check-prefix=RET

// The digest: one line per memref argument (name, type, in/out, a hash of
// its bytes, min/max/mean), then the returned values.

!t = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// CHECK:      @scale_add: {{[0-9]+}} ops executed (arch a3, seed 0)
// CHECK-NEXT: %A  memref<64x16xf32>  in  hash={{[0-9a-f]+}}  min={{.*}}  max={{.*}}  mean=
// CHECK-NEXT: %Out  memref<64x16xf32>  out  hash={{[0-9a-f]+}}  min=
// CHECK-NOT:  return
func.func @scale_add(%A: memref<64x16xf32>, %n: index, %Out: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %s = arith.constant 2.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %t = "pto.alloc_tile"() : () -> !t
    %u = "pto.alloc_tile"() : () -> !t
    %r = arith.muli %i, %c16 : index
    "pto.tload"(%A, %r, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
    "pto.tmuls"(%t, %s, %u) : (!t, f32, !t) -> ()
    "pto.tadd"(%u, %t, %u) : (!t, !t, !t) -> ()
    "pto.tstore"(%u, %Out, %r, %c0) : (!t, memref<64x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}

// A copy has the hash of its source.
// COPY:      %X  memref<16x16xf32>  in  hash=[[H:[0-9a-f]+]]
// COPY-NEXT: %Y  memref<16x16xf32>  out  hash=[[H]]
func.func @copy(%X: memref<16x16xf32>, %Y: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %t = "pto.alloc_tile"() : () -> !t
  "pto.tload"(%X, %c0, %c0, %t) : (memref<16x16xf32>, index, index, !t) -> ()
  "pto.tstore"(%t, %Y, %c0, %c0) : (!t, memref<16x16xf32>, index, index) -> ()
  return
}

// x - x is exactly zero everywhere.
// CANCEL: %Z  memref<16x16xf32>  out  hash={{[0-9a-f]+}}  min=0  max=0  mean=0{{$}}
func.func @cancel(%X: memref<16x16xf32>, %Z: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %t = "pto.alloc_tile"() : () -> !t
  "pto.tload"(%X, %c0, %c0, %t) : (memref<16x16xf32>, index, index, !t) -> ()
  "pto.tsub"(%t, %t, %t) : (!t, !t, !t) -> ()
  "pto.tstore"(%t, %Z, %c0, %c0) : (!t, memref<16x16xf32>, index, index) -> ()
  return
}

// RET:      @count: {{[0-9]+}} ops executed
// RET-NEXT: return #0: index = 15
// RET-NEXT: return #1: i1 = 1
func.func @count(%n: index) -> (index, i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %next = arith.addi %acc, %i : index
    %twice = arith.addi %next, %c1 : index
    scf.yield %twice : index
  }
  %big = arith.cmpi ugt, %sum, %n : index
  return %sum, %big : index, i1
}
