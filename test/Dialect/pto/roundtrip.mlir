// Every type and op of the pto dialect (docs/dialect.md) survives printing
// and parsing again, in the custom (default) and in the generic form.
//
// RUN: pto-opt %s | pto-opt | FileCheck %s
// RUN: pto-opt %s --mlir-print-op-generic | pto-opt | FileCheck %s
// RUN: pto-opt %s --mlir-print-op-generic | pto-opt --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Aliases in the input are expanded when printed.
!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
!vh = !pto.tile_buf<"vec", array<i64: 16, 16>, f16>
!m = !pto.tile_buf<"mat", array<i64: 16, 32>, f16>
!l = !pto.tile_buf<"left", array<i64: 16, 32>, f16>
!r = !pto.tile_buf<"right", array<i64: 32, 8>, f16>
!a = !pto.tile_buf<"acc", array<i64: 16, 8>, f32>
!mb = !pto.multi_tile_buf<!v, 2 : i64>

// -- types: every LOC, every DTYPE, slot counts 2 and 16 ----------------------

// CHECK-LABEL: func.func @spaces
// CHECK-SAME: !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
// CHECK-SAME: !pto.tile_buf<"mat", array<i64: 16, 16>, f32>
// CHECK-SAME: !pto.tile_buf<"left", array<i64: 16, 16>, f32>
// CHECK-SAME: !pto.tile_buf<"right", array<i64: 16, 16>, f32>
// CHECK-SAME: !pto.tile_buf<"acc", array<i64: 16, 16>, f32>
// CHECK-SAME: !pto.tile_buf<"bias", array<i64: 1, 64>, f32>
func.func @spaces(%vec: !v,
                  %mat: !pto.tile_buf<"mat", array<i64: 16, 16>, f32>,
                  %left: !pto.tile_buf<"left", array<i64: 16, 16>, f32>,
                  %right: !pto.tile_buf<"right", array<i64: 16, 16>, f32>,
                  %acc: !pto.tile_buf<"acc", array<i64: 16, 16>, f32>,
                  %bias: !pto.tile_buf<"bias", array<i64: 1, 64>, f32>) {
  return
}

// CHECK-LABEL: func.func @dtypes
// CHECK-SAME: !pto.tile_buf<"vec", array<i64: 32, 32>, i8>
// CHECK-SAME: !pto.tile_buf<"vec", array<i64: 32, 32>, i16>
// CHECK-SAME: !pto.tile_buf<"vec", array<i64: 32, 32>, i32>
// CHECK-SAME: !pto.tile_buf<"vec", array<i64: 32, 32>, f16>
// CHECK-SAME: !pto.tile_buf<"vec", array<i64: 32, 32>, bf16>
// CHECK-SAME: !pto.tile_buf<"vec", array<i64: 32, 32>, f32>
func.func @dtypes(%a: !pto.tile_buf<"vec", array<i64: 32, 32>, i8>,
                  %b: !pto.tile_buf<"vec", array<i64: 32, 32>, i16>,
                  %c: !pto.tile_buf<"vec", array<i64: 32, 32>, i32>,
                  %d: !pto.tile_buf<"vec", array<i64: 32, 32>, f16>,
                  %e: !pto.tile_buf<"vec", array<i64: 32, 32>, bf16>,
                  %f: !pto.tile_buf<"vec", array<i64: 32, 32>, f32>) {
  return
}

// CHECK-LABEL: func.func @multi_types
// CHECK-SAME: !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>
// CHECK-SAME: !pto.multi_tile_buf<!pto.tile_buf<"mat", array<i64: 16, 32>, f16>, 16 : i64>
func.func @multi_types(%a: !mb, %b: !pto.multi_tile_buf<!m, 16 : i64>) {
  return
}

// -- allocation ------------------------------------------------------------------

// CHECK-LABEL: func.func @alloc
// CHECK: %[[ADDR:.*]] = arith.constant 1024 : i64
// CHECK: %[[MADDR:.*]] = arith.constant 2048 : i64
// CHECK: "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
// CHECK: "pto.alloc_tile"(%[[ADDR]]) : (i64) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
// CHECK: "pto.alloc_multi_tile"() : () -> !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>
// CHECK: "pto.alloc_multi_tile"(%[[MADDR]]) : (i64) -> !pto.multi_tile_buf<!pto.tile_buf<"mat", array<i64: 16, 32>, f16>, 4 : i64>
func.func @alloc() {
  %addr = arith.constant 1024 : i64
  %maddr = arith.constant 2048 : i64
  %t0 = "pto.alloc_tile"() : () -> !v
  %t1 = "pto.alloc_tile"(%addr) : (i64) -> !v
  %mb0 = "pto.alloc_multi_tile"() : () -> !mb
  %mb1 = "pto.alloc_multi_tile"(%maddr) : (i64) -> !pto.multi_tile_buf<!m, 4 : i64>
  return
}

// CHECK-LABEL: func.func @multi_tile_get
// CHECK: %[[MB:.*]] = "pto.alloc_multi_tile"()
// CHECK: "pto.multi_tile_get"(%[[MB]], %{{.*}}) : (!pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>, index) -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
// CHECK: scf.for %[[IV:.*]] =
// CHECK: %[[SLOT:.*]] = arith.remui %[[IV]]
// CHECK: "pto.multi_tile_get"(%[[MB]], %[[SLOT]])
func.func @multi_tile_get() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %mb = "pto.alloc_multi_tile"() : () -> !mb
  %t1 = "pto.multi_tile_get"(%mb, %c1) : (!mb, index) -> !v
  scf.for %i = %c0 to %c8 step %c1 {
    %slot = arith.remui %i, %c2 : index
    %t = "pto.multi_tile_get"(%mb, %slot) : (!mb, index) -> !v
  } {pto.pipeline_stages = 1 : i64}
  return
}

// -- data movement ---------------------------------------------------------------

// CHECK-LABEL: func.func @transfer
// CHECK-SAME: (%[[SRC:.*]]: memref<64x64xf32>, %[[DST:.*]]: memref<?x?xf32>)
// CHECK: %[[T:.*]] = "pto.alloc_tile"()
// CHECK: "pto.tload"(%[[SRC]], %{{.*}}, %{{.*}}, %[[T]]) : (memref<64x64xf32>, index, index, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) -> ()
// CHECK: "pto.tstore"(%[[T]], %[[DST]], %{{.*}}, %{{.*}}) : (!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, memref<?x?xf32>, index, index) -> ()
// CHECK: %[[M:.*]] = "pto.alloc_tile"() : () -> !pto.tile_buf<"mat", array<i64: 16, 32>, f16>
// CHECK: %[[L:.*]] = "pto.alloc_tile"() : () -> !pto.tile_buf<"left", array<i64: 16, 32>, f16>
// CHECK: "pto.tmov"(%[[M]], %[[L]]) : (!pto.tile_buf<"mat", array<i64: 16, 32>, f16>, !pto.tile_buf<"left", array<i64: 16, 32>, f16>) -> ()
func.func @transfer(%src: memref<64x64xf32>, %dst: memref<?x?xf32>) {
  %c16 = arith.constant 16 : index
  %c48 = arith.constant 48 : index
  %t = "pto.alloc_tile"() : () -> !v
  "pto.tload"(%src, %c48, %c16, %t) : (memref<64x64xf32>, index, index, !v) -> ()
  "pto.tstore"(%t, %dst, %c16, %c48) : (!v, memref<?x?xf32>, index, index) -> ()
  %m = "pto.alloc_tile"() : () -> !m
  %l = "pto.alloc_tile"() : () -> !l
  "pto.tmov"(%m, %l) : (!m, !l) -> ()
  return
}

// -- vector ops ------------------------------------------------------------------

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[A:.*]]: !pto.tile_buf<"vec", array<i64: 16, 16>, f32>, %[[B:.*]]: !pto.tile_buf<"vec", array<i64: 16, 16>, f32>, %[[D:.*]]: !pto.tile_buf<"vec", array<i64: 16, 16>, f32>)
// CHECK-NEXT: "pto.tadd"(%[[A]], %[[B]], %[[D]]) : (!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) -> ()
// CHECK-NEXT: "pto.tsub"(%[[A]], %[[B]], %[[D]])
// CHECK-NEXT: "pto.tmul"(%[[A]], %[[B]], %[[D]])
// CHECK-NEXT: "pto.tmax"(%[[A]], %[[B]], %[[D]])
// CHECK-NEXT: "pto.tmin"(%[[A]], %[[B]], %[[D]])
// In place: dst is an input.
// CHECK-NEXT: "pto.tadd"(%[[A]], %[[B]], %[[A]])
func.func @binary(%a: !v, %b: !v, %d: !v) {
  "pto.tadd"(%a, %b, %d) : (!v, !v, !v) -> ()
  "pto.tsub"(%a, %b, %d) : (!v, !v, !v) -> ()
  "pto.tmul"(%a, %b, %d) : (!v, !v, !v) -> ()
  "pto.tmax"(%a, %b, %d) : (!v, !v, !v) -> ()
  "pto.tmin"(%a, %b, %d) : (!v, !v, !v) -> ()
  "pto.tadd"(%a, %b, %a) : (!v, !v, !v) -> ()
  return
}

// CHECK-LABEL: func.func @scalar
// CHECK-SAME: (%[[A:.*]]: !pto.tile_buf<"vec", array<i64: 16, 16>, f32>, %[[D:.*]]: !pto.tile_buf<"vec", array<i64: 16, 16>, f32>, %[[S:.*]]: f32, %[[I:.*]]: i32)
// CHECK-NEXT: "pto.tadds"(%[[A]], %[[S]], %[[D]]) : (!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, f32, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) -> ()
// CHECK-NEXT: "pto.tmuls"(%[[A]], %[[S]], %[[D]]) : (!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, f32, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) -> ()
// CHECK-NEXT: "pto.tmuls"(%[[A]], %[[I]], %[[D]]) : (!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, i32, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) -> ()
func.func @scalar(%a: !v, %d: !v, %s: f32, %i: i32) {
  "pto.tadds"(%a, %s, %d) : (!v, f32, !v) -> ()
  "pto.tmuls"(%a, %s, %d) : (!v, f32, !v) -> ()
  "pto.tmuls"(%a, %i, %d) : (!v, i32, !v) -> ()
  return
}

// CHECK-LABEL: func.func @unary
// CHECK-SAME: (%[[A:.*]]: !pto.tile_buf<"vec", array<i64: 16, 16>, f32>, %[[D:.*]]: !pto.tile_buf<"vec", array<i64: 16, 16>, f32>, %[[H:.*]]: !pto.tile_buf<"vec", array<i64: 16, 16>, f16>)
// CHECK-NEXT: "pto.texp"(%[[A]], %[[D]]) : (!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) -> ()
// CHECK-NEXT: "pto.tabs"(%[[A]], %[[D]])
// CHECK-NEXT: "pto.trelu"(%[[A]], %[[A]])
// CHECK-NEXT: "pto.tcvt"(%[[A]], %[[H]]) : (!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, !pto.tile_buf<"vec", array<i64: 16, 16>, f16>) -> ()
func.func @unary(%a: !v, %d: !v, %h: !vh) {
  "pto.texp"(%a, %d) : (!v, !v) -> ()
  "pto.tabs"(%a, %d) : (!v, !v) -> ()
  "pto.trelu"(%a, %a) : (!v, !v) -> ()
  "pto.tcvt"(%a, %h) : (!v, !vh) -> ()
  return
}

// -- cube ops ------------------------------------------------------------------

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[L:.*]]: !pto.tile_buf<"left", array<i64: 16, 32>, f16>, %[[R:.*]]: !pto.tile_buf<"right", array<i64: 32, 8>, f16>, %[[C:.*]]: !pto.tile_buf<"acc", array<i64: 16, 8>, f32>)
// CHECK-NEXT: "pto.tmatmul"(%[[L]], %[[R]], %[[C]]) : (!pto.tile_buf<"left", array<i64: 16, 32>, f16>, !pto.tile_buf<"right", array<i64: 32, 8>, f16>, !pto.tile_buf<"acc", array<i64: 16, 8>, f32>) -> ()
// CHECK-NEXT: "pto.tmatmul_acc"(%[[L]], %[[R]], %[[C]]) : (!pto.tile_buf<"left", array<i64: 16, 32>, f16>, !pto.tile_buf<"right", array<i64: 32, 8>, f16>, !pto.tile_buf<"acc", array<i64: 16, 8>, f32>) -> ()
func.func @matmul(%l: !l, %r: !r, %c: !a) {
  "pto.tmatmul"(%l, %r, %c) : (!l, !r, !a) -> ()
  "pto.tmatmul_acc"(%l, %r, %c) : (!l, !r, !a) -> ()
  return
}

// -- generic form ------------------------------------------------------------------

// GENERIC-LABEL: "func.func"() <{function_type = (!pto.tile_buf<"left", array<i64: 16, 32>, f16>
// GENERIC-SAME: sym_name = "matmul"
// GENERIC: "pto.tmatmul"(%{{.*}}, %{{.*}}, %{{.*}}) : (!pto.tile_buf<"left", array<i64: 16, 32>, f16>, !pto.tile_buf<"right", array<i64: 32, 8>, f16>, !pto.tile_buf<"acc", array<i64: 16, 8>, f32>) -> ()
// GENERIC: "func.return"() : () -> ()
