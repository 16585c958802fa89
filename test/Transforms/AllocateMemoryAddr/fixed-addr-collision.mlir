// RUN: pto-opt %s --pto-allocate-memory-addr --verify-diagnostics
// RUN: pto-opt %s --pto-allocate-memory-addr 2>&1 | FileCheck %s

// Two user-placed buffers that overlap while both are live: a warning at the
// later one naming both, with a note at the other (the overlap may be
// deliberate, one tile viewed through another). Both keep their addresses,
// and what the pass places stays clear of the union of the two.

// CHECK: fixed-addr-collision.mlir:[[@LINE+16]]:8: warning: buffer at fixed addr 512 (1024 bytes) overlaps the buffer at fixed addr 0 (1024 bytes) in space "vec" while both are live; both keep their addresses
// CHECK: fixed-addr-collision.mlir:[[@LINE+12]]:8: note: the other buffer, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>, is allocated here
// CHECK-LABEL: func.func @collide
// CHECK-SAME: pto.memory_usage = {vec = 2560 : i64}
// CHECK: %[[C1536:.*]] = arith.constant 1536 : i64
// CHECK-NEXT: "pto.alloc_tile"(%[[C1536]])

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
func.func @collide(%src: memref<64x64xf32>, %dst: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %at0 = arith.constant 0 : i64
  %at512 = arith.constant 512 : i64
  // expected-note@+1 {{the other buffer, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>, is allocated here}}
  %a = "pto.alloc_tile"(%at0) : (i64) -> !v
  "pto.tload"(%src, %c0, %c0, %a) : (memref<64x64xf32>, index, index, !v) -> ()
  // expected-warning@+1 {{buffer at fixed addr 512 (1024 bytes) overlaps the buffer at fixed addr 0 (1024 bytes) in space "vec" while both are live; both keep their addresses}}
  %b = "pto.alloc_tile"(%at512) : (i64) -> !v
  "pto.tadd"(%a, %a, %b) : (!v, !v, !v) -> ()
  // %a is dead here; %b still holds [512, 1536): %c goes above it
  %c = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %c) : (memref<64x64xf32>, index, index, !v) -> ()
  "pto.tadd"(%b, %c, %c) : (!v, !v, !v) -> ()
  "pto.tstore"(%c, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  return
}
