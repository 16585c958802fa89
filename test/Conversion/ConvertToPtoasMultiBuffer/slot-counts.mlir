// RUN: pto-opt %s --split-input-file --convert-to-ptoas-multi-buffer --verify-diagnostics | FileCheck %s

// N slots for N = 3, 4 and 16; N = 1 means "no buffering" and is left alone.

!t = !pto.tile_buf<"vec", array<i64: 16, 16>, f16>

// CHECK-LABEL: func.func @three
// CHECK:       %[[MB:.*]] = "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f16>, 3 : i64>
// CHECK-NEXT:  scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:    %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:    %[[SLOT:.*]] = arith.remui %[[IV]], %[[C3]] : index
// CHECK-NEXT:    "pto.multi_tile_get"(%[[MB]], %[[SLOT]])
// CHECK:       } {pto.pipeline_stages = 1 : i64}
func.func @three(%src: memref<64x16xf16>, %dst: memref<64x16xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %t = "pto.alloc_tile"() : () -> !t
    %row = arith.muli %i, %c16 : index
    "pto.tload"(%src, %row, %c0, %t) : (memref<64x16xf16>, index, index, !t) -> ()
    "pto.tstore"(%t, %dst, %row, %c0) : (!t, memref<64x16xf16>, index, index) -> ()
  } {pto.pipeline_stages = 3 : i64}
  return
}

// -----

!t = !pto.tile_buf<"vec", array<i64: 16, 16>, f16>

// CHECK-LABEL: func.func @four
// CHECK:       "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f16>, 4 : i64>
// CHECK-NEXT:  scf.for
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    arith.remui %{{.*}}, %[[C4]] : index
func.func @four(%src: memref<64x16xf16>, %dst: memref<64x16xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %t = "pto.alloc_tile"() : () -> !t
    %row = arith.muli %i, %c16 : index
    "pto.tload"(%src, %row, %c0, %t) : (memref<64x16xf16>, index, index, !t) -> ()
    "pto.tstore"(%t, %dst, %row, %c0) : (!t, memref<64x16xf16>, index, index) -> ()
  } {pto.pipeline_stages = 4 : i64}
  return
}

// -----

!t = !pto.tile_buf<"vec", array<i64: 16, 16>, f16>

// CHECK-LABEL: func.func @sixteen
// CHECK:       "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f16>, 16 : i64>
// CHECK-NEXT:  scf.for
// CHECK-NEXT:    %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT:    arith.remui %{{.*}}, %[[C16]] : index
// CHECK:       {pto.pipeline_stages = 1 : i64}
func.func @sixteen(%src: memref<64x16xf16>, %dst: memref<64x16xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %t = "pto.alloc_tile"() : () -> !t
    %row = arith.muli %i, %c16 : index
    "pto.tload"(%src, %row, %c0, %t) : (memref<64x16xf16>, index, index, !t) -> ()
    "pto.tstore"(%t, %dst, %row, %c0) : (!t, memref<64x16xf16>, index, index) -> ()
  } {pto.pipeline_stages = 16 : i64}
  return
}

// -----

!t = !pto.tile_buf<"vec", array<i64: 16, 16>, f16>

// N = 1: already handled, nothing to buffer, no remark.
// CHECK-LABEL: func.func @one
// CHECK-NOT:   pto.alloc_multi_tile
// CHECK:       "pto.alloc_tile"
// CHECK:       {pto.pipeline_stages = 1 : i64}
func.func @one(%src: memref<64x16xf16>, %dst: memref<64x16xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %t = "pto.alloc_tile"() : () -> !t
    %row = arith.muli %i, %c16 : index
    "pto.tload"(%src, %row, %c0, %t) : (memref<64x16xf16>, index, index, !t) -> ()
    "pto.tstore"(%t, %dst, %row, %c0) : (!t, memref<64x16xf16>, index, index) -> ()
  } {pto.pipeline_stages = 1 : i64}
  return
}

// -----

!t = !pto.tile_buf<"vec", array<i64: 16, 16>, f16>

// More than 16 slots is more than a multi-tile buffer holds: 16, and a remark.
// CHECK-LABEL: func.func @seventeen
// CHECK:       "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f16>, 16 : i64>
// CHECK:       {pto.pipeline_stages = 1 : i64}
func.func @seventeen(%src: memref<64x16xf16>, %dst: memref<64x16xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  // expected-remark@+1 {{pipeline loop asks for 17 slots but a multi-tile buffer holds at most 16; using 16}}
  scf.for %i = %c0 to %c4 step %c1 {
    %t = "pto.alloc_tile"() : () -> !t
    %row = arith.muli %i, %c16 : index
    "pto.tload"(%src, %row, %c0, %t) : (memref<64x16xf16>, index, index, !t) -> ()
    "pto.tstore"(%t, %dst, %row, %c0) : (!t, memref<64x16xf16>, index, index) -> ()
  } {pto.pipeline_stages = 17 : i64}
  return
}
