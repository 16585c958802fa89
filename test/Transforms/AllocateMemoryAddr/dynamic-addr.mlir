// RUN: pto-opt %s --split-input-file --pto-allocate-memory-addr --verify-diagnostics
// RUN: not pto-opt %s --split-input-file --pto-allocate-memory-addr 2>/dev/null | FileCheck %s

// A buffer at an address that is not a constant, live while a buffer the
// pass must place in the same space is live: nothing could keep that one
// clear of it. An error, with a note at the buffer to place.

func.func @dynamic_addr(%addr: i64, %src: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{'pto.alloc_tile' has an addr that is not a constant, and buffers to place in space "vec" are live at the same time; the allocator cannot keep them clear of an address it does not know}}
  %a = "pto.alloc_tile"(%addr) : (i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  // expected-note@+1 {{this buffer, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>, is live at the same time}}
  %b = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  "pto.tadd"(%a, %a, %b) : (!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @dynamic_alone
// CHECK-SAME: pto.memory_usage = {mat = 1024 : i64}
// CHECK: "pto.alloc_tile"(%arg0)

// Alone in its space (or never live with a buffer to place), it is fine: a
// remark says it is not counted, and the other spaces are allocated.

func.func @dynamic_alone(%addr: i64, %src: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  // expected-remark@+1 {{'pto.alloc_tile' has an addr that is not a constant: not counted in pto.memory_usage}}
  %a = "pto.alloc_tile"(%addr) : (i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  "pto.tload"(%src, %c0, %c0, %a) : (memref<64x64xf32>, index, index, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) -> ()
  %m = "pto.alloc_tile"() : () -> !pto.tile_buf<"mat", array<i64: 16, 16>, f32>
  "pto.tload"(%src, %c0, %c0, %m) : (memref<64x64xf32>, index, index, !pto.tile_buf<"mat", array<i64: 16, 16>, f32>) -> ()
  return
}
