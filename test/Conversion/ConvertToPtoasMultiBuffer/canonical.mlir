// RUN: pto-opt %s --convert-to-ptoas-multi-buffer --verify-diagnostics | FileCheck %s

// The canonical ptoas form: lb = 0, step = 1, N = 2. Every iteration-local
// tile gets its own 2-slot buffer hoisted before the loop, all read through
// one slot value that is exactly `arith.remui %iv, %c2`.

!t = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// CHECK-LABEL: func.func @load_exp_store
// CHECK-SAME: (%[[SRC:.*]]: memref<128x16xf32>, %[[DST:.*]]: memref<128x16xf32>)
// CHECK:       %[[C0:.*]] = arith.constant 0 : index
// CHECK:       %[[IN:.*]] = "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>
// CHECK-NEXT:  %[[OUT:.*]] = "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>
// CHECK-NEXT:  scf.for %[[IV:.*]] = %[[C0]] to %{{.*}} step %{{.*}} {
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[SLOT:.*]] = arith.remui %[[IV]], %[[C2]] : index
// CHECK-NEXT:    %[[T_IN:.*]] = "pto.multi_tile_get"(%[[IN]], %[[SLOT]])
// CHECK-NEXT:    %[[T_OUT:.*]] = "pto.multi_tile_get"(%[[OUT]], %[[SLOT]])
// CHECK-NEXT:    %[[ROW:.*]] = arith.muli
// CHECK-NEXT:    "pto.tload"(%[[SRC]], %[[ROW]], %[[C0]], %[[T_IN]])
// CHECK-NEXT:    "pto.texp"(%[[T_IN]], %[[T_OUT]])
// CHECK-NEXT:    "pto.tstore"(%[[T_OUT]], %[[DST]], %[[ROW]], %[[C0]])
// CHECK-NEXT:  } {pto.pipeline_stages = 1 : i64}
// CHECK-NOT:   pto.alloc_tile
func.func @load_exp_store(%src: memref<128x16xf32>, %dst: memref<128x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %in = "pto.alloc_tile"() : () -> !t
    %out = "pto.alloc_tile"() : () -> !t
    %row = arith.muli %i, %c16 : index
    "pto.tload"(%src, %row, %c0, %in) : (memref<128x16xf32>, index, index, !t) -> ()
    "pto.texp"(%in, %out) : (!t, !t) -> ()
    "pto.tstore"(%out, %dst, %row, %c0) : (!t, memref<128x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}

// A loop without the attribute is not a pipeline loop: nothing changes.
// CHECK-LABEL: func.func @not_a_pipeline_loop
// CHECK-NOT:   pto.alloc_multi_tile
// CHECK:       "pto.alloc_tile"
func.func @not_a_pipeline_loop(%src: memref<128x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %in = "pto.alloc_tile"() : () -> !t
    "pto.tload"(%src, %i, %c0, %in) : (memref<128x16xf32>, index, index, !t) -> ()
  }
  return
}

// --verbose reports the conversions made too, not only the ones declined.
// RUN: pto-opt %s --convert-to-ptoas-multi-buffer --verbose -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERBOSE
// VERBOSE: canonical.mlir:30:3: remark: pipeline loop converted to 2-slot multi-buffering of 2 tile(s)
// VERBOSE-NOT: remark
