// RUN: pto-opt %s --pto-allocate-memory-addr=arch=a5 | FileCheck %s --check-prefix=A5
// RUN: sed -e 's/pto.target_arch = "a3"/pto.target_arch = "a5"/' %s | pto-opt --pto-allocate-memory-addr | FileCheck %s --check-prefix=A5
// RUN: not pto-opt %s --pto-allocate-memory-addr 2>&1 | FileCheck %s --check-prefix=A3
// RUN: sed -e 's/pto.target_arch = "a3"/pto.target_arch = "a5"/' %s | not pto-opt --pto-allocate-memory-addr=arch=a2 2>&1 | FileCheck %s --check-prefix=A2

// 224 KiB of vec and 192 KiB of acc live at once: more than a2/a3 have
// (vec 196608, acc 131072), within a5 (vec 253952, acc 262144). The arch
// comes from the pass option, else the module's pto.target_arch.

// A5: func.func @kernel
// A5-SAME: pto.memory_usage = {acc = 196608 : i64, vec = 229376 : i64}
// A3: error: memory space "vec" overflows in @kernel: 229376 bytes required, 196608 bytes available on a3
// A3: error: memory space "acc" overflows in @kernel: 196608 bytes required, 131072 bytes available on a3
// A2: error: memory space "vec" overflows in @kernel: 229376 bytes required, 196608 bytes available on a2

!big = !pto.tile_buf<"vec", array<i64: 128, 128>, f32>
!half = !pto.tile_buf<"vec", array<i64: 64, 128>, f32>
!acc = !pto.tile_buf<"acc", array<i64: 128, 128>, f32>
module attributes {pto.target_arch = "a3"} {
  func.func @kernel(%src: memref<256x256xf32>, %dst: memref<256x256xf32>) {
    %c0 = arith.constant 0 : index
    %a = "pto.alloc_tile"() : () -> !big
    %b = "pto.alloc_tile"() : () -> !big
    %c = "pto.alloc_tile"() : () -> !big
    %d = "pto.alloc_tile"() : () -> !half
    "pto.tload"(%src, %c0, %c0, %a) : (memref<256x256xf32>, index, index, !big) -> ()
    "pto.tload"(%src, %c0, %c0, %b) : (memref<256x256xf32>, index, index, !big) -> ()
    "pto.tload"(%src, %c0, %c0, %c) : (memref<256x256xf32>, index, index, !big) -> ()
    "pto.tload"(%src, %c0, %c0, %d) : (memref<256x256xf32>, index, index, !half) -> ()
    %x = "pto.alloc_tile"() : () -> !acc
    %y = "pto.alloc_tile"() : () -> !acc
    %z = "pto.alloc_tile"() : () -> !acc
    "pto.tmov"(%a, %x) : (!big, !acc) -> ()
    "pto.tmov"(%b, %y) : (!big, !acc) -> ()
    "pto.tmov"(%c, %z) : (!big, !acc) -> ()
    "pto.tstore"(%d, %dst, %c0, %c0) : (!half, memref<256x256xf32>, index, index) -> ()
    "pto.tstore"(%x, %dst, %c0, %c0) : (!acc, memref<256x256xf32>, index, index) -> ()
    "pto.tstore"(%y, %dst, %c0, %c0) : (!acc, memref<256x256xf32>, index, index) -> ()
    "pto.tstore"(%z, %dst, %c0, %c0) : (!acc, memref<256x256xf32>, index, index) -> ()
    return
  }
}
