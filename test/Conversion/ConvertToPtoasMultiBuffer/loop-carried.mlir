// RUN: pto-opt %s --split-input-file --convert-to-ptoas-multi-buffer='spaces=vec,mat,acc' --verify-diagnostics | FileCheck %s

// A tile read in an iteration before it is written is loop-carried through
// memory: with N slots iteration i would read iteration i-N's data instead of
// i-1's. It keeps its one buffer (and says why); the loop's other tiles are
// still multi-buffered.

!mat = !pto.tile_buf<"mat", array<i64: 16, 16>, f16>
!l = !pto.tile_buf<"left", array<i64: 16, 16>, f16>
!r = !pto.tile_buf<"right", array<i64: 16, 16>, f16>
!acc = !pto.tile_buf<"acc", array<i64: 16, 16>, f32>

// The K loop of a matmul: the accumulator is read by tmatmul_acc first.
// CHECK-LABEL: func.func @matmul_k_loop
// CHECK:       "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<!pto.tile_buf<"mat", array<i64: 16, 16>, f16>, 2 : i64>
// CHECK:       scf.for
// CHECK:         "pto.multi_tile_get"
// CHECK:         "pto.alloc_tile"() : () -> !pto.tile_buf<"acc", array<i64: 16, 16>, f32>
// CHECK:         "pto.tmatmul_acc"
// CHECK:       } {pto.pipeline_stages = 1 : i64}
func.func @matmul_k_loop(%a: memref<16x64xf16>, %b: memref<64x16xf16>, %c: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.for %k = %c0 to %c4 step %c1 {
    %amat = "pto.alloc_tile"() : () -> !mat
    // expected-remark@+1 {{tile is not multi-buffered: its space "left" is not in spaces=vec,mat,acc}}
    %lhs = "pto.alloc_tile"() : () -> !l
    // expected-remark@+1 {{tile is not multi-buffered: its space "right" is not in spaces=vec,mat,acc}}
    %rhs = "pto.alloc_tile"() : () -> !r
    // expected-remark@+1 {{tile is not multi-buffered: it is loop-carried through memory: it is read by 'pto.tmatmul_acc' before it is written in the iteration}}
    %acc = "pto.alloc_tile"() : () -> !acc
    %off = arith.muli %k, %c16 : index
    "pto.tload"(%a, %c0, %off, %amat) : (memref<16x64xf16>, index, index, !mat) -> ()
    "pto.tmov"(%amat, %lhs) : (!mat, !l) -> ()
    "pto.tmov"(%amat, %rhs) : (!mat, !r) -> ()
    "pto.tmatmul_acc"(%lhs, %rhs, %acc) : (!l, !r, !acc) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}

// -----

!t = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// In place: `tadd %sum, %x, %sum` reads the running sum before writing it.
// CHECK-LABEL: func.func @in_place_accumulate
// CHECK:       %[[X:.*]] = "pto.alloc_multi_tile"
// CHECK-NOT:   "pto.alloc_multi_tile"
// CHECK:       scf.for
// CHECK:         "pto.multi_tile_get"(%[[X]]
// CHECK:         %[[SUM:.*]] = "pto.alloc_tile"
// CHECK:         "pto.tadd"(%[[SUM]], %{{.*}}, %[[SUM]])
func.func @in_place_accumulate(%src: memref<64x16xf32>, %dst: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %x = "pto.alloc_tile"() : () -> !t
    // expected-remark@+1 {{tile is not multi-buffered: it is loop-carried through memory: it is read by 'pto.tadd' before it is written in the iteration}}
    %sum = "pto.alloc_tile"() : () -> !t
    %row = arith.muli %i, %c16 : index
    "pto.tload"(%src, %row, %c0, %x) : (memref<64x16xf32>, index, index, !t) -> ()
    "pto.tadd"(%sum, %x, %sum) : (!t, !t, !t) -> ()
    "pto.tstore"(%sum, %dst, %c0, %c0) : (!t, memref<16x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}

// -----

!t = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// A plain read first: the tile is stored before this iteration loads it, so
// the store sees the previous iteration's data.
// CHECK-LABEL: func.func @read_first
// CHECK-NOT:   "pto.alloc_multi_tile"
// CHECK:       {pto.pipeline_stages = 2 : i64}
func.func @read_first(%src: memref<64x16xf32>, %dst: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  // expected-remark@+1 {{pipeline loop is not converted: no tile in its body is eligible for multi-buffering}}
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-remark@+1 {{tile is not multi-buffered: it is loop-carried through memory: it is read by 'pto.tstore' before it is written in the iteration}}
    %prev = "pto.alloc_tile"() : () -> !t
    %row = arith.muli %i, %c16 : index
    "pto.tstore"(%prev, %dst, %row, %c0) : (!t, memref<64x16xf32>, index, index) -> ()
    "pto.tload"(%src, %row, %c0, %prev) : (memref<64x16xf32>, index, index, !t) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}

// -----

!t = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// Written only on one branch of an scf.if, then read: not provably written
// before the read in every iteration, so loop-carried.
// CHECK-LABEL: func.func @written_on_one_branch
// CHECK-NOT:   "pto.alloc_multi_tile"
func.func @written_on_one_branch(%src: memref<64x16xf32>, %dst: memref<64x16xf32>, %cond: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-remark@+1 {{pipeline loop is not converted}}
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-remark@+1 {{read by 'pto.tstore' before it is written}}
    %t = "pto.alloc_tile"() : () -> !t
    scf.if %cond {
      "pto.tload"(%src, %i, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
    }
    "pto.tstore"(%t, %dst, %i, %c0) : (!t, memref<64x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}

// -----

!t = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// Written on both branches: definitely written, so iteration-local.
// CHECK-LABEL: func.func @written_on_both_branches
// CHECK:       "pto.alloc_multi_tile"
// CHECK:       {pto.pipeline_stages = 1 : i64}
func.func @written_on_both_branches(%src: memref<64x16xf32>, %dst: memref<64x16xf32>, %cond: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %t = "pto.alloc_tile"() : () -> !t
    scf.if %cond {
      "pto.tload"(%src, %i, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
    } else {
      "pto.tload"(%src, %c32, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
    }
    "pto.tstore"(%t, %dst, %i, %c0) : (!t, memref<64x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}
