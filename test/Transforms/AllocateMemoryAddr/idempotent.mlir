// RUN: pto-opt %s --pto-allocate-memory-addr -o %t.once
// RUN: pto-opt %t.once --pto-allocate-memory-addr -o %t.twice
// RUN: diff %t.once %t.twice
// RUN: pto-opt %t.once --pto-allocate-memory-addr --pto-memory-report -o /dev/null 2>&1 | FileCheck %s

// Running the pass twice changes nothing: the second run sees every alloc
// with a constant addr and keeps it as a fixed reservation. Buffers that the
// first run let share an address (disjoint lifetimes) do not collide, and
// the usage is the same.

// CHECK: vec: peak 4096 of 196608 bytes
// CHECK-COUNT-5: fixed by the input
// CHECK-NOT: B  points

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
!mb = !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>
func.func @kernel(%src: memref<64x64xf32>, %dst: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %pre = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %pre) : (memref<64x64xf32>, index, index, !v) -> ()
  "pto.tstore"(%pre, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  %mb = "pto.alloc_multi_tile"() : () -> !mb
  scf.for %i = %c0 to %c8 step %c1 {
    %acc = "pto.alloc_tile"() : () -> !v
    %slot = arith.remui %i, %c2 : index
    %x = "pto.multi_tile_get"(%mb, %slot) : (!mb, index) -> !v
    "pto.tload"(%src, %i, %c0, %x) : (memref<64x64xf32>, index, index, !v) -> ()
    "pto.tadd"(%acc, %x, %acc) : (!v, !v, !v) -> ()
    %t = "pto.alloc_tile"() : () -> !v
    "pto.texp"(%acc, %t) : (!v, !v) -> ()
    "pto.tstore"(%t, %dst, %i, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  }
  %post = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %post) : (memref<64x64xf32>, index, index, !v) -> ()
  "pto.tstore"(%post, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  return
}
