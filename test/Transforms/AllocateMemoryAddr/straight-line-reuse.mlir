// RUN: pto-opt %s --split-input-file --pto-allocate-memory-addr | FileCheck %s

// Buffers whose lifetimes do not overlap share an address: each tile here is
// dead (last used) before the next one is defined.

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// CHECK-LABEL: func.func @chain
// CHECK-SAME: attributes {pto.memory_usage = {vec = 1024 : i64}}
// CHECK: %[[A0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[A:.*]] = "pto.alloc_tile"(%[[A0]]) : (i64) -> !pto.tile_buf
// CHECK: %[[B0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[B:.*]] = "pto.alloc_tile"(%[[B0]]) : (i64) -> !pto.tile_buf
// CHECK: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[C:.*]] = "pto.alloc_tile"(%[[C0]]) : (i64) -> !pto.tile_buf
func.func @chain(%src: memref<64x64xf32>, %dst: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %a = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %a) : (memref<64x64xf32>, index, index, !v) -> ()
  "pto.tstore"(%a, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  %b = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %b) : (memref<64x64xf32>, index, index, !v) -> ()
  "pto.tstore"(%b, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  %c = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %c) : (memref<64x64xf32>, index, index, !v) -> ()
  "pto.tstore"(%c, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  return
}

// -----

// A dead buffer's range is reused while another buffer is still live:
// %keep holds [1024, 2048) throughout, %first dies, %second takes its place.

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// CHECK-LABEL: func.func @hole
// CHECK-SAME: pto.memory_usage = {vec = 2048 : i64}
// CHECK: arith.constant 0 : i64
// CHECK-NEXT: %[[FIRST:.*]] = "pto.alloc_tile"
// CHECK: arith.constant 1024 : i64
// CHECK-NEXT: %[[KEEP:.*]] = "pto.alloc_tile"
// CHECK: arith.constant 0 : i64
// CHECK-NEXT: %[[SECOND:.*]] = "pto.alloc_tile"
// CHECK: "pto.tadd"(%[[SECOND]], %[[KEEP]], %[[KEEP]])
func.func @hole(%src: memref<64x64xf32>, %dst: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %first = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %first) : (memref<64x64xf32>, index, index, !v) -> ()
  %keep = "pto.alloc_tile"() : () -> !v
  "pto.texp"(%first, %keep) : (!v, !v) -> ()
  %second = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %second) : (memref<64x64xf32>, index, index, !v) -> ()
  "pto.tadd"(%second, %keep, %keep) : (!v, !v, !v) -> ()
  "pto.tstore"(%keep, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  return
}

// -----

// Best fit: of the two holes left at the point %mid is defined (1024 bytes
// at 0 and 512 bytes at 1536), the 512-byte tile takes the smaller one.

!big = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
!small = !pto.tile_buf<"vec", array<i64: 8, 16>, f32>

// CHECK-LABEL: func.func @best_fit
// CHECK-SAME: pto.memory_usage = {vec = 2560 : i64}
// CHECK: arith.constant 0 : i64
// CHECK-NEXT: "pto.alloc_tile"{{.*}} -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
// CHECK: arith.constant 1024 : i64
// CHECK-NEXT: "pto.alloc_tile"{{.*}} -> !pto.tile_buf<"vec", array<i64: 8, 16>, f32>
// CHECK: arith.constant 1536 : i64
// CHECK-NEXT: "pto.alloc_tile"{{.*}} -> !pto.tile_buf<"vec", array<i64: 8, 16>, f32>
// CHECK: arith.constant 2048 : i64
// CHECK-NEXT: "pto.alloc_tile"{{.*}} -> !pto.tile_buf<"vec", array<i64: 8, 16>, f32>
// CHECK: arith.constant 1536 : i64
// CHECK-NEXT: %[[MID:.*]] = "pto.alloc_tile"{{.*}} -> !pto.tile_buf<"vec", array<i64: 8, 16>, f32>
// CHECK: "pto.tload"({{.*}}, %[[MID]])
func.func @best_fit(%src: memref<64x64xf32>, %dst: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %x = "pto.alloc_tile"() : () -> !big
  "pto.tload"(%src, %c0, %c0, %x) : (memref<64x64xf32>, index, index, !big) -> ()
  %y = "pto.alloc_tile"() : () -> !small
  "pto.tload"(%src, %c0, %c0, %y) : (memref<64x64xf32>, index, index, !small) -> ()
  %z = "pto.alloc_tile"() : () -> !small
  "pto.tload"(%src, %c0, %c0, %z) : (memref<64x64xf32>, index, index, !small) -> ()
  %w = "pto.alloc_tile"() : () -> !small
  "pto.tload"(%src, %c0, %c0, %w) : (memref<64x64xf32>, index, index, !small) -> ()
  "pto.tstore"(%x, %dst, %c0, %c0) : (!big, memref<64x64xf32>, index, index) -> ()
  "pto.tstore"(%z, %dst, %c0, %c0) : (!small, memref<64x64xf32>, index, index) -> ()
  %mid = "pto.alloc_tile"() : () -> !small
  "pto.tload"(%src, %c0, %c0, %mid) : (memref<64x64xf32>, index, index, !small) -> ()
  "pto.tstore"(%mid, %dst, %c0, %c0) : (!small, memref<64x64xf32>, index, index) -> ()
  "pto.tstore"(%y, %dst, %c0, %c0) : (!small, memref<64x64xf32>, index, index) -> ()
  "pto.tstore"(%w, %dst, %c0, %c0) : (!small, memref<64x64xf32>, index, index) -> ()
  return
}
