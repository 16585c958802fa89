// RUN: not pto-opt %s --split-input-file 2>/dev/null | FileCheck %s
// RUN: not pto-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

// Types spelled in comments are not types of the module: a comment may even
// hold one the parser would crash on, !pto.tile_buf<"vec", array<index: 16, 16>, f32>,
// or an invalid one, !pto.tile_buf<"vec", array<i64: 0, 16>, f32>, and mention
// pto.pipeline_stages on any op.

// CHECK-LABEL: func.func @ok
// CHECK: "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
func.func @ok() {
  %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>  // not !pto.tile_buf<"vec", array<index: 4, 4>, f32>
  return
}

// -----

// A real invalid type still fails, at its op, in the same file.
// BAD: types-in-comments.mlir:[[@LINE+2]]:8: error: invalid type !pto.tile_buf<"vec", array<i64: 0, 16>, f32>: shape dimensions must be positive, got 0x16
func.func @bad() {
  %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 0, 16>, f32>
  return
}
