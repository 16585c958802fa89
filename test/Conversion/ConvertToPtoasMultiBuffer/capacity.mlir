// RUN: pto-opt %s --split-input-file --convert-to-ptoas-multi-buffer --verify-diagnostics | FileCheck %s
// RUN: pto-opt %s --split-input-file --convert-to-ptoas-multi-buffer=arch=a5 2>&1 | FileCheck %s --check-prefix=A5

// When N slots do not fit their space, the loop gets the largest N' >= 2 that
// fits (a remark says so), else it stays unconverted.

// One 64 KiB vec tile, N = 4, on a3 (vec holds 196608 bytes): exactly 3 fit.
!big = !pto.tile_buf<"vec", array<i64: 128, 128>, f32>

// CHECK-LABEL: func.func @degrade_to_three
// CHECK:       "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 128, 128>, f32>, 3 : i64>
// CHECK:       arith.constant 3 : index
// CHECK:       {pto.pipeline_stages = 1 : i64}
// With arch=a5 the same loop still gets 3 slots, now of 253952 bytes:
// A5: remark: pipeline loop asks for 4 slots but only 3 fit in "vec" (3 x 65536 = 196608 of 253952 bytes on a5); using 3
// A5-LABEL: func.func @degrade_to_three
// A5:       !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 128, 128>, f32>, 3 : i64>
func.func @degrade_to_three(%src: memref<512x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  // expected-remark@+1 {{pipeline loop asks for 4 slots but only 3 fit in "vec" (3 x 65536 = 196608 of 196608 bytes on a3); using 3}}
  scf.for %i = %c0 to %c4 step %c1 {
    %t = "pto.alloc_tile"() : () -> !big
    %row = arith.muli %i, %c128 : index
    "pto.tload"(%src, %row, %c0, %t) : (memref<512x128xf32>, index, index, !big) -> ()
    "pto.tstore"(%t, %src, %row, %c0) : (!big, memref<512x128xf32>, index, index) -> ()
  } {pto.pipeline_stages = 4 : i64}
  return
}

// -----

// Two 96 KiB vec tiles per iteration: even 2 slots need 393216 bytes of vec,
// twice what a3 has. The loop stays as it is.
!half = !pto.tile_buf<"vec", array<i64: 192, 128>, f32>

// CHECK-LABEL: func.func @does_not_fit
// CHECK-NOT:   "pto.alloc_multi_tile"
// CHECK:       {pto.pipeline_stages = 2 : i64}
func.func @does_not_fit(%src: memref<768x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c192 = arith.constant 192 : index
  // expected-remark@+1 {{pipeline loop is not converted: even 2 slots of its tiles need 393216 bytes of "vec", more than its 196608 bytes on a3}}
  scf.for %i = %c0 to %c2 step %c1 {
    %a = "pto.alloc_tile"() : () -> !half
    %b = "pto.alloc_tile"() : () -> !half
    %row = arith.muli %i, %c192 : index
    "pto.tload"(%src, %row, %c0, %a) : (memref<768x128xf32>, index, index, !half) -> ()
    "pto.texp"(%a, %b) : (!half, !half) -> ()
    "pto.tstore"(%b, %src, %row, %c0) : (!half, memref<768x128xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}

// -----

// The module's target arch decides: on a5 vec holds 253952 bytes, so 3 slots
// of 64 KiB still, but now because 4 x 65536 = 262144 > 253952.
module attributes {pto.target_arch = "a5"} {
  // CHECK-LABEL: func.func @a5_module
  // CHECK: !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 128, 128>, f32>, 3 : i64>
  func.func @a5_module(%src: memref<512x128xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    // expected-remark@+1 {{only 3 fit in "vec" (3 x 65536 = 196608 of 253952 bytes on a5)}}
    scf.for %i = %c0 to %c4 step %c1 {
      %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 128, 128>, f32>
      %row = arith.muli %i, %c128 : index
      "pto.tload"(%src, %row, %c0, %t) : (memref<512x128xf32>, index, index, !pto.tile_buf<"vec", array<i64: 128, 128>, f32>) -> ()
      "pto.tstore"(%t, %src, %row, %c0) : (!pto.tile_buf<"vec", array<i64: 128, 128>, f32>, memref<512x128xf32>, index, index) -> ()
    } {pto.pipeline_stages = 4 : i64}
    return
  }
}
