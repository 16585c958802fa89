// RUN: pto-opt %s --pto-allocate-memory-addr=reuse=false | FileCheck %s --check-prefix=NOREUSE
// RUN: pto-opt %s --pass-pipeline='builtin.module(pto-allocate-memory-addr{reuse=false})' | FileCheck %s --check-prefix=NOREUSE
// RUN: pto-opt %s --pto-allocate-memory-addr | FileCheck %s --check-prefix=REUSE

// reuse=false gives every buffer its own range even when lifetimes are
// disjoint (the default shares one address for this chain).

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// NOREUSE-LABEL: func.func @chain
// NOREUSE-SAME: pto.memory_usage = {vec = 3072 : i64}
// NOREUSE: arith.constant 0 : i64
// NOREUSE-NEXT: "pto.alloc_tile"
// NOREUSE: arith.constant 1024 : i64
// NOREUSE-NEXT: "pto.alloc_tile"
// NOREUSE: arith.constant 2048 : i64
// NOREUSE-NEXT: "pto.alloc_tile"

// REUSE-LABEL: func.func @chain
// REUSE-SAME: pto.memory_usage = {vec = 1024 : i64}
// REUSE-COUNT-3: arith.constant 0 : i64
// REUSE-NOT: arith.constant {{[1-9][0-9]*}} : i64
func.func @chain(%src: memref<64x64xf32>, %dst: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %a = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %a) : (memref<64x64xf32>, index, index, !v) -> ()
  "pto.tstore"(%a, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  %b = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %b) : (memref<64x64xf32>, index, index, !v) -> ()
  "pto.tstore"(%b, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  %c = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c0, %c0, %c) : (memref<64x64xf32>, index, index, !v) -> ()
  "pto.tstore"(%c, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  return
}
