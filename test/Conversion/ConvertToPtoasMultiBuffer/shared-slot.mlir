// RUN: pto-opt %s --convert-to-ptoas-multi-buffer --verify-diagnostics | FileCheck %s

// All tiles of one loop rotate together: one slot value feeds every
// multi_tile_get, so tile k of iteration i always pairs with tile k' of the
// same iteration.

!t = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// CHECK-LABEL: func.func @two_inputs
// CHECK:       %[[A:.*]] = "pto.alloc_multi_tile"
// CHECK-NEXT:  %[[B:.*]] = "pto.alloc_multi_tile"
// CHECK-NEXT:  %[[S:.*]] = "pto.alloc_multi_tile"
// CHECK-NEXT:  scf.for
// CHECK-NEXT:    arith.constant 2 : index
// CHECK-NEXT:    %[[SLOT:.*]] = arith.remui
// CHECK-NOT:     arith.remui
// CHECK:         "pto.multi_tile_get"(%[[A]], %[[SLOT]])
// CHECK-NEXT:    "pto.multi_tile_get"(%[[B]], %[[SLOT]])
// CHECK-NEXT:    "pto.multi_tile_get"(%[[S]], %[[SLOT]])
func.func @two_inputs(%x: memref<64x16xf32>, %y: memref<64x16xf32>, %z: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %a = "pto.alloc_tile"() : () -> !t
    %b = "pto.alloc_tile"() : () -> !t
    %s = "pto.alloc_tile"() : () -> !t
    %row = arith.muli %i, %c16 : index
    "pto.tload"(%x, %row, %c0, %a) : (memref<64x16xf32>, index, index, !t) -> ()
    "pto.tload"(%y, %row, %c0, %b) : (memref<64x16xf32>, index, index, !t) -> ()
    "pto.tadd"(%a, %b, %s) : (!t, !t, !t) -> ()
    "pto.tstore"(%s, %z, %row, %c0) : (!t, memref<64x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}
