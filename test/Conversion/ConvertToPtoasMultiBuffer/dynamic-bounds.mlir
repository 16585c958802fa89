// RUN: pto-opt %s --convert-to-ptoas-multi-buffer --verify-diagnostics | FileCheck %s

// Dynamic lb, ub and step: the slot is computed from the loop's own operands.

!t = !pto.tile_buf<"vec", array<i64: 8, 16>, f32>

// CHECK-LABEL: func.func @dynamic
// CHECK-SAME:  (%{{.*}}: memref<?x16xf32>, %[[LB:.*]]: index, %[[UB:.*]]: index, %[[STEP:.*]]: index)
// CHECK:       "pto.alloc_multi_tile"
// CHECK-NEXT:  scf.for %[[IV:.*]] = %[[LB]] to %[[UB]] step %[[STEP]] {
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[D:.*]] = arith.subi %[[IV]], %[[LB]] : index
// CHECK-NEXT:    %[[K:.*]] = arith.divui %[[D]], %[[STEP]] : index
// CHECK-NEXT:    %[[SLOT:.*]] = arith.remui %[[K]], %[[C2]] : index
// CHECK-NEXT:    "pto.multi_tile_get"(%{{.*}}, %[[SLOT]])
// CHECK:       } {pto.pipeline_stages = 1 : i64}
func.func @dynamic(%src: memref<?x16xf32>, %lb: index, %ub: index, %step: index) {
  %c0 = arith.constant 0 : index
  scf.for %i = %lb to %ub step %step {
    %t = "pto.alloc_tile"() : () -> !t
    "pto.tload"(%src, %i, %c0, %t) : (memref<?x16xf32>, index, index, !t) -> ()
    "pto.tstore"(%t, %src, %i, %c0) : (!t, memref<?x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}

// Dynamic ub only: lb = 0 and step = 1 are constants, so the ptoas form.
// CHECK-LABEL: func.func @dynamic_ub
// CHECK:       scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    arith.remui %[[IV]], %[[C2]] : index
func.func @dynamic_ub(%src: memref<?x16xf32>, %ub: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %ub step %c1 {
    %t = "pto.alloc_tile"() : () -> !t
    "pto.tload"(%src, %i, %c0, %t) : (memref<?x16xf32>, index, index, !t) -> ()
    "pto.tstore"(%t, %src, %i, %c0) : (!t, memref<?x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}
