// RUN: pto-opt %s --split-input-file --pto-allocate-memory-addr | FileCheck %s

// A tile loop-carried through memory (read before it is written in an
// iteration, here an in-place accumulate) lives for the whole loop: a tile
// defined later in the same body must not take its address, or it would
// clobber what the next iteration reads. Iteration-local tiles of the body
// (%x, dead after the tadd, and %y, defined after it) do share.

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// CHECK-LABEL: func.func @accumulate
// CHECK-SAME: pto.memory_usage = {vec = 2048 : i64}
// CHECK: scf.for
// CHECK: arith.constant 0 : i64
// CHECK-NEXT: %[[ACC:.*]] = "pto.alloc_tile"
// CHECK: arith.constant 1024 : i64
// CHECK-NEXT: %[[X:.*]] = "pto.alloc_tile"
// CHECK: "pto.tadd"(%[[ACC]], %[[X]], %[[ACC]])
// CHECK: arith.constant 1024 : i64
// CHECK-NEXT: %[[Y:.*]] = "pto.alloc_tile"
// CHECK: "pto.tload"({{.*}}, %[[Y]])
func.func @accumulate(%src: memref<64x64xf32>, %dst: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %acc = "pto.alloc_tile"() : () -> !v
    %x = "pto.alloc_tile"() : () -> !v
    "pto.tload"(%src, %i, %c0, %x) : (memref<64x64xf32>, index, index, !v) -> ()
    "pto.tadd"(%acc, %x, %acc) : (!v, !v, !v) -> ()
    "pto.tstore"(%acc, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
    %y = "pto.alloc_tile"() : () -> !v
    "pto.tload"(%src, %i, %c0, %y) : (memref<64x64xf32>, index, index, !v) -> ()
    "pto.tstore"(%y, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  }
  return
}

// -----

// The same body with %acc written before it is read: it is iteration-local,
// its lifetime ends at its tstore, and %y reuses its address.

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// CHECK-LABEL: func.func @iteration_local
// CHECK: scf.for
// CHECK: arith.constant 0 : i64
// CHECK-NEXT: %[[ACC:.*]] = "pto.alloc_tile"
// CHECK: arith.constant 1024 : i64
// CHECK-NEXT: %[[X:.*]] = "pto.alloc_tile"
// CHECK: arith.constant 0 : i64
// CHECK-NEXT: %[[Y:.*]] = "pto.alloc_tile"
func.func @iteration_local(%src: memref<64x64xf32>, %dst: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %acc = "pto.alloc_tile"() : () -> !v
    %x = "pto.alloc_tile"() : () -> !v
    "pto.tload"(%src, %i, %c0, %x) : (memref<64x64xf32>, index, index, !v) -> ()
    "pto.texp"(%x, %acc) : (!v, !v) -> ()
    "pto.tstore"(%acc, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
    %y = "pto.alloc_tile"() : () -> !v
    "pto.tload"(%src, %i, %c0, %y) : (memref<64x64xf32>, index, index, !v) -> ()
    "pto.tstore"(%y, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  }
  return
}

// -----

// A matmul accumulator (tmatmul_acc reads its acc) inside a loop, and a
// second acc tile later in the body: never shared, and 512-byte aligned
// (the 400-byte accumulator pushes the next base to 512).

!l = !pto.tile_buf<"left", array<i64: 10, 16>, f16>
!r = !pto.tile_buf<"right", array<i64: 16, 10>, f16>
!a = !pto.tile_buf<"acc", array<i64: 10, 10>, f32>

// CHECK-LABEL: func.func @matmul_acc
// CHECK-SAME: pto.memory_usage = {acc = 912 : i64, left = 320 : i64, right = 320 : i64}
// CHECK: scf.for
// CHECK: arith.constant 0 : i64
// CHECK-NEXT: "pto.alloc_tile"{{.*}} -> !pto.tile_buf<"left"
// CHECK: arith.constant 0 : i64
// CHECK-NEXT: "pto.alloc_tile"{{.*}} -> !pto.tile_buf<"right"
// CHECK: arith.constant 0 : i64
// CHECK-NEXT: "pto.alloc_tile"{{.*}} -> !pto.tile_buf<"acc"
// CHECK: arith.constant 512 : i64
// CHECK-NEXT: "pto.alloc_tile"{{.*}} -> !pto.tile_buf<"acc"
func.func @matmul_acc(%lhs: !l, %rhs: !r, %dst: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %l = "pto.alloc_tile"() : () -> !l
    %r = "pto.alloc_tile"() : () -> !r
    "pto.tmov"(%lhs, %l) : (!l, !l) -> ()
    "pto.tmov"(%rhs, %r) : (!r, !r) -> ()
    %acc = "pto.alloc_tile"() : () -> !a
    "pto.tmatmul_acc"(%l, %r, %acc) : (!l, !r, !a) -> ()
    %out = "pto.alloc_tile"() : () -> !a
    "pto.tmov"(%acc, %out) : (!a, !a) -> ()
    "pto.tstore"(%out, %dst, %c0, %c0) : (!a, memref<64x64xf32>, index, index) -> ()
  }
  return
}
