// RUN: pto-opt %s --split-input-file --pto-lower-pipeline-loops --verify-diagnostics | FileCheck %s
// RUN: pto-opt %s --split-input-file --pto-lower-pipeline-loops --verbose -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERBOSE
// VERBOSE: remark: pipeline loop body replicated 2 times
// VERBOSE: remark: pipeline loop body replicated 2 times
// VERBOSE: remark: pipeline loop body replicated 3 times

// Replication unrolls a pipeline loop by N with the upstream unroller; each
// copy of the body gets its own tiles, and every loop produced ends at
// pto.pipeline_stages = 1.

!t = !pto.tile_buf<"vec", array<i64: 8, 16>, f32>

// Trip count 8, N = 2: divisible, no remainder.
// CHECK-LABEL: func.func @divisible
// Both copies' tiles are allocated at the top of the body, so an address
// allocator keeps them apart and copy 1's load can overlap copy 0's work.
// CHECK:       scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %[[STEP2:.*]] {
// CHECK-NEXT:    %[[T0:.*]] = "pto.alloc_tile"
// CHECK-NEXT:    %[[T1:.*]] = "pto.alloc_tile"
// CHECK-NEXT:    "pto.tload"(%{{.*}}, %[[I]], %{{.*}}, %[[T0]])
// CHECK-NEXT:    "pto.tstore"(%[[T0]], %{{.*}}, %[[I]], %{{.*}})
// CHECK:         %[[I1:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK-NEXT:    "pto.tload"(%{{.*}}, %[[I1]], %{{.*}}, %[[T1]])
// CHECK-NEXT:    "pto.tstore"(%[[T1]], %{{.*}}, %[[I1]], %{{.*}})
// CHECK-NEXT:  } {pto.pipeline_stages = 1 : i64}
// CHECK-NOT:   "pto.alloc_tile"
// CHECK:       return
func.func @divisible(%src: memref<64x16xf32>, %dst: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %t = "pto.alloc_tile"() : () -> !t
    "pto.tload"(%src, %i, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
    "pto.tstore"(%t, %dst, %i, %c0) : (!t, memref<64x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}

// -----

!t = !pto.tile_buf<"vec", array<i64: 8, 16>, f32>

// Trip count 7, N = 2: 3 double iterations (0..6 step 2), then the last
// iteration (iv = 6) on its own.
// CHECK-LABEL: func.func @not_divisible
// CHECK:       %[[C6:.*]] = arith.constant 6 : index
// CHECK:       scf.for %{{.*}} = %{{.*}} to %[[C6]] step %{{.*}} {
// CHECK-COUNT-2: "pto.alloc_tile"
// CHECK:       } {pto.pipeline_stages = 1 : i64}
// CHECK-NEXT:  %[[T:.*]] = "pto.alloc_tile"
// CHECK-NEXT:  "pto.tload"(%{{.*}}, %[[C6]], %{{.*}}, %[[T]])
// CHECK-NEXT:  "pto.tstore"(%[[T]], %{{.*}}, %[[C6]], %{{.*}})
// CHECK-NEXT:  return
func.func @not_divisible(%src: memref<64x16xf32>, %dst: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  scf.for %i = %c0 to %c7 step %c1 {
    %t = "pto.alloc_tile"() : () -> !t
    "pto.tload"(%src, %i, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
    "pto.tstore"(%t, %dst, %i, %c0) : (!t, memref<64x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}

// -----

!t = !pto.tile_buf<"vec", array<i64: 8, 16>, f32>

// Trip count 11, N = 3: 3 triple iterations (0..9 step 3), then a remainder
// loop of 2 iterations, also at pipeline_stages = 1.
// CHECK-LABEL: func.func @three_with_remainder_loop
// CHECK:       scf.for %{{.*}} = %{{.*}} to %[[C9:.*]] step %{{.*}} {
// CHECK-COUNT-3: "pto.alloc_tile"
// CHECK:       } {pto.pipeline_stages = 1 : i64}
// CHECK-NEXT:  scf.for %{{.*}} = %[[C9]] to %{{.*}} step %{{.*}} {
// CHECK-NEXT:    "pto.alloc_tile"
// CHECK:       } {pto.pipeline_stages = 1 : i64}
func.func @three_with_remainder_loop(%src: memref<64x16xf32>, %dst: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c11 = arith.constant 11 : index
  scf.for %i = %c0 to %c11 step %c1 {
    %t = "pto.alloc_tile"() : () -> !t
    "pto.tload"(%src, %i, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
    "pto.tstore"(%t, %dst, %i, %c0) : (!t, memref<64x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 3 : i64}
  return
}
