// RUN: pto-opt %s --convert-to-ptoas-multi-buffer --verify-diagnostics | FileCheck %s --check-prefix=DEFAULT
// RUN: pto-opt %s --convert-to-ptoas-multi-buffer='spaces=vec,mat,acc' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARKS-ACC
// RUN: pto-opt %s --convert-to-ptoas-multi-buffer='spaces=vec,mat,acc' 2>/dev/null | FileCheck %s --check-prefix=ACC
// RUN: pto-opt %s --convert-to-ptoas-multi-buffer{spaces=mat} 2>/dev/null | FileCheck %s --check-prefix=MAT
// RUN: not pto-opt %s --convert-to-ptoas-multi-buffer='spaces=vec,l1' 2>&1 | FileCheck %s --check-prefix=BAD

// `spaces` chooses which memory spaces are multi-buffered (default vec,mat).
// left/right (L0A/L0B) and acc (L0C) tiles are left alone unless asked for.

!mat = !pto.tile_buf<"mat", array<i64: 16, 16>, f16>
!l = !pto.tile_buf<"left", array<i64: 16, 16>, f16>
!r = !pto.tile_buf<"right", array<i64: 16, 16>, f16>
!acc = !pto.tile_buf<"acc", array<i64: 16, 16>, f32>
!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// DEFAULT-LABEL: func.func @matmul_tiles
// DEFAULT-COUNT-2: "pto.alloc_multi_tile"
// DEFAULT-NOT:   "pto.alloc_multi_tile"
// DEFAULT:       scf.for
// DEFAULT:         "pto.alloc_tile"() : () -> !pto.tile_buf<"left"
// DEFAULT:         "pto.alloc_tile"() : () -> !pto.tile_buf<"right"
// DEFAULT:         "pto.alloc_tile"() : () -> !pto.tile_buf<"acc"

// REMARKS-ACC-NOT: space "acc"
// REMARKS-ACC:     remark: tile is not multi-buffered: its space "left" is not in spaces=vec,mat,acc
// REMARKS-ACC:     remark: tile is not multi-buffered: its space "right" is not in spaces=vec,mat,acc
// REMARKS-ACC-NOT: space "acc"

// ACC-LABEL: func.func @matmul_tiles
// ACC:       "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<!pto.tile_buf<"mat"
// ACC-NEXT:  "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<!pto.tile_buf<"acc", array<i64: 16, 16>, f32>, 2 : i64>
// ACC-NEXT:  "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<!pto.tile_buf<"vec"
// ACC-NEXT:  scf.for

// MAT-LABEL: func.func @matmul_tiles
// MAT:       "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<!pto.tile_buf<"mat"
// MAT-NOT:   "pto.alloc_multi_tile"

// BAD: option 'spaces': 'l1' is not one of vec, mat, left, right, acc, bias
func.func @matmul_tiles(%a: memref<64x16xf16>, %c: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %amat = "pto.alloc_tile"() : () -> !mat
    // expected-remark@+1 {{its space "left" is not in spaces=vec,mat}}
    %lhs = "pto.alloc_tile"() : () -> !l
    // expected-remark@+1 {{its space "right" is not in spaces=vec,mat}}
    %rhs = "pto.alloc_tile"() : () -> !r
    // expected-remark@+1 {{its space "acc" is not in spaces=vec,mat}}
    %acc = "pto.alloc_tile"() : () -> !acc
    %out = "pto.alloc_tile"() : () -> !v
    %row = arith.muli %i, %c16 : index
    "pto.tload"(%a, %row, %c0, %amat) : (memref<64x16xf16>, index, index, !mat) -> ()
    "pto.tmov"(%amat, %lhs) : (!mat, !l) -> ()
    "pto.tmov"(%amat, %rhs) : (!mat, !r) -> ()
    "pto.tmatmul"(%lhs, %rhs, %acc) : (!l, !r, !acc) -> ()
    "pto.tmov"(%acc, %out) : (!acc, !v) -> ()
    "pto.tstore"(%out, %c, %row, %c0) : (!v, memref<64x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}
