// RUN: pto-opt %s --split-input-file --pto-allocate-memory-addr --verify-diagnostics
// RUN: not pto-opt %s --split-input-file --pto-allocate-memory-addr 2>&1 | FileCheck %s

// Two user-placed buffers that overlap while both are live clobber each
// other: an error at the later one naming both, with a note at the other,
// and exit code 1.

// CHECK: fixed-addr-collision.mlir:[[@LINE+12]]:8: error: buffer at fixed addr 512 (1024 bytes) overlaps the buffer at fixed addr 0 (1024 bytes) in space "vec" while both are live
// CHECK: fixed-addr-collision.mlir:[[@LINE+8]]:8: note: the other buffer, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>, is allocated here

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
func.func @collide(%src: memref<64x64xf32>, %dst: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %at0 = arith.constant 0 : i64
  %at512 = arith.constant 512 : i64
  // expected-note@+1 {{the other buffer, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>, is allocated here}}
  %a = "pto.alloc_tile"(%at0) : (i64) -> !v
  "pto.tload"(%src, %c0, %c0, %a) : (memref<64x64xf32>, index, index, !v) -> ()
  // expected-error@+1 {{buffer at fixed addr 512 (1024 bytes) overlaps the buffer at fixed addr 0 (1024 bytes) in space "vec" while both are live}}
  %b = "pto.alloc_tile"(%at512) : (i64) -> !v
  "pto.tadd"(%a, %a, %b) : (!v, !v, !v) -> ()
  "pto.tstore"(%b, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  return
}

// -----

// Overlapping user addresses whose lifetimes do not overlap are fine.
func.func @disjoint(%src: memref<64x64xf32>, %dst: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %at0 = arith.constant 0 : i64
  %at512 = arith.constant 512 : i64
  %a = "pto.alloc_tile"(%at0) : (i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  "pto.tload"(%src, %c0, %c0, %a) : (memref<64x64xf32>, index, index, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) -> ()
  "pto.tstore"(%a, %dst, %c0, %c0) : (!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, memref<64x64xf32>, index, index) -> ()
  %b = "pto.alloc_tile"(%at512) : (i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  "pto.tload"(%src, %c0, %c0, %b) : (memref<64x64xf32>, index, index, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) -> ()
  "pto.tstore"(%b, %dst, %c0, %c0) : (!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, memref<64x64xf32>, index, index) -> ()
  return
}
