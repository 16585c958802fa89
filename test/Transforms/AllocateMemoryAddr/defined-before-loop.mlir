// RUN: pto-opt %s --pto-allocate-memory-addr | FileCheck %s

// %b is defined before the loop and last used early in the body; %x is
// defined later in the body. In program order %b is dead when %x starts,
// but the next iteration reads %b again, so %b lives for the whole loop and
// %x gets its own range. %after, past the loop, reuses %b's address.

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// CHECK-LABEL: func.func @before_loop
// CHECK-SAME: pto.memory_usage = {vec = 3072 : i64}
// CHECK: arith.constant 0 : i64
// CHECK-NEXT: %[[B:.*]] = "pto.alloc_tile"
// CHECK: scf.for
// CHECK: arith.constant 1024 : i64
// CHECK-NEXT: %[[Y:.*]] = "pto.alloc_tile"
// CHECK: "pto.tadd"(%[[B]], %[[B]], %[[Y]])
// CHECK: arith.constant 2048 : i64
// CHECK-NEXT: %[[X:.*]] = "pto.alloc_tile"
// CHECK: }
// CHECK: arith.constant 0 : i64
// CHECK-NEXT: %[[AFTER:.*]] = "pto.alloc_tile"
func.func @before_loop(%src: memref<64x64xf32>, %dst: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %b) : (memref<64x64xf32>, index, index, !v) -> ()
  scf.for %i = %c0 to %c4 step %c1 {
    %y = "pto.alloc_tile"() : () -> !v
    "pto.tadd"(%b, %b, %y) : (!v, !v, !v) -> ()
    %x = "pto.alloc_tile"() : () -> !v
    "pto.texp"(%y, %x) : (!v, !v) -> ()
    "pto.tstore"(%x, %dst, %i, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  }
  %after = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %after) : (memref<64x64xf32>, index, index, !v) -> ()
  "pto.tstore"(%after, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  return
}
