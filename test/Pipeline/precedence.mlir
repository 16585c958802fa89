// Where the switch comes from: the pass option, else the flag (or Python
// keyword), else $PTO_PTOAS_MULTI_BUFFER, else off. --verbose says which.

// Environment only.
// RUN: env PTO_PTOAS_MULTI_BUFFER=1 pto-opt %S/Inputs/kernel.mlir --pto-pipeline --verbose 2>%t.env.err | FileCheck %s --check-prefix=ON
// RUN: FileCheck %s --check-prefix=FROM-ENV < %t.env.err
// RUN: env PTO_PTOAS_MULTI_BUFFER=yes pto-opt %S/Inputs/kernel.mlir --pto-pipeline | FileCheck %s --check-prefix=ON
// RUN: env PTO_PTOAS_MULTI_BUFFER=off pto-opt %S/Inputs/kernel.mlir --pto-pipeline | FileCheck %s --check-prefix=OFF

// The flag overrides the environment, both ways.
// RUN: env PTO_PTOAS_MULTI_BUFFER=1 pto-opt %S/Inputs/kernel.mlir --pto-pipeline --use-ptoas-multi-buffer=false --verbose 2>%t.flag-off.err | FileCheck %s --check-prefix=OFF
// RUN: FileCheck %s --check-prefix=FROM-FLAG-OFF < %t.flag-off.err
// RUN: env PTO_PTOAS_MULTI_BUFFER=0 pto-opt %S/Inputs/kernel.mlir --pto-pipeline --use-ptoas-multi-buffer | FileCheck %s --check-prefix=ON

// The pass option overrides the flag (and the environment), both ways.
// RUN: pto-opt %S/Inputs/kernel.mlir --use-ptoas-multi-buffer --pto-pipeline{use-ptoas-multi-buffer=false} --verbose 2>%t.opt.err | FileCheck %s --check-prefix=OFF
// RUN: FileCheck %s --check-prefix=FROM-OPTION-OFF < %t.opt.err
// RUN: env PTO_PTOAS_MULTI_BUFFER=0 pto-opt %S/Inputs/kernel.mlir --use-ptoas-multi-buffer=false --pass-pipeline='builtin.module(pto-pipeline{use-ptoas-multi-buffer=true})' | FileCheck %s --check-prefix=ON

// Nothing said: off.
// RUN: env -u PTO_PTOAS_MULTI_BUFFER pto-opt %S/Inputs/kernel.mlir --pto-pipeline --verbose 2>%t.default.err | FileCheck %s --check-prefix=OFF
// RUN: FileCheck %s --check-prefix=FROM-DEFAULT < %t.default.err

// A value that is not a boolean is an error, not a silent "off".
// RUN: env PTO_PTOAS_MULTI_BUFFER=maybe not pto-opt %S/Inputs/kernel.mlir --pto-pipeline 2>&1 | FileCheck %s --check-prefix=BAD-ENV

// ON: "pto.alloc_multi_tile"
// OFF-NOT: "pto.alloc_multi_tile"
// FROM-ENV: remark: pto-pipeline: use-ptoas-multi-buffer is on, from the environment (PTO_PTOAS_MULTI_BUFFER=1)
// FROM-FLAG-OFF: remark: pto-pipeline: use-ptoas-multi-buffer is off, from the --use-ptoas-multi-buffer flag
// FROM-OPTION-OFF: remark: pto-pipeline: use-ptoas-multi-buffer is off, from the pto-pipeline option use-ptoas-multi-buffer
// FROM-DEFAULT: remark: pto-pipeline: use-ptoas-multi-buffer is off, from the default (off)
// BAD-ENV: error: pto-pipeline: PTO_PTOAS_MULTI_BUFFER: 'maybe' is not a boolean
