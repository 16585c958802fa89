// --compare-pipeline runs the function before and after a pipeline on the
// same inputs and exits 1 on the first differing bit.

// RUN: pto-run %s --func add --compare-pipeline 'pto-pipeline{use-ptoas-multi-buffer=true}' | FileCheck %s --check-prefix=SAME
// RUN: pto-run %s --func add --pass-pipeline convert-to-ptoas-multi-buffer --compare-pipeline 'builtin.module(pto-allocate-memory-addr,canonicalize)' | FileCheck %s --check-prefix=AFTER-P

// A kernel that reads a tile it never wrote: before allocation the tile is
// its own poisoned buffer; after allocation (with reuse) it shares bytes
// with the dead tile %a, so the results differ.
// RUN: not pto-run %s --func undefined --compare-pipeline pto-allocate-memory-addr > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=DIFF < %t.err
// RUN: FileCheck %s --check-prefix=DIFF-OUT < %t.out

// A pipeline that fails is a pass error, not a mismatch.
// RUN: not pto-run %s --func add --compare-pipeline 'pto-allocate-memory-addr{arch=a9}' 2>&1 | FileCheck %s --check-prefix=BAD-PIPELINE

!t = !pto.tile_buf<"vec", array<i64: 16, 64>, f32>
!u = !pto.tile_buf<"vec", array<i64: 4, 16>, f32>

// SAME:      @add: {{[0-9]+}} ops executed
// SAME:      %z  memref<64x64xf32>  out  hash=[[H:[0-9a-f]+]]
// SAME:      after 'pto-pipeline{use-ptoas-multi-buffer=true}': @add: {{[0-9]+}} ops executed
// SAME:      %z  memref<64x64xf32>  out  hash=[[H]]
// SAME-NEXT: compare: identical after 'pto-pipeline{use-ptoas-multi-buffer=true}' (3 buffers, 0 returned values)

// AFTER-P: compare: identical after 'builtin.module(pto-allocate-memory-addr,canonicalize)'
func.func @add(%x: memref<64x64xf32>, %y: memref<64x64xf32>, %z: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c3 step %c1 {
    %a = "pto.alloc_tile"() : () -> !t
    %b = "pto.alloc_tile"() : () -> !t
    %sum = "pto.alloc_tile"() : () -> !t
    %row = arith.muli %i, %c16 : index
    "pto.tload"(%x, %row, %c0, %a) : (memref<64x64xf32>, index, index, !t) -> ()
    "pto.tload"(%y, %row, %c0, %b) : (memref<64x64xf32>, index, index, !t) -> ()
    "pto.tadd"(%a, %b, %sum) : (!t, !t, !t) -> ()
    "pto.tstore"(%sum, %z, %row, %c0) : (!t, memref<64x64xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}

// DIFF:      compare.mlir:[[@LINE+13]]:3: warning: 'pto.tstore' reads 256 of the 256 bytes of operand 'src' ({{.*}}) that were never written (they hold the poison pattern)
// DIFF:      compare.mlir:[[@LINE+6]]:1: error: results differ after 'pto-allocate-memory-addr': %C element [0, 0]: nan (0xffffffff) before, {{.*}} (0x{{[0-9a-f]+}}) after; 64 of 64 elements differ
// DIFF-NEXT: func.func @undefined
// DIFF-NEXT: ^
// DIFF-NEXT: compare.mlir:[[@LINE+9]]:3: note: the kernel reads tile memory it never wrote here: such bytes are undefined and a pipeline may change them
// DIFF-OUT:  after 'pto-allocate-memory-addr': @undefined
// DIFF-OUT-NOT: compare: identical
func.func @undefined(%A: memref<4x16xf32>, %B: memref<4x16xf32>, %C: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %a = "pto.alloc_tile"() : () -> !u
  "pto.tload"(%A, %c0, %c0, %a) : (memref<4x16xf32>, index, index, !u) -> ()
  "pto.tstore"(%a, %B, %c0, %c0) : (!u, memref<4x16xf32>, index, index) -> ()
  %b = "pto.alloc_tile"() : () -> !u
  "pto.tstore"(%b, %C, %c0, %c0) : (!u, memref<4x16xf32>, index, index) -> ()
  return
}

// BAD-PIPELINE: error: option 'arch': 'a9' is not one of a2, a3, a5
