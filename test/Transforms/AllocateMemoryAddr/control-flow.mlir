// RUN: pto-opt %s --split-input-file --pto-allocate-memory-addr | FileCheck %s

// Values crossing scf.if branches and scf.for iter_args.

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// Only one branch of an scf.if runs: a tile used only in the then branch
// and one used only in the else branch may share an address.
// CHECK-LABEL: func.func @branches
// CHECK-SAME: pto.memory_usage = {vec = 1024 : i64}
// CHECK: scf.if
// CHECK: arith.constant 0 : i64
// CHECK: } else {
// CHECK: arith.constant 0 : i64
func.func @branches(%cond: i1, %src: memref<64x64xf32>, %dst: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  scf.if %cond {
    %a = "pto.alloc_tile"() : () -> !v
    "pto.tload"(%src, %c0, %c0, %a) : (memref<64x64xf32>, index, index, !v) -> ()
    "pto.tstore"(%a, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  } else {
    %b = "pto.alloc_tile"() : () -> !v
    "pto.tload"(%src, %c0, %c0, %b) : (memref<64x64xf32>, index, index, !v) -> ()
    "pto.tstore"(%b, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  }
  return
}

// -----

// An scf.if result names the buffer of either branch: both live until the
// result's last use, so %c (live meanwhile) shares with neither.
!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// CHECK-LABEL: func.func @if_result
// CHECK-SAME: pto.memory_usage = {vec = 3072 : i64}
// CHECK: %[[C:.*]] = arith.constant 2048 : i64
// CHECK-NEXT: "pto.alloc_tile"(%[[C]])
func.func @if_result(%cond: i1, %src: memref<64x64xf32>, %dst: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %a = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %a) : (memref<64x64xf32>, index, index, !v) -> ()
  %b = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %b) : (memref<64x64xf32>, index, index, !v) -> ()
  %r = scf.if %cond -> (!v) {
    scf.yield %a : !v
  } else {
    scf.yield %b : !v
  }
  %c = "pto.alloc_tile"() : () -> !v
  "pto.texp"(%r, %c) : (!v, !v) -> ()
  "pto.tstore"(%c, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  return
}

// -----

// A buffer passed through scf.for iter_args and used after the loop lives
// from its definition to that use and through the loop; the yielded buffer
// allocated in the body aliases it (the next iteration's iter_arg, the
// loop's result), so both share one lifetime and never share memory.
!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// CHECK-LABEL: func.func @iter_args
// CHECK-SAME: pto.memory_usage = {vec = 3072 : i64}
// CHECK: arith.constant 0 : i64
// CHECK-NEXT: "pto.alloc_tile"
// CHECK: scf.for
// CHECK: arith.constant 1024 : i64
// CHECK-NEXT: "pto.alloc_tile"
// CHECK: arith.constant 2048 : i64
// CHECK-NEXT: "pto.alloc_tile"
func.func @iter_args(%src: memref<64x64xf32>, %dst: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %init = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %init) : (memref<64x64xf32>, index, index, !v) -> ()
  %res = scf.for %i = %c0 to %c4 step %c1 iter_args(%cur = %init) -> (!v) {
    %next = "pto.alloc_tile"() : () -> !v
    "pto.texp"(%cur, %next) : (!v, !v) -> ()
    %tmp = "pto.alloc_tile"() : () -> !v
    "pto.tload"(%src, %i, %c0, %tmp) : (memref<64x64xf32>, index, index, !v) -> ()
    "pto.tstore"(%tmp, %dst, %i, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
    scf.yield %next : !v
  }
  "pto.tstore"(%res, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  return
}
