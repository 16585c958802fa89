// Upstream C++ passes and pto passes in one pipeline, as flags (in flag
// order) or as --pass-pipeline text (wrapped in builtin.module(...) or a bare
// list), with pass options in both MLIR syntaxes.
//
// cse merges the two constants; canonicalize drops the unused one.
// RUN: pto-opt %s --cse | FileCheck %s --check-prefix=CSE
// RUN: pto-opt %s --cse --pto-verify --canonicalize | FileCheck %s --check-prefix=CSE
// RUN: pto-opt %s --pass-pipeline='builtin.module(cse,pto-verify,canonicalize)' | FileCheck %s --check-prefix=CSE
// RUN: pto-opt %s --pass-pipeline='cse, pto-verify, canonicalize' | FileCheck %s --check-prefix=CSE
// RUN: pto-opt %s --pass-pipeline='builtin.module(func.func(cse),pto-verify)' | FileCheck %s --check-prefix=CSE
// RUN: pto-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations=4 region-simplify=disabled},pto-verify{arch=a5},cse)' | FileCheck %s --check-prefix=CSE
// CSE: func.func @pipeline(%[[SRC:.*]]: memref<64x64xf32>)
// CSE-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CSE-NEXT: %[[T:.*]] = "pto.alloc_tile"()
// CSE-NEXT: "pto.tload"(%[[SRC]], %[[C0]], %[[C0]], %[[T]])
// CSE-NEXT: "pto.tadd"(%[[T]], %[[T]], %[[T]])
// CSE-NEXT: "pto.tstore"(%[[T]], %[[SRC]], %[[C0]], %[[C0]])
// CSE-NEXT: return
//
// No pass: the input as parsed.
// RUN: pto-opt %s | FileCheck %s --check-prefix=NONE
// RUN: pto-opt %s --pass-pipeline='builtin.module()' | FileCheck %s --check-prefix=NONE
// NONE: %c0 = arith.constant 0 : index
// NONE-NEXT: %c0_0 = arith.constant 0 : index
//
// Passes run in the order given, pto and C++ interleaved.
// RUN: pto-opt %s --canonicalize --pto-verify --cse --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=ORDER
// RUN: pto-opt %s --pass-pipeline='builtin.module(canonicalize,pto-verify,cse)' --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=ORDER
// ORDER: IR Dump After Canonicalizer (canonicalize)
// ORDER: IR Dump After PtoVerify (pto-verify)
// ORDER: IR Dump After CSE (cse)
// ORDER-NOT: IR Dump After Canonicalizer
// A failing pto pass stops the pipeline: what comes after it does not run.
// RUN: not pto-opt %S/Inputs/a5-only.mlir --cse '--pto-verify{arch=a3}' --canonicalize --mlir-print-ir-after-all 2>&1 | FileCheck %s --check-prefix=STOPS
// STOPS: IR Dump After CSE (cse)
// STOPS: IR Dump After PtoVerify Failed (pto-verify)
// STOPS: error: {{.*}} (196608 bytes on a3)
// STOPS-NOT: Canonicalizer
//
// pto pass options: `pass{opt=v}`, `pass=opt=v`, quoted, in a pipeline.
// Inputs/a5-only.mlir holds a tile that fits vec on a5 but not on a3.
// RUN: pto-opt %S/Inputs/a5-only.mlir --pto-verify | FileCheck %s --check-prefix=A5-OK
// RUN: pto-opt %S/Inputs/a5-only.mlir '--pto-verify{arch=a5}' | FileCheck %s --check-prefix=A5-OK
// RUN: pto-opt %S/Inputs/a5-only.mlir --pto-verify='arch=a5' | FileCheck %s --check-prefix=A5-OK
// RUN: pto-opt %S/Inputs/a5-only.mlir --pass-pipeline='builtin.module(pto-verify{arch=a5})' | FileCheck %s --check-prefix=A5-OK
// A5-OK: "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 256, 224>, f32>
// RUN: not pto-opt %S/Inputs/a5-only.mlir '--pto-verify{arch=a3}' 2>&1 | FileCheck %s --check-prefix=A3-FAILS
// RUN: not pto-opt %S/Inputs/a5-only.mlir --pto-verify='arch=a3' 2>&1 | FileCheck %s --check-prefix=A3-FAILS
// RUN: not pto-opt %S/Inputs/a5-only.mlir --pto-verify=arch=a3 2>&1 | FileCheck %s --check-prefix=A3-FAILS
// RUN: not pto-opt %S/Inputs/a5-only.mlir --pass-pipeline='cse,pto-verify{arch=a2}' 2>&1 | FileCheck %s --check-prefix=A2-FAILS
// A3-FAILS: a5-only.mlir:4:10: error: invalid type !pto.tile_buf<"vec", array<i64: 256, 224>, f32>: tile of 229376 bytes does not fit in space "vec" (196608 bytes on a3)
// A3-FAILS-NOT: error
// A2-FAILS: a5-only.mlir:4:10: error: {{.*}} (196608 bytes on a2)
//
// The verifier runs after upstream passes as well, under the module's arch.
// RUN: pto-opt %S/Inputs/a5-only.mlir --canonicalize --cse | FileCheck %s --check-prefix=A5-OK
//
// --verify-each=false skips verification between passes (not after parsing).
// RUN: pto-opt %s --cse --verify-each=false | FileCheck %s --check-prefix=CSE

func.func @pipeline(%src: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c0_dup = arith.constant 0 : index
  %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  "pto.tload"(%src, %c0, %c0_dup, %t) : (memref<64x64xf32>, index, index, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) -> ()
  "pto.tadd"(%t, %t, %t) : (!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>, !pto.tile_buf<"vec", array<i64: 16, 16>, f32>) -> ()
  "pto.tstore"(%t, %src, %c0, %c0_dup) : (!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, memref<64x64xf32>, index, index) -> ()
  return
}
