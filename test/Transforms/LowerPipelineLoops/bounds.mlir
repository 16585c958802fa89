// RUN: pto-opt %s --split-input-file --pto-lower-pipeline-loops --verify-diagnostics | FileCheck %s
// RUN: pto-opt %s --split-input-file --pto-lower-pipeline-loops=max-ops=20 -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT

// Replication is bounded: no more copies than iterations, at most 16, and no
// module growth past max-ops.

!t = !pto.tile_buf<"vec", array<i64: 4, 16>, f32>

// 3 iterations asking for 4 stages: 3 copies, straight-line (one trip of
// the unrolled loop is inlined).
// CHECK-LABEL: func.func @more_stages_than_iterations
// CHECK-NOT:   scf.for
// CHECK-COUNT-3: "pto.tload"
// CHECK-NOT:   scf.for
func.func @more_stages_than_iterations(%src: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c3 step %c1 {
    %t = "pto.alloc_tile"() : () -> !t
    "pto.tload"(%src, %i, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
  } {pto.pipeline_stages = 4 : i64}
  return
}

// -----

!t = !pto.tile_buf<"vec", array<i64: 4, 16>, f32>

// A dynamic trip count asking for 2^31 stages: 16 copies.
// CHECK-LABEL: func.func @huge_stage_count
// CHECK:       scf.for
// CHECK-COUNT-16: "pto.tload"
// CHECK:       } {pto.pipeline_stages = 1 : i64}
// LIMIT: remark: pipeline loop is not replicated: 16 copies of its 3 ops would grow the module to {{[0-9]+}} ops, over the limit of 20 (max-ops)
func.func @huge_stage_count(%src: memref<64x16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark@+1 {{pipeline loop asks for 2147483647 stages; replicating its body 16 times, the most it makes}}
  scf.for %i = %c0 to %n step %c1 {
    %t = "pto.alloc_tile"() : () -> !t
    "pto.tload"(%src, %i, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
  } {pto.pipeline_stages = 2147483647 : i64}
  return
}

// -----

// A constant step that is not positive: the loop never ends (step 0) or
// is undefined; the upstream unroller aborted the process on it (found by
// the fuzzer). Left as it is, with a remark.
// CHECK-LABEL: func.func @step_zero
// CHECK: scf.for {{.*}} step %c0 {
// CHECK: } {pto.pipeline_stages = 2 : i64}
func.func @step_zero(%src: memref<64x16xf32>, %ub: index) {
  %c0 = arith.constant 0 : index
  // expected-remark@+1 {{pipeline loop is not replicated: its step is 0; scf.for steps must be positive}}
  scf.for %i = %c0 to %ub step %c0 {
    %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
    "pto.tload"(%src, %c0, %c0, %t) : (memref<64x16xf32>, index, index, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}
