// The IRDL file is the C++ entry point: stock `mlir-opt --irdl-file` parses
// and verifies what pto-opt does, and the two tools read each other's output.
//
// REQUIRES: cxx-mlir-opt
//
// mlir-opt accepts the round-trip input, and its output passes the same checks.
// RUN: mlir-opt --irdl-file=%pto_irdl %S/roundtrip.mlir | FileCheck %S/roundtrip.mlir
// RUN: mlir-opt --irdl-file=%pto_irdl %S/roundtrip.mlir --mlir-print-op-generic | FileCheck %S/roundtrip.mlir --check-prefix=GENERIC
//
// pto-opt's output (custom and generic form) is accepted by mlir-opt ...
// RUN: pto-opt %S/roundtrip.mlir | mlir-opt --irdl-file=%pto_irdl | FileCheck %S/roundtrip.mlir
// RUN: pto-opt %S/roundtrip.mlir --mlir-print-op-generic | mlir-opt --irdl-file=%pto_irdl | FileCheck %S/roundtrip.mlir
// ... and mlir-opt's output by pto-opt.
// RUN: mlir-opt --irdl-file=%pto_irdl %S/roundtrip.mlir | pto-opt | FileCheck %S/roundtrip.mlir
//
// Every IRDL rule gives mlir-opt the same diagnostic at the same place as pto-opt.
// RUN: mlir-opt --irdl-file=%pto_irdl %S/invalid-ops.mlir --split-input-file --verify-diagnostics
// RUN: mlir-opt --irdl-file=%pto_irdl %S/invalid-types-irdl.mlir --split-input-file --verify-diagnostics
//
// And mlir-opt rejects an invalid input outright (this file: see below).
// RUN: not mlir-opt --irdl-file=%pto_irdl %s 2>&1 | FileCheck %s --check-prefix=REJECT
//
// The rules IRDL cannot express are pto-opt's: mlir-opt accepts this slot 5
// of 2 (IRDL has no constant evaluation), pto-opt does not.
// RUN: mlir-opt --irdl-file=%pto_irdl %S/Inputs/slot-out-of-range.mlir | FileCheck %s --check-prefix=CXX-ACCEPTS
// RUN: not pto-opt %S/Inputs/slot-out-of-range.mlir 2>&1 | FileCheck %s --check-prefix=PTO-REJECTS

// REJECT: cxx-interop.mlir:[[@LINE+2]]:3: error: expected 'array<i64: 16, 16>' but got 'array<i64: 8, 16>'
func.func @shape_mismatch(%a: !pto.tile_buf<"vec", array<i64: 16, 16>, f32>, %b: !pto.tile_buf<"vec", array<i64: 8, 16>, f32>) {
  "pto.tadd"(%a, %b, %a) : (!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, !pto.tile_buf<"vec", array<i64: 8, 16>, f32>, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) -> ()
  return
}

// CXX-ACCEPTS: "pto.multi_tile_get"(%{{.*}}, %{{.*}}) : (!pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>, index)
// PTO-REJECTS: slot-out-of-range.mlir:[[#]]:{{[0-9]+}}: error: slot 5 is out of range [0, 2)
