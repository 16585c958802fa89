// Instrumentation must not change the result: the reference implementation
// twice dropped the switch when it rebuilt its pass context, once under
// profiling and once under IR dumping.
// RUN: pto-opt %S/Inputs/kernel.mlir --pto-pipeline --use-ptoas-multi-buffer -o %t.plain.mlir
// RUN: pto-opt %S/Inputs/kernel.mlir --pto-pipeline --use-ptoas-multi-buffer --mlir-print-ir-after-all -o %t.printed.mlir 2>%t.dump
// RUN: pto-opt %S/Inputs/kernel.mlir --pto-pipeline --use-ptoas-multi-buffer --mlir-timing -o %t.timed.mlir 2>%t.timing
// RUN: pto-opt %S/Inputs/kernel.mlir --pass-pipeline='builtin.module(pto-pipeline{use-ptoas-multi-buffer=true arch=a3})' --mlir-print-ir-after-all --mlir-timing -o %t.both.mlir 2>/dev/null
// RUN: diff %t.plain.mlir %t.printed.mlir
// RUN: diff %t.plain.mlir %t.timed.mlir
// RUN: diff %t.plain.mlir %t.both.mlir
// RUN: FileCheck %s --check-prefix=RESULT < %t.printed.mlir
// RUN: FileCheck %s --check-prefix=DUMP < %t.dump
// RUN: FileCheck %s --check-prefix=TIMING < %t.timing
// The same holds with the switch off.
// RUN: env PTO_PTOAS_MULTI_BUFFER=0 pto-opt %S/Inputs/kernel.mlir --pto-pipeline -o %t.off.mlir
// RUN: env PTO_PTOAS_MULTI_BUFFER=0 pto-opt %S/Inputs/kernel.mlir --pto-pipeline --mlir-print-ir-after-all --mlir-timing -o %t.off.instrumented.mlir 2>/dev/null
// RUN: diff %t.off.mlir %t.off.instrumented.mlir

// RESULT: "pto.alloc_multi_tile"

// Each sub-pass of pto-pipeline is a pass of its own in the dump and timing.
// DUMP: IR Dump After ConvertToPtoasMultiBuffer (convert-to-ptoas-multi-buffer)
// DUMP: IR Dump After LowerPipelineLoops (pto-lower-pipeline-loops)
// DUMP: IR Dump After AllocateMemoryAddr (pto-allocate-memory-addr)
// TIMING: Execution time report
// TIMING-DAG: ConvertToPtoasMultiBuffer
// TIMING-DAG: LowerPipelineLoops
// TIMING-DAG: AllocateMemoryAddr
