// RUN: pto-opt %s | pto-opt | FileCheck %s
// RUN: pto-opt %s --mlir-print-op-generic | pto-opt | FileCheck %s

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// CHECK-LABEL: func.func @types
// CHECK-SAME: !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
// CHECK-SAME: !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>
func.func @types(%a: !v, %b: !pto.multi_tile_buf<!v, 2 : i64>) {
  return
}
