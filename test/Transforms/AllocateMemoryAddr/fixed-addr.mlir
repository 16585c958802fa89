// RUN: pto-opt %s --split-input-file --pto-allocate-memory-addr | FileCheck %s

// User-given constant addresses are kept and counted: the other buffers
// keep clear of them while they are live, and may use their range when not.

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// %f is fixed at 4096 for the whole function; %a goes below it. The usage
// counts %f's end.
// CHECK-LABEL: func.func @kept
// CHECK-SAME: pto.memory_usage = {vec = 5120 : i64}
// CHECK: %[[C4096:.*]] = arith.constant 4096 : i64
// CHECK-NEXT: %[[F:.*]] = "pto.alloc_tile"(%[[C4096]])
// CHECK: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[A:.*]] = "pto.alloc_tile"(%[[C0]])
// CHECK: "pto.tadd"(%[[A]], %[[F]], %[[F]])
func.func @kept(%src: memref<64x64xf32>, %dst: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c4096 = arith.constant 4096 : i64
  %f = "pto.alloc_tile"(%c4096) : (i64) -> !v
  "pto.tload"(%src, %c0, %c0, %f) : (memref<64x64xf32>, index, index, !v) -> ()
  %a = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %a) : (memref<64x64xf32>, index, index, !v) -> ()
  "pto.tadd"(%a, %f, %f) : (!v, !v, !v) -> ()
  "pto.tstore"(%f, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  return
}

// -----

// A fixed buffer that starts while another buffer is live: %n (live across
// %d's whole life) may not sit at %d's address 0, although nothing occupies
// 0 when %n is placed. %m, after both, reuses 0. Two fixed buffers may share
// an address when their lifetimes are disjoint (%d and %e).

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// CHECK-LABEL: func.func @future_reservation
// CHECK-SAME: pto.memory_usage = {vec = 2048 : i64}
// CHECK: %[[C1024:.*]] = arith.constant 1024 : i64
// CHECK-NEXT: %[[N:.*]] = "pto.alloc_tile"(%[[C1024]])
// CHECK: %[[D:.*]] = "pto.alloc_tile"(%[[FIXED:.*]]) :
// CHECK: %[[E:.*]] = "pto.alloc_tile"(%[[FIXED]]) :
// CHECK: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[M:.*]] = "pto.alloc_tile"(%[[C0]])
func.func @future_reservation(%src: memref<64x64xf32>, %dst: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %at0 = arith.constant 0 : i64
  %n = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %n) : (memref<64x64xf32>, index, index, !v) -> ()
  %d = "pto.alloc_tile"(%at0) : (i64) -> !v
  "pto.tload"(%src, %c0, %c0, %d) : (memref<64x64xf32>, index, index, !v) -> ()
  "pto.tstore"(%d, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  %e = "pto.alloc_tile"(%at0) : (i64) -> !v
  "pto.tload"(%src, %c0, %c0, %e) : (memref<64x64xf32>, index, index, !v) -> ()
  "pto.tstore"(%e, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  "pto.tstore"(%n, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  %m = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %m) : (memref<64x64xf32>, index, index, !v) -> ()
  "pto.tstore"(%m, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  return
}
