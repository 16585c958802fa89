// RUN: pto-opt %s --split-input-file --pto-allocate-memory-addr --verify-diagnostics
// RUN: not pto-opt %s --split-input-file --pto-allocate-memory-addr 2>&1 | FileCheck %s

// Four 64 KiB vec tiles live at once need 256 KiB; a3's vec has 192 KiB.
// The error is on the function: the space, bytes required and available,
// and the buffers live at the peak as notes. Exit code 1 (`not`).

// CHECK: overflow.mlir:[[@LINE+5]]:1: error: memory space "vec" overflows in @four_tiles: 262144 bytes required, 196608 bytes available on a3; 262144 bytes are live at once at the peak (more than the space holds), in 4 buffers
// CHECK-COUNT-4: note: live at the peak: !pto.tile_buf<"vec", array<i64: 128, 128>, f32>, 65536 bytes at

!big = !pto.tile_buf<"vec", array<i64: 128, 128>, f32>
// expected-error@+1 {{memory space "vec" overflows in @four_tiles: 262144 bytes required, 196608 bytes available on a3; 262144 bytes are live at once at the peak (more than the space holds), in 4 buffers}}
func.func @four_tiles(%src: memref<256x256xf32>, %dst: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  // expected-note@+1 {{live at the peak: !pto.tile_buf<"vec", array<i64: 128, 128>, f32>, 65536 bytes at [0, 65536)}}
  %a = "pto.alloc_tile"() : () -> !big
  // expected-note@+1 {{live at the peak: !pto.tile_buf<"vec", array<i64: 128, 128>, f32>, 65536 bytes at [65536, 131072)}}
  %b = "pto.alloc_tile"() : () -> !big
  // expected-note@+1 {{live at the peak: !pto.tile_buf<"vec", array<i64: 128, 128>, f32>, 65536 bytes at [131072, 196608)}}
  %c = "pto.alloc_tile"() : () -> !big
  // expected-note@+1 {{live at the peak: !pto.tile_buf<"vec", array<i64: 128, 128>, f32>, 65536 bytes at [196608, 262144)}}
  %d = "pto.alloc_tile"() : () -> !big
  "pto.tload"(%src, %c0, %c0, %a) : (memref<256x256xf32>, index, index, !big) -> ()
  "pto.tload"(%src, %c0, %c0, %b) : (memref<256x256xf32>, index, index, !big) -> ()
  "pto.tload"(%src, %c0, %c0, %c) : (memref<256x256xf32>, index, index, !big) -> ()
  "pto.tload"(%src, %c0, %c0, %d) : (memref<256x256xf32>, index, index, !big) -> ()
  "pto.tstore"(%a, %dst, %c0, %c0) : (!big, memref<256x256xf32>, index, index) -> ()
  "pto.tstore"(%b, %dst, %c0, %c0) : (!big, memref<256x256xf32>, index, index) -> ()
  "pto.tstore"(%c, %dst, %c0, %c0) : (!big, memref<256x256xf32>, index, index) -> ()
  "pto.tstore"(%d, %dst, %c0, %c0) : (!big, memref<256x256xf32>, index, index) -> ()
  return
}

// -----

// The same four tiles used one after the other fit with reuse (64 KiB), but
// not with reuse=false, where no two buffers share memory.
// RUN: not pto-opt %s --split-input-file --pto-allocate-memory-addr=reuse=false 2>&1 | FileCheck %s --check-prefix=NOREUSE
// NOREUSE: error: memory space "vec" overflows in @sequential: 262144 bytes required, 196608 bytes available on a3; 65536 bytes are live at once at the peak (with reuse=false no two buffers share memory), in 1 buffer

!big = !pto.tile_buf<"vec", array<i64: 128, 128>, f32>
func.func @sequential(%src: memref<256x256xf32>, %dst: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %a = "pto.alloc_tile"() : () -> !big
  "pto.tload"(%src, %c0, %c0, %a) : (memref<256x256xf32>, index, index, !big) -> ()
  "pto.tstore"(%a, %dst, %c0, %c0) : (!big, memref<256x256xf32>, index, index) -> ()
  %b = "pto.alloc_tile"() : () -> !big
  "pto.tload"(%src, %c0, %c0, %b) : (memref<256x256xf32>, index, index, !big) -> ()
  "pto.tstore"(%b, %dst, %c0, %c0) : (!big, memref<256x256xf32>, index, index) -> ()
  %c = "pto.alloc_tile"() : () -> !big
  "pto.tload"(%src, %c0, %c0, %c) : (memref<256x256xf32>, index, index, !big) -> ()
  "pto.tstore"(%c, %dst, %c0, %c0) : (!big, memref<256x256xf32>, index, index) -> ()
  %d = "pto.alloc_tile"() : () -> !big
  "pto.tload"(%src, %c0, %c0, %d) : (memref<256x256xf32>, index, index, !big) -> ()
  "pto.tstore"(%d, %dst, %c0, %c0) : (!big, memref<256x256xf32>, index, index) -> ()
  return
}
