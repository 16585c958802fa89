// RUN: pto-opt %s --split-input-file --convert-to-ptoas-multi-buffer=normalize-loops=true --verify-diagnostics | FileCheck %s
// RUN: pto-opt %s --split-input-file --convert-to-ptoas-multi-buffer=normalize-loops=true --canonicalize | FileCheck %s --check-prefix=FOLDED

// normalize-loops rewrites a loop that is not in ptoas form (step != 1, or lb
// not a constant >= 0) to lb = 0, step = 1 over the trip count, with
// iv = lb + k * step in the body, so the slot is exactly arith.remui %k, %cN.

!t = !pto.tile_buf<"vec", array<i64: 8, 16>, f32>

// CHECK-LABEL: func.func @lb1_step3
// CHECK-SAME:  (%[[SRC:.*]]: memref<64x16xf32>)
// CHECK-DAG:   %[[LB:.*]] = arith.constant 1 : index
// CHECK-DAG:   %[[STEP:.*]] = arith.constant 3 : index
// CHECK:       %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:  %[[TRIPS:.*]] = arith.constant 13 : index
// CHECK-NEXT:  %[[MB:.*]] = "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 8, 16>, f32>, 5 : i64>
// CHECK-NEXT:  scf.for %[[K:.*]] = %[[ZERO]] to %[[TRIPS]] step %[[ONE]] {
// CHECK-NEXT:    %[[C5:.*]] = arith.constant 5 : index
// CHECK-NEXT:    %[[SLOT:.*]] = arith.remui %[[K]], %[[C5]] : index
// CHECK-NEXT:    %[[SCALED:.*]] = arith.muli %[[K]], %[[STEP]] : index
// CHECK-NEXT:    %[[IV:.*]] = arith.addi %[[LB]], %[[SCALED]] : index
// CHECK-NEXT:    %[[T:.*]] = "pto.multi_tile_get"(%[[MB]], %[[SLOT]])
// CHECK-NEXT:    "pto.tload"(%[[SRC]], %[[IV]], %{{.*}}, %[[T]])
// CHECK-NEXT:    "pto.tstore"(%[[T]], %[[SRC]], %[[IV]], %{{.*}})
// CHECK-NEXT:  } {pto.pipeline_stages = 1 : i64}
// Canonicalize keeps the ptoas slot form of the normalized loop:
// FOLDED-LABEL: func.func @lb1_step3
// FOLDED:       scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// FOLDED:         arith.remui %[[K]], %{{.*}} : index
func.func @lb1_step3(%src: memref<64x16xf32>) {
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

// Dynamic bounds: trip count max(ceildiv(ub - lb, step), 0).
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME:  (%{{.*}}: memref<?x16xf32>, %[[LB:.*]]: index, %[[UB:.*]]: index, %[[STEP:.*]]: index)
// CHECK:       %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:  %[[SPAN:.*]] = arith.subi %[[UB]], %[[LB]] : index
// CHECK-NEXT:  %[[CEIL:.*]] = arith.ceildivsi %[[SPAN]], %[[STEP]] : index
// CHECK-NEXT:  %[[TRIPS:.*]] = arith.maxsi %[[CEIL]], %[[ZERO:.*]] : index
// CHECK-NEXT:  "pto.alloc_multi_tile"
// CHECK-NEXT:  scf.for %[[K:.*]] = %[[ZERO]] to %[[TRIPS]] step %[[ONE]] {
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    arith.remui %[[K]], %[[C2]] : index
// CHECK-NEXT:    %[[SCALED:.*]] = arith.muli %[[K]], %[[STEP]] : index
// CHECK-NEXT:    arith.addi %[[LB]], %[[SCALED]] : index
func.func @dynamic(%src: memref<?x16xf32>, %lb: index, %ub: index, %step: index) {
  %c0 = arith.constant 0 : index
  scf.for %i = %lb to %ub step %step {
    %t = "pto.alloc_tile"() : () -> !t
    "pto.tload"(%src, %i, %c0, %t) : (memref<?x16xf32>, index, index, !t) -> ()
    "pto.tstore"(%t, %src, %i, %c0) : (!t, memref<?x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}

// -----

!t = !pto.tile_buf<"vec", array<i64: 8, 16>, f32>

// Already in ptoas form (constant lb >= 0, step 1): left as it is.
// CHECK-LABEL: func.func @already_canonical
// CHECK:       scf.for %[[IV:.*]] = %[[LB:.*]] to %{{.*}} step %{{.*}} {
// CHECK-NEXT:    arith.constant 2 : index
// CHECK-NEXT:    arith.remui %[[IV]]
// CHECK-NOT:     arith.muli
func.func @already_canonical(%src: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c2 to %c8 step %c1 {
    %t = "pto.alloc_tile"() : () -> !t
    "pto.tload"(%src, %i, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
    "pto.tstore"(%t, %src, %i, %c0) : (!t, memref<64x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}
