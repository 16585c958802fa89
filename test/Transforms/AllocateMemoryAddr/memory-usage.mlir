// RUN: pto-opt %s --pto-allocate-memory-addr | FileCheck %s

// pto.memory_usage: per space the function uses, the bytes from 0 to the end
// of its highest buffer (not rounded up to the alignment). Every function
// with a body gets one; a declaration has no buffers and is left alone.

!s = !pto.tile_buf<"vec", array<i64: 1, 3>, f16>
!m = !pto.tile_buf<"mat", array<i64: 32, 32>, f16>
!b = !pto.tile_buf<"bias", array<i64: 1, 64>, f32>

// Two 6-byte vec tiles live together: at 0 and at 32 (alignment), ending at
// 38. A 2 KiB mat tile and a 256-byte bias tile.
// CHECK-LABEL: func.func @spaces
// CHECK-SAME: attributes {pto.memory_usage = {bias = 256 : i64, mat = 2048 : i64, vec = 38 : i64}}
func.func @spaces(%src: memref<64x64xf16>, %bsrc: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %x = "pto.alloc_tile"() : () -> !s
  %y = "pto.alloc_tile"() : () -> !s
  "pto.tload"(%src, %c0, %c0, %x) : (memref<64x64xf16>, index, index, !s) -> ()
  "pto.tadd"(%x, %x, %y) : (!s, !s, !s) -> ()
  %m = "pto.alloc_tile"() : () -> !m
  "pto.tload"(%src, %c0, %c0, %m) : (memref<64x64xf16>, index, index, !m) -> ()
  %b = "pto.alloc_tile"() : () -> !b
  "pto.tload"(%bsrc, %c0, %c0, %b) : (memref<64x64xf32>, index, index, !b) -> ()
  return
}

// CHECK-LABEL: func.func @no_buffers
// CHECK-SAME: attributes {pto.memory_usage = {}}
func.func @no_buffers() {
  return
}

// CHECK-LABEL: func.func private @declaration(
// CHECK-NOT: pto.memory_usage
func.func private @declaration(!s)
