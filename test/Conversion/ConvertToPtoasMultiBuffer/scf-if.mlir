// RUN: pto-opt %s --split-input-file --convert-to-ptoas-multi-buffer --verify-diagnostics | FileCheck %s

!t = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// A tile defined in the body but used only inside an scf.if, where it is
// written before it is read: iteration-local, multi-buffered.
// CHECK-LABEL: func.func @used_only_in_if
// CHECK:       %[[MB:.*]] = "pto.alloc_multi_tile"
// CHECK:       scf.for
// CHECK:         %[[T:.*]] = "pto.multi_tile_get"(%[[MB]]
// CHECK:         scf.if
// CHECK-NEXT:      "pto.tload"(%{{.*}}, %{{.*}}, %{{.*}}, %[[T]])
// CHECK:       {pto.pipeline_stages = 1 : i64}
func.func @used_only_in_if(%src: memref<64x16xf32>, %dst: memref<64x16xf32>, %cond: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %t = "pto.alloc_tile"() : () -> !t
    scf.if %cond {
      "pto.tload"(%src, %i, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
      "pto.tstore"(%t, %dst, %i, %c0) : (!t, memref<64x16xf32>, index, index) -> ()
    }
  } {pto.pipeline_stages = 2 : i64}
  return
}

// -----

!t = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// A tile defined inside the scf.if is behind a boundary: not the loop's to
// convert.
// CHECK-LABEL: func.func @defined_in_if
// CHECK-NOT:   "pto.alloc_multi_tile"
func.func @defined_in_if(%src: memref<64x16xf32>, %dst: memref<64x16xf32>, %cond: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-remark@+1 {{pipeline loop is not converted: no tile in its body is eligible for multi-buffering}}
  scf.for %i = %c0 to %c4 step %c1 {
    scf.if %cond {
      // expected-remark@+1 {{tile is not multi-buffered: it is defined inside a nested 'scf.if', not directly in the pipeline loop's body}}
      %t = "pto.alloc_tile"() : () -> !t
      "pto.tload"(%src, %i, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
      "pto.tstore"(%t, %dst, %i, %c0) : (!t, memref<64x16xf32>, index, index) -> ()
    }
  } {pto.pipeline_stages = 2 : i64}
  return
}
