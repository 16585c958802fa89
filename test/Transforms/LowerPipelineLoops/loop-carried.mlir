// RUN: pto-opt %s --split-input-file --pto-lower-pipeline-loops --verify-diagnostics | FileCheck %s

// A tile loop-carried through memory must stay one buffer shared by all
// copies of the body, or the value carried from one iteration to the next is
// lost. Defined before the loop, it is shared as it is.

!t = !pto.tile_buf<"vec", array<i64: 8, 16>, f32>

// CHECK-LABEL: func.func @running_sum
// CHECK:       %[[SUM:.*]] = "pto.alloc_tile"
// CHECK:       scf.for
// CHECK-NEXT:    %[[X0:.*]] = "pto.alloc_tile"
// CHECK-NEXT:    %[[X1:.*]] = "pto.alloc_tile"
// CHECK-NEXT:    "pto.tload"(%{{.*}}, %{{.*}}, %{{.*}}, %[[X0]])
// CHECK-NEXT:    "pto.tadd"(%[[SUM]], %[[X0]], %[[SUM]])
// CHECK:         "pto.tload"(%{{.*}}, %{{.*}}, %{{.*}}, %[[X1]])
// CHECK-NEXT:    "pto.tadd"(%[[SUM]], %[[X1]], %[[SUM]])
// CHECK:       } {pto.pipeline_stages = 1 : i64}
// CHECK:       "pto.tstore"(%[[SUM]]
func.func @running_sum(%src: memref<64x16xf32>, %dst: memref<8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %sum = "pto.alloc_tile"() : () -> !t
  scf.for %i = %c0 to %c8 step %c1 {
    %x = "pto.alloc_tile"() : () -> !t
    "pto.tload"(%src, %i, %c0, %x) : (memref<64x16xf32>, index, index, !t) -> ()
    "pto.tadd"(%sum, %x, %sum) : (!t, !t, !t) -> ()
  } {pto.pipeline_stages = 2 : i64}
  "pto.tstore"(%sum, %dst, %c0, %c0) : (!t, memref<8x16xf32>, index, index) -> ()
  return
}

// -----

!t = !pto.tile_buf<"vec", array<i64: 8, 16>, f32>

// The accumulator is allocated inside the body (one buffer for every
// iteration, docs/dialect.md): replication hoists it so the copies share it.
// CHECK-LABEL: func.func @accumulator_in_body
// CHECK:       %[[ACC:.*]] = "pto.alloc_tile"
// CHECK:       scf.for
// CHECK:         "pto.tadd"(%[[ACC]], %{{.*}}, %[[ACC]])
// CHECK:         "pto.tadd"(%[[ACC]], %{{.*}}, %[[ACC]])
// CHECK:       } {pto.pipeline_stages = 1 : i64}
func.func @accumulator_in_body(%src: memref<64x16xf32>, %dst: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %x = "pto.alloc_tile"() : () -> !t
    // expected-remark@+1 {{buffer is shared by all 2 copies of the loop body: it is loop-carried through memory: it is read by 'pto.tadd' before it is written in the iteration}}
    %acc = "pto.alloc_tile"() : () -> !t
    "pto.tload"(%src, %i, %c0, %x) : (memref<64x16xf32>, index, index, !t) -> ()
    "pto.tadd"(%acc, %x, %acc) : (!t, !t, !t) -> ()
    "pto.tstore"(%acc, %dst, %i, %c0) : (!t, memref<64x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}
