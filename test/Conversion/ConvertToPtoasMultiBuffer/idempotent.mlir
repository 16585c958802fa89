// RUN: pto-opt %s --convert-to-ptoas-multi-buffer 2>/dev/null > %t.once.mlir
// RUN: pto-opt %s --convert-to-ptoas-multi-buffer --convert-to-ptoas-multi-buffer 2>/dev/null > %t.twice.mlir
// RUN: pto-opt %t.once.mlir --convert-to-ptoas-multi-buffer 2>/dev/null > %t.again.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// RUN: diff %t.once.mlir %t.again.mlir
// RUN: FileCheck %s < %t.twice.mlir

// Running the pass twice equals running it once: converted loops are at
// pipeline_stages = 1, and loops it declined are declined again unchanged.

!t = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// CHECK-LABEL: func.func @k
// CHECK-COUNT-1: "pto.alloc_multi_tile"
// CHECK-NOT:     "pto.alloc_multi_tile"
// CHECK:         {pto.pipeline_stages = 1 : i64}
// CHECK:         {pto.pipeline_stages = 2 : i64}
func.func @k(%src: memref<64x16xf32>, %dst: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c2 {
    %t = "pto.alloc_tile"() : () -> !t
    "pto.tload"(%src, %i, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
    "pto.tstore"(%t, %dst, %i, %c0) : (!t, memref<64x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  scf.for %i = %c0 to %c4 step %c1 {
    %acc = "pto.alloc_tile"() : () -> !t
    "pto.tadd"(%acc, %acc, %acc) : (!t, !t, !t) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}
