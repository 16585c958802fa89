// A read of tile memory never written is a warning at the reading op (once
// per op and operand, however often it runs); the run still completes.

// RUN: pto-run %s --func partial 2> %t.err | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=WARN < %t.err
// RUN: pto-run %s --func defined 2>&1 | FileCheck %s --check-prefix=CLEAN

!t = !pto.tile_buf<"vec", array<i64: 8, 16>, f32>
!h = !pto.tile_buf<"vec", array<i64: 4, 16>, f32>

// The accumulator is never initialised: every iteration adds to poison (NaN).
// WARN:      poison.mlir:[[@LINE+17]]:5: warning: 'pto.tadd' reads 512 of the 512 bytes of operand 'a' ({{vec#[0-9]+}} [0, 512)) that were never written (they hold the poison pattern)
// WARN-NEXT: "pto.tadd"(%acc, %x, %acc)
// Only the second half of %half2 is written at addr 256 over %full at 0.
// WARN:      poison.mlir:[[@LINE+22]]:3: warning: 'pto.tstore' reads 256 of the 512 bytes of operand 'src' (vec [0, 512)) that were never written (they hold the poison pattern)
// WARN-NOT:  warning
// OUT:       %O  memref<8x16xf32>  out  hash={{[0-9a-f]+}}  nan=128
// OUT:       %P  memref<8x16xf32>  out  hash={{[0-9a-f]+}}  min={{.*}}  nan=64
func.func @partial(%A: memref<32x16xf32>, %O: memref<8x16xf32>, %P: memref<8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %acc = "pto.alloc_tile"() : () -> !t
  scf.for %i = %c0 to %c4 step %c1 {
    %x = "pto.alloc_tile"() : () -> !t
    %r = arith.muli %i, %c8 : index
    "pto.tload"(%A, %r, %c0, %x) : (memref<32x16xf32>, index, index, !t) -> ()
    "pto.tadd"(%acc, %x, %acc) : (!t, !t, !t) -> ()
  } {pto.pipeline_stages = 2 : i64}
  "pto.tstore"(%acc, %O, %c0, %c0) : (!t, memref<8x16xf32>, index, index) -> ()
  %a0 = arith.constant 0 : i64
  %a256 = arith.constant 256 : i64
  %full = "pto.alloc_tile"(%a0) : (i64) -> !t
  %half2 = "pto.alloc_tile"(%a256) : (i64) -> !h
  "pto.tload"(%A, %c0, %c0, %half2) : (memref<32x16xf32>, index, index, !h) -> ()
  "pto.tstore"(%full, %P, %c0, %c0) : (!t, memref<8x16xf32>, index, index) -> ()
  return
}

// CLEAN-NOT: warning
// CLEAN:     @defined
func.func @defined(%A: memref<32x16xf32>, %O: memref<8x16xf32>) {
  %c0 = arith.constant 0 : index
  %acc = "pto.alloc_tile"() : () -> !t
  "pto.tload"(%A, %c0, %c0, %acc) : (memref<32x16xf32>, index, index, !t) -> ()
  "pto.tstore"(%acc, %O, %c0, %c0) : (!t, memref<8x16xf32>, index, index) -> ()
  return
}
