// RUN: pto-opt %s --split-input-file --convert-to-ptoas-multi-buffer --verify-diagnostics | FileCheck %s

// A tile that escapes the loop body's ops (yielded, handed to a nested loop's
// iter_args, used by an op the pass does not know) keeps its buffer.

!t = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// CHECK-LABEL: func.func @yielded
// CHECK-NOT:   "pto.alloc_multi_tile"
// CHECK:       scf.for {{.*}} iter_args
// CHECK:         "pto.alloc_tile"
func.func @yielded(%src: memref<64x16xf32>, %init: !t) -> !t {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-remark@+1 {{pipeline loop is not converted: no tile in its body is eligible for multi-buffering}}
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%prev = %init) -> (!t) {
    // expected-remark@+1 {{tile is not multi-buffered: it is yielded by scf.yield}}
    %t = "pto.alloc_tile"() : () -> !t
    "pto.tload"(%src, %i, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
    scf.yield %t : !t
  } {pto.pipeline_stages = 2 : i64}
  return %r : !t
}

// -----

!t = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// CHECK-LABEL: func.func @nested_iter_args
// CHECK:       %[[MB:.*]] = "pto.alloc_multi_tile"
// CHECK-NOT:   "pto.alloc_multi_tile"
// CHECK:       scf.for
// CHECK:         %[[T:.*]] = "pto.alloc_tile"
// CHECK:         "pto.multi_tile_get"(%[[MB]]
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %[[T]])
func.func @nested_iter_args(%src: memref<64x16xf32>, %dst: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-remark@+1 {{tile is not multi-buffered: it is passed to a nested loop's iter_args}}
    %t = "pto.alloc_tile"() : () -> !t
    %out = "pto.alloc_tile"() : () -> !t
    "pto.tload"(%src, %i, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
    %r = scf.for %j = %c0 to %c2 step %c1 iter_args(%x = %t) -> (!t) {
      "pto.texp"(%x, %x) : (!t, !t) -> ()
      scf.yield %x : !t
    }
    "pto.tabs"(%r, %out) : (!t, !t) -> ()
    "pto.tstore"(%out, %dst, %i, %c0) : (!t, memref<64x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}

// -----

!t = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// CHECK-LABEL: func.func @unknown_user
// CHECK-NOT:   "pto.alloc_multi_tile"
func.func private @consume(!t)
func.func @unknown_user(%src: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-remark@+1 {{pipeline loop is not converted}}
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-remark@+1 {{tile is not multi-buffered: it is passed to func.call}}
    %t = "pto.alloc_tile"() : () -> !t
    "pto.tload"(%src, %i, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
    func.call @consume(%t) : (!t) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}

// -----

!t = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

// An explicit addr is the user's placement: the pass does not move it.
// CHECK-LABEL: func.func @explicit_addr
// CHECK-NOT:   "pto.alloc_multi_tile"
// CHECK:       "pto.alloc_tile"(%{{.*}}) : (i64) ->
func.func @explicit_addr(%src: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = arith.constant 4096 : i64
  // expected-remark@+1 {{pipeline loop is not converted}}
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-remark@+1 {{tile is not multi-buffered: it has an explicit addr}}
    %t = "pto.alloc_tile"(%a) : (i64) -> !t
    "pto.tload"(%src, %i, %c0, %t) : (memref<64x16xf32>, index, index, !t) -> ()
    "pto.tstore"(%t, %src, %i, %c0) : (!t, memref<64x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}
