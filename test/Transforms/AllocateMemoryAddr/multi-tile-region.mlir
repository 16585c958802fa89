// RUN: pto-opt %s --split-input-file --pto-allocate-memory-addr | FileCheck %s

// A multi-tile region takes N * stride contiguous bytes, stride = the slot's
// bytes aligned up for the space (vec: 32). A 10x10 f16 slot is 200 bytes,
// stride 224, so 3 slots take 672 bytes. The region lives for the whole loop
// that uses it: the iteration-local %t, defined after the slot's last use in
// the body, still starts at 672. After the loop the region is dead and %post
// reuses its address; %pre, dead before the loop, shares with the region.

!s = !pto.tile_buf<"vec", array<i64: 10, 10>, f16>
!mb = !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 10, 10>, f16>, 3 : i64>

// CHECK-LABEL: func.func @vec_region
// CHECK-SAME: pto.memory_usage = {vec = 872 : i64}
// CHECK: %[[PRE0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: "pto.alloc_tile"(%[[PRE0]])
// CHECK: %[[MB0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[MB:.*]] = "pto.alloc_multi_tile"(%[[MB0]])
// CHECK: scf.for
// CHECK: "pto.multi_tile_get"(%[[MB]]
// CHECK: %[[T0:.*]] = arith.constant 672 : i64
// CHECK-NEXT: "pto.alloc_tile"(%[[T0]])
// CHECK: }
// CHECK: %[[POST0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: "pto.alloc_tile"(%[[POST0]])
func.func @vec_region(%src: memref<64x64xf16>, %dst: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %pre = "pto.alloc_tile"() : () -> !s
  "pto.tload"(%src, %c0, %c0, %pre) : (memref<64x64xf16>, index, index, !s) -> ()
  "pto.tstore"(%pre, %dst, %c0, %c0) : (!s, memref<64x64xf16>, index, index) -> ()
  %mb = "pto.alloc_multi_tile"() : () -> !mb
  scf.for %i = %c0 to %c8 step %c1 {
    %slot = arith.remui %i, %c3 : index
    %x = "pto.multi_tile_get"(%mb, %slot) : (!mb, index) -> !s
    "pto.tload"(%src, %i, %c0, %x) : (memref<64x64xf16>, index, index, !s) -> ()
    "pto.tstore"(%x, %dst, %i, %c0) : (!s, memref<64x64xf16>, index, index) -> ()
    %t = "pto.alloc_tile"() : () -> !s
    "pto.tload"(%src, %i, %c0, %t) : (memref<64x64xf16>, index, index, !s) -> ()
    "pto.tstore"(%t, %dst, %i, %c0) : (!s, memref<64x64xf16>, index, index) -> ()
  }
  %post = "pto.alloc_tile"() : () -> !s
  "pto.tload"(%src, %c0, %c0, %post) : (memref<64x64xf16>, index, index, !s) -> ()
  "pto.tstore"(%post, %dst, %c0, %c0) : (!s, memref<64x64xf16>, index, index) -> ()
  return
}

// -----

// In acc the alignment is 512: a 10x10 f32 slot (400 bytes) has stride 512,
// two slots take 1024 bytes, and the tile live next to them starts at 1024.

!l = !pto.tile_buf<"left", array<i64: 10, 16>, f16>
!r = !pto.tile_buf<"right", array<i64: 16, 10>, f16>
!a = !pto.tile_buf<"acc", array<i64: 10, 10>, f32>
!amb = !pto.multi_tile_buf<!pto.tile_buf<"acc", array<i64: 10, 10>, f32>, 2 : i64>

// CHECK-LABEL: func.func @acc_region
// CHECK-SAME: pto.memory_usage = {acc = 1424 : i64}
// CHECK: %[[MB0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: "pto.alloc_multi_tile"(%[[MB0]]) : (i64) -> !pto.multi_tile_buf<!pto.tile_buf<"acc"
// CHECK: %[[KEEP0:.*]] = arith.constant 1024 : i64
// CHECK-NEXT: "pto.alloc_tile"(%[[KEEP0]]) : (i64) -> !pto.tile_buf<"acc"
func.func @acc_region(%lhs: !l, %rhs: !r, %dst: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %mb = "pto.alloc_multi_tile"() : () -> !amb
  %keep = "pto.alloc_tile"() : () -> !a
  "pto.tmatmul"(%lhs, %rhs, %keep) : (!l, !r, !a) -> ()
  scf.for %i = %c0 to %c8 step %c1 {
    %slot = arith.remui %i, %c2 : index
    %x = "pto.multi_tile_get"(%mb, %slot) : (!amb, index) -> !a
    "pto.tmatmul"(%lhs, %rhs, %x) : (!l, !r, !a) -> ()
    "pto.tadd"(%x, %keep, %x) : (!a, !a, !a) -> ()
    "pto.tstore"(%x, %dst, %c0, %c0) : (!a, memref<64x64xf32>, index, index) -> ()
  }
  return
}

// -----

// A region defined inside the loop it is used in still spans the whole loop:
// the tile defined after its slot's last use gets its own range.

!s = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
!mb = !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>

// CHECK-LABEL: func.func @region_in_loop
// CHECK-SAME: pto.memory_usage = {vec = 3072 : i64}
// CHECK: scf.for
// CHECK: arith.constant 0 : i64
// CHECK-NEXT: "pto.alloc_multi_tile"
// CHECK: arith.constant 2048 : i64
// CHECK-NEXT: "pto.alloc_tile"
func.func @region_in_loop(%src: memref<64x64xf32>, %dst: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %mb = "pto.alloc_multi_tile"() : () -> !mb
    %slot = arith.remui %i, %c2 : index
    %x = "pto.multi_tile_get"(%mb, %slot) : (!mb, index) -> !s
    "pto.tload"(%src, %i, %c0, %x) : (memref<64x64xf32>, index, index, !s) -> ()
    "pto.tstore"(%x, %dst, %i, %c0) : (!s, memref<64x64xf32>, index, index) -> ()
    %t = "pto.alloc_tile"() : () -> !s
    "pto.tload"(%src, %i, %c0, %t) : (memref<64x64xf32>, index, index, !s) -> ()
    "pto.tstore"(%t, %dst, %i, %c0) : (!s, memref<64x64xf32>, index, index) -> ()
  }
  return
}
