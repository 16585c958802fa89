// RUN: pto-opt %s --split-input-file --allow-unregistered-dialect --pto-allocate-memory-addr | FileCheck %s
// RUN: pto-opt %s --split-input-file --allow-unregistered-dialect --pto-allocate-memory-addr --verify-diagnostics > /dev/null

// Where the allocator cannot see how often code runs or where a buffer goes,
// it keeps the buffer live for longer, never shorter.

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// An scf.while may run its body many times and is not analysed: %t, used
// only early in the body, lives through the whole loop, so %u does not take
// its address.
// CHECK-LABEL: func.func @while_loop
// CHECK: scf.while
// CHECK: arith.constant 0 : i64
// CHECK-NEXT: "pto.alloc_tile"
// CHECK: arith.constant 1024 : i64
// CHECK-NEXT: "pto.alloc_tile"
func.func @while_loop(%src: memref<64x64xf32>, %dst: memref<64x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.while (%i = %c0) : (index) -> index {
    %more = arith.cmpi slt, %i, %n : index
    scf.condition(%more) %i : index
  } do {
  ^bb0(%i: index):
    %t = "pto.alloc_tile"() : () -> !v
    "pto.tadd"(%t, %t, %t) : (!v, !v, !v) -> ()
    %u = "pto.alloc_tile"() : () -> !v
    "pto.tload"(%src, %i, %c0, %u) : (memref<64x64xf32>, index, index, !v) -> ()
    "pto.tstore"(%u, %dst, %i, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
    %next = arith.addi %i, %c1 : index
    scf.yield %next : index
  }
  return
}

// -----

// A loop built from cf branches: program order says nothing about execution
// order, so every buffer used in the multi-block body lives throughout it.
!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// CHECK-LABEL: func.func @cf_loop
// CHECK: arith.constant 0 : i64
// CHECK-NEXT: "pto.alloc_tile"
// CHECK: arith.constant 1024 : i64
// CHECK-NEXT: "pto.alloc_tile"
func.func @cf_loop(%src: memref<64x64xf32>, %dst: memref<64x64xf32>, %again: i1) {
  %c0 = arith.constant 0 : index
  cf.br ^body
^body:
  %t = "pto.alloc_tile"() : () -> !v
  "pto.tadd"(%t, %t, %t) : (!v, !v, !v) -> ()
  %u = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %u) : (memref<64x64xf32>, index, index, !v) -> ()
  "pto.tstore"(%u, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  cf.cond_br %again, ^body, ^exit
^exit:
  return
}

// -----

// A buffer handed to an op whose results may alias it lives for the whole
// function: %later does not reuse %t's address although %t's last visible
// use comes first.
!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// CHECK-LABEL: func.func @unknown_alias
// CHECK: arith.constant 0 : i64
// CHECK-NEXT: "pto.alloc_tile"
// CHECK: arith.constant 1024 : i64
// CHECK-NEXT: "pto.alloc_tile"
func.func @unknown_alias(%src: memref<64x64xf32>, %dst: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %t = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %t) : (memref<64x64xf32>, index, index, !v) -> ()
  %view = "test.view"(%t) : (!v) -> !v
  %later = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %later) : (memref<64x64xf32>, index, index, !v) -> ()
  "pto.tadd"(%view, %later, %later) : (!v, !v, !v) -> ()
  "pto.tstore"(%later, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  return
}

// -----

// Buffers outside any function are not the allocator's to place: a warning
// says so, and they stay as they are.
!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// CHECK: "test.container"
// CHECK-NEXT: "pto.alloc_tile"() : () -> !pto.tile_buf
"test.container"() ({
  // expected-warning@+1 {{'pto.alloc_tile' outside a func.func gets no address: the allocator places the buffers of each function}}
  %t = "pto.alloc_tile"() : () -> !v
  "test.end"() : () -> ()
}) : () -> ()
