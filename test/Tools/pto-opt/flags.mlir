// The informational flags and the printing flags of pto-opt.
//
// RUN: pto-opt --version | FileCheck %s --check-prefix=VERSION
// VERSION: pto-opt {{[0-9]+\.[0-9]+\.[0-9]+}} (pto dialect; MLIR Python bindings, LLVM 22.1.8)
//
// RUN: pto-opt --help | FileCheck %s --check-prefix=HELP
// RUN: pto-opt -h | FileCheck %s --check-prefix=HELP
// HELP: USAGE: pto-opt [options] [FILE|-]
// HELP: --pass-pipeline=<pipeline>
// HELP: --split-input-file
// HELP: --verify-diagnostics
//
// --list-passes is generated from the pass classes: name, summary, options.
// RUN: pto-opt --list-passes | FileCheck %s --check-prefix=LIST
// LIST: Available pto passes:
// LIST: --pto-verify Check the pto rules that IRDL cannot express.
// LIST-NEXT: --arch=<string> check capacities for this arch instead of the module's pto.target_arch
// LIST: Upstream C++ passes (canonicalize, cse, ...) mix freely with these
// RUN: pto-opt --list-passes --verbose | FileCheck %s --check-prefix=VERBOSE
// VERBOSE: --pto-verify
// VERBOSE: `pto-opt` runs these checks after parsing and after every pass anyway;
//
// RUN: pto-opt --show-dialects | FileCheck %s --check-prefix=DIALECTS
// DIALECTS: Available Dialects: {{.*}}arith{{.*}}, func, {{.*}}memref{{.*}}, pto, {{.*}}scf,
//
// --mlir-print-debuginfo prints locations naming the input file.
// RUN: pto-opt %s --mlir-print-debuginfo | FileCheck %s --check-prefix=DEBUG
// RUN: pto-opt --mlir-print-debuginfo < %s | FileCheck %s --check-prefix=DEBUG-STDIN
// DEBUG: "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32> loc([[LOC:#loc[0-9]*]])
// DEBUG: [[LOC]] = loc("{{.*}}flags.mlir":[[# @LINE + 39]]:8)
// DEBUG-STDIN: loc("<stdin>":[[# @LINE + 38]]:8)
//
// RUN: pto-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// GENERIC: "builtin.module"() ({
// GENERIC: "func.func"() <{function_type = () -> (), sym_name = "flags"}> ({
// GENERIC: "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
// GENERIC: "func.return"() : () -> ()
//
// Ops of unknown dialects are an error unless allowed.
// RUN: not pto-opt %S/Inputs/unregistered.mlir --allow-unregistered-dialect=false 2>&1 | FileCheck %s --check-prefix=UNREG
// RUN: not pto-opt %S/Inputs/unregistered.mlir 2>&1 | FileCheck %s --check-prefix=UNREG
// UNREG: error: operation being parsed with an unregistered dialect
// RUN: pto-opt %S/Inputs/unregistered.mlir --allow-unregistered-dialect | FileCheck %s --check-prefix=ALLOW
// ALLOW: "test.unknown"() : () -> ()
//
// --mlir-print-ir-after-all prints the IR after each pass, C++ or Python, on stderr.
// RUN: pto-opt %S/Inputs/tile.mlir --cse --pto-verify --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=AFTER
// AFTER: // -----// IR Dump After CSE (cse) //----- //
// AFTER-NEXT: module {
// AFTER: "pto.tload"(%arg0, %c0, %c0, %0)
// The pto rules are checked again after upstream passes, by a step of its own:
// AFTER: // -----// IR Dump After PtoVerifyAfterUpstreamPasses (pto-verify-after-upstream) //----- //
// AFTER: // -----// IR Dump After PtoVerify (pto-verify) //----- //
// AFTER-NEXT: module {
//
// --mlir-timing reports each pass.
// RUN: pto-opt %S/Inputs/tile.mlir --canonicalize --pto-verify --mlir-timing 2>&1 >/dev/null | FileCheck %s --check-prefix=TIMING
// TIMING: Execution time report
// TIMING: Total Execution Time:
// TIMING-DAG: Canonicalizer
// TIMING-DAG: PtoVerify
// TIMING: Total
//
// The pto verifier runs after parsing, so a flag-only run rejects invalid IR.
// RUN: not pto-opt %S/Inputs/invalid.mlir 2>&1 | FileCheck %s --check-prefix=PARSE-VERIFY
// PARSE-VERIFY: invalid.mlir:4:8: error: addr 16 is not aligned to 32 bytes (space "vec")

func.func @flags() {
  %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  return
}
