// RUN: pto-opt %s --pto-lower-pipeline-loops --verify-diagnostics | FileCheck %s

// A dynamic trip count: the unrolled loop runs the largest multiple of N
// iterations, a remainder loop the rest. ub is first clamped to max(ub, lb)
// because the upstream unroller's unsigned trip-count arithmetic wraps when
// ub < lb (its remainder loop would then run iterations the original loop
// never ran).

!t = !pto.tile_buf<"vec", array<i64: 8, 16>, f32>

// CHECK-LABEL: func.func @dynamic
// CHECK-SAME:  (%{{.*}}: memref<?x16xf32>, %{{.*}}: memref<?x16xf32>, %[[LB:.*]]: index, %[[UB:.*]]: index, %[[STEP:.*]]: index)
// CHECK:       %[[CLAMPED:.*]] = arith.maxsi %[[UB]], %[[LB]] : index
// CHECK:       scf.for %{{.*}} = %[[LB]] to %[[SPLIT:.*]] step %{{.*}} {
// CHECK-COUNT-2: "pto.alloc_tile"
// CHECK:       } {pto.pipeline_stages = 1 : i64}
// CHECK-NEXT:  scf.for %{{.*}} = %[[SPLIT]] to %[[CLAMPED]] step %[[STEP]] {
// CHECK-NEXT:    "pto.alloc_tile"
// CHECK:       } {pto.pipeline_stages = 1 : i64}
func.func @dynamic(%src: memref<?x16xf32>, %dst: memref<?x16xf32>, %lb: index, %ub: index, %step: index) {
  %c0 = arith.constant 0 : index
  scf.for %i = %lb to %ub step %step {
    %t = "pto.alloc_tile"() : () -> !t
    "pto.tload"(%src, %i, %c0, %t) : (memref<?x16xf32>, index, index, !t) -> ()
    "pto.tstore"(%t, %dst, %i, %c0) : (!t, memref<?x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}
