// RUN: pto-opt %s --pto-allocate-memory-addr | FileCheck %s

// Buffers live at the same time never share: %a and %b are both read by the
// tadd that writes %c, and %c is allocated before it, so all three are live
// at that op. Reading a buffer for the last time into a buffer allocated
// earlier (texp %c -> %d) keeps them apart too.

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// CHECK-LABEL: func.func @overlap
// CHECK-SAME: pto.memory_usage = {vec = 3072 : i64}
// CHECK: arith.constant 0 : i64
// CHECK-NEXT: %[[A:.*]] = "pto.alloc_tile"
// CHECK: arith.constant 1024 : i64
// CHECK-NEXT: %[[B:.*]] = "pto.alloc_tile"
// CHECK: arith.constant 2048 : i64
// CHECK-NEXT: %[[C:.*]] = "pto.alloc_tile"
// CHECK: "pto.tadd"(%[[A]], %[[B]], %[[C]])
// %a is dead after the tadd: %d takes its address, not %c's.
// CHECK: arith.constant 0 : i64
// CHECK-NEXT: %[[D:.*]] = "pto.alloc_tile"
// CHECK: "pto.texp"(%[[C]], %[[D]])
func.func @overlap(%src: memref<64x64xf32>, %dst: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %a = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %a) : (memref<64x64xf32>, index, index, !v) -> ()
  %b = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %b) : (memref<64x64xf32>, index, index, !v) -> ()
  %c = "pto.alloc_tile"() : () -> !v
  "pto.tadd"(%a, %b, %c) : (!v, !v, !v) -> ()
  %d = "pto.alloc_tile"() : () -> !v
  "pto.texp"(%c, %d) : (!v, !v) -> ()
  "pto.tstore"(%d, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  return
}
