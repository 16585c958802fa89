// Command-line and pipeline errors: one `pto-opt: error:` (or pipeline
// parser) message on stderr, exit code 1, never a Python traceback.
//
// Unknown flag (neither a pto-opt flag, a pto pass nor an upstream pass):
// RUN: not pto-opt %s --no-such-flag 2>&1 | FileCheck %s --check-prefix=FLAG --implicit-check-not=Traceback
// RUN: not pto-opt %s -x 2>&1 | FileCheck %s --check-prefix=SHORT --implicit-check-not=Traceback
// FLAG: pto-opt: error: unknown command line argument '--no-such-flag' (not a pto-opt flag, a pto pass or an upstream pass)
// SHORT: pto-opt: error: unknown command line argument '-x'
//
// Unknown pass in a pipeline (at top level and nested):
// RUN: not pto-opt %s --pass-pipeline='builtin.module(cse,no-such-pass)' 2>&1 | FileCheck %s --check-prefix=PASS --implicit-check-not=Traceback
// PASS: MLIR Textual PassPipeline Parser:1:20: error: 'no-such-pass' does not refer to a registered pass or pass pipeline
// PASS-NEXT: builtin.module(cse,no-such-pass)
// PASS-NEXT: {{^                   \^}}
// RUN: not pto-opt %s --pass-pipeline='builtin.module(func.func(no-such-pass))' 2>&1 | FileCheck %s --check-prefix=NESTED-PASS --implicit-check-not=Traceback
// NESTED-PASS: error: 'no-such-pass' does not refer to a registered pass or pass pipeline
//
// Bad option values, for pto passes and upstream passes:
// RUN: not pto-opt %s '--pto-verify{arch=a7}' 2>&1 | FileCheck %s --check-prefix=VALUE --implicit-check-not=Traceback
// RUN: not pto-opt %s --pass-pipeline='builtin.module(pto-verify{arch=a7})' 2>&1 | FileCheck %s --check-prefix=VALUE --implicit-check-not=Traceback
// VALUE: error: {{.*}}option 'arch': 'a7' is not one of a2, a3, a5
// RUN: not pto-opt %s '--canonicalize{max-iterations=many}' 2>&1 | FileCheck %s --check-prefix=CXX-VALUE --implicit-check-not=Traceback
// CXX-VALUE: pto-opt: error: --canonicalize{max-iterations=many}: failed to add `canonicalize` with options `max-iterations=many`
// RUN: not pto-opt %s --pto-verify='arch' 2>&1 | FileCheck %s --check-prefix=NO-VALUE --implicit-check-not=Traceback
// NO-VALUE: pto-opt: error: --pto-verify=arch: option 'arch' needs a value
//
// Unknown options:
// RUN: not pto-opt %s '--pto-verify{level=2}' 2>&1 | FileCheck %s --check-prefix=OPTION --implicit-check-not=Traceback
// OPTION: pto-opt: error: --pto-verify{level=2}: pass 'pto-verify' has no option 'level' (options: arch)
// RUN: not pto-opt %s --pass-pipeline='builtin.module(cse{level=2})' 2>&1 | FileCheck %s --check-prefix=CXX-OPTION --implicit-check-not=Traceback
// CXX-OPTION: error: {{.*}}no such option level
//
// Unbalanced pipelines:
// RUN: not pto-opt %s --pass-pipeline='builtin.module(cse' 2>&1 | FileCheck %s --check-prefix=PAREN --implicit-check-not=Traceback
// PAREN: MLIR Textual PassPipeline Parser:1:15: error: encountered unbalanced parentheses while parsing pipeline
// RUN: not pto-opt %s --pass-pipeline='builtin.module(cse))' 2>&1 | FileCheck %s --check-prefix=EXTRA --implicit-check-not=Traceback
// EXTRA: MLIR Textual PassPipeline Parser:1:20: error: unexpected ')' in pipeline
// RUN: not pto-opt %s --pass-pipeline='builtin.module(pto-verify{arch=a5)' 2>&1 | FileCheck %s --check-prefix=BRACE --implicit-check-not=Traceback
// BRACE: MLIR Textual PassPipeline Parser:1:26: error: unbalanced '{' in pass options
// RUN: not pto-opt %s '--pto-verify{arch=a5' 2>&1 | FileCheck %s --check-prefix=FLAG-BRACE --implicit-check-not=Traceback
// FLAG-BRACE: pto-opt: error: unbalanced '{' in '--pto-verify{arch=a5'
//
// A pto pass runs on the module; it cannot be nested under an op anchor:
// RUN: not pto-opt %s --pass-pipeline='builtin.module(func.func(cse,pto-verify))' 2>&1 | FileCheck %s --check-prefix=ANCHOR --implicit-check-not=Traceback
// ANCHOR: MLIR Textual PassPipeline Parser:1:30: error: pto pass 'pto-verify' runs on builtin.module; it cannot be nested in 'func.func(...)'
// RUN: not pto-opt %s --pass-pipeline='builtin.module(pto-verify(cse))' 2>&1 | FileCheck %s --check-prefix=NOT-ANCHOR --implicit-check-not=Traceback
// NOT-ANCHOR: error: 'pto-verify' is a pass, not an op anchor
//
// Other command-line mistakes:
// RUN: not pto-opt %s --cse --pass-pipeline='builtin.module(cse)' 2>&1 | FileCheck %s --check-prefix=BOTH --implicit-check-not=Traceback
// BOTH: pto-opt: error: '--pass-pipeline' cannot be used with individual pass flags
// RUN: not pto-opt %s -o 2>&1 | FileCheck %s --check-prefix=NO-OUT --implicit-check-not=Traceback
// NO-OUT: pto-opt: error: option '-o' requires a value
// RUN: not pto-opt %s %s 2>&1 | FileCheck %s --check-prefix=TWO --implicit-check-not=Traceback
// TWO: pto-opt: error: too many positional arguments
// RUN: not pto-opt %s --verify-each=maybe 2>&1 | FileCheck %s --check-prefix=BOOL --implicit-check-not=Traceback
// BOOL: pto-opt: error: invalid value for --verify-each: 'maybe' is not a boolean
//
// Unreadable input:
// RUN: not pto-opt %t.missing.mlir 2>&1 | FileCheck %s --check-prefix=READ --implicit-check-not=Traceback
// READ: pto-opt: error: could not open input file '{{.*}}missing.mlir': No such file or directory
//
// An error in the input shows file:line:col, the source line and a caret.
// RUN: not pto-opt %S/Inputs/invalid.mlir 2>&1 | FileCheck %s --check-prefix=IR --strict-whitespace --implicit-check-not=Traceback
// IR: invalid.mlir:4:8: error: addr 16 is not aligned to 32 bytes (space "vec")
// IR-NEXT: {{^}}  %t = "pto.alloc_tile"(%a) : (i64)
// IR-NEXT: {{^       \^$}}

func.func @errors() {
  return
}
