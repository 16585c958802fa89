// RUN: pto-opt %s --split-input-file --convert-to-ptoas-multi-buffer --verify-diagnostics | FileCheck %s

// The slot is ((iv - lb) / step) mod N. Only step = 1 with a constant
// lb >= 0 gets the bare `arith.remui %iv, %cN` ptoas needs; any other step
// keeps the division (iv % N on a step-2 loop would give every iteration
// slot 0 and silently lose the double buffering).

!t = !pto.tile_buf<"vec", array<i64: 8, 16>, f32>

// lb = 1, step = 1: (iv mod N) is a rotation of ((iv - 1) mod N), so the
// ptoas form is kept.
// CHECK-LABEL: func.func @lb1_step1
// CHECK:       "pto.alloc_multi_tile"
// CHECK:       scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[SLOT:.*]] = arith.remui %[[IV]], %[[C2]] : index
// CHECK-NEXT:    "pto.multi_tile_get"(%{{.*}}, %[[SLOT]])
func.func @lb1_step1(%src: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c1 to %c8 step %c1 {
    %t = "pto.alloc_tile"() : () -> !t
    "pto.tload"(%src, %i, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
    "pto.tstore"(%t, %src, %i, %c0) : (!t, memref<64x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}

// -----

!t = !pto.tile_buf<"vec", array<i64: 8, 16>, f32>

// lb = 0, step = 2: slot = (iv / 2) mod 2, never iv mod 2.
// CHECK-LABEL: func.func @lb0_step2
// CHECK:       "pto.alloc_multi_tile"
// CHECK:       scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %[[STEP:.*]] {
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[K:.*]] = arith.divui %[[IV]], %[[STEP]] : index
// CHECK-NEXT:    %[[SLOT:.*]] = arith.remui %[[K]], %[[C2]] : index
// CHECK-NEXT:    "pto.multi_tile_get"(%{{.*}}, %[[SLOT]])
// CHECK-NOT:   arith.remui %[[IV]]
func.func @lb0_step2(%src: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c2 {
    %t = "pto.alloc_tile"() : () -> !t
    "pto.tload"(%src, %i, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
    "pto.tstore"(%t, %src, %i, %c0) : (!t, memref<64x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}

// -----

!t = !pto.tile_buf<"vec", array<i64: 8, 16>, f32>

// lb = 1, step = 3, N = 5: slot = ((iv - 1) / 3) mod 5.
// CHECK-LABEL: func.func @lb1_step3_n5
// CHECK:       %[[C1:.*]] = arith.constant 1 : index
// CHECK:       "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 8, 16>, f32>, 5 : i64>
// CHECK:       scf.for %[[IV:.*]] = %[[C1]] to %{{.*}} step %[[STEP:.*]] {
// CHECK-NEXT:    %[[C5:.*]] = arith.constant 5 : index
// CHECK-NEXT:    %[[D:.*]] = arith.subi %[[IV]], %[[C1]] : index
// CHECK-NEXT:    %[[K:.*]] = arith.divui %[[D]], %[[STEP]] : index
// CHECK-NEXT:    %[[SLOT:.*]] = arith.remui %[[K]], %[[C5]] : index
// CHECK-NEXT:    "pto.multi_tile_get"(%{{.*}}, %[[SLOT]])
func.func @lb1_step3_n5(%src: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c40 = arith.constant 40 : index
  scf.for %i = %c1 to %c40 step %c3 {
    %t = "pto.alloc_tile"() : () -> !t
    "pto.tload"(%src, %i, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
    "pto.tstore"(%t, %src, %i, %c0) : (!t, memref<64x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 5 : i64}
  return
}

// -----

!t = !pto.tile_buf<"vec", array<i64: 8, 16>, f32>

// A negative constant lb with step 1 is not the ptoas form (remui of a
// negative index is not a rotation): the subtraction stays.
// CHECK-LABEL: func.func @negative_lb
// CHECK:       scf.for %[[IV:.*]] = %[[LB:.*]] to %{{.*}} step %{{.*}} {
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[D:.*]] = arith.subi %[[IV]], %[[LB]] : index
// CHECK-NEXT:    arith.remui %[[D]], %[[C2]] : index
// CHECK-NOT:     arith.divui
func.func @negative_lb(%src: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %cm4 = arith.constant -4 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %cm4 to %c4 step %c1 {
    %t = "pto.alloc_tile"() : () -> !t
    %row = arith.addi %i, %c4 : index
    "pto.tload"(%src, %row, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
    "pto.tstore"(%t, %src, %row, %c0) : (!t, memref<64x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}

// -----

// A constant step that is not positive: no slot index is right for a loop
// that never ends (or whose semantics are undefined). Not converted.
// CHECK-LABEL: func.func @step_not_positive
// CHECK-NOT: pto.alloc_multi_tile
// CHECK: } {pto.pipeline_stages = 2 : i64}
func.func @step_not_positive(%src: memref<64x16xf32>, %ub: index) {
  %c0 = arith.constant 0 : index
  %m1 = arith.constant -1 : index
  // expected-remark@+1 {{pipeline loop is not converted: its step is -1; scf.for steps must be positive}}
  scf.for %i = %c0 to %ub step %m1 {
    %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
    "pto.tload"(%src, %c0, %c0, %t) : (memref<64x16xf32>, index, index, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}
