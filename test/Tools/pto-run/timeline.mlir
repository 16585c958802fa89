// pto-run --timeline OUT.json: the pipe schedule for tools (two iterations
// of load 80, scale 12, store 48 cycles: 92 + 92 + 48 = 232), one entry per
// run (two with --compare-pipeline), every op with its pipe, start, end,
// location and the multi-buffer slot it works on.
// RUN: pto-run %s --func k --timeline %t.json > /dev/null
// RUN: FileCheck %s --input-file %t.json
// CHECK:      "model": "pipe timing model: an estimate from a parameter table, not measured hardware"
// CHECK:      "label": "run"
// CHECK-NEXT: "function": "k"
// CHECK-NEXT: "arch": "a3"
// CHECK-NEXT: "cycles": 232
// CHECK-NEXT: "lower_bound": 160
// CHECK-NEXT: "bound_pipe": "MTE2"
// CHECK:      "pipe": "MTE2",
// CHECK-NEXT: "start": 0,
// CHECK-NEXT: "end": 80,
// CHECK-NEXT: "op": "pto.tload",
// CHECK-NEXT: "location": "{{.*}}timeline.mlir:[[@LINE+34]]:5",
// CHECK-NEXT: "slot": null
// CHECK:      "pipe": "V",
// CHECK-NEXT: "start": 80,
// CHECK-NEXT: "end": 92,

// RUN: pto-run %s --func k --pass-pipeline convert-to-ptoas-multi-buffer --compare-pipeline pto-allocate-memory-addr --timeline %t2.json > /dev/null
// RUN: FileCheck %s --input-file %t2.json --check-prefix=TWO
// TWO:      "label": "before"
// TWO:      "slot": 0
// TWO:      "label": "after 'pto-allocate-memory-addr'"

// A chart: one Gantt panel per run.
// RUN: pto-run %s --func k --cycles --compare-pipeline 'pto-pipeline{use-ptoas-multi-buffer=true}' --timeline %t.png > /dev/null
// RUN: %python -c "import sys; data = open(sys.argv[1], 'rb').read(); sys.exit(0 if data[:8] == b'\x89PNG\r\n\x1a\n' else 1)" %t.png

// Formats it cannot write, and unwritable paths, are errors before or after the run.
// RUN: not pto-run %s --func k --timeline %t.txt 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: pto-run: error: --timeline: cannot write '.txt' files (use .json, or .png, .svg, .pdf with matplotlib)
// RUN: not pto-run %s --func k --timeline %t.missing/out.json 2>&1 | FileCheck %s --check-prefix=WRITE
// WRITE: pto-run: error: could not write '{{.*}}out.json': No such file or directory

!t = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

func.func @k(%A: memref<32x16xf32>, %B: memref<32x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %s = arith.constant 2.0 : f32
  scf.for %i = %c0 to %c2 step %c1 {
    %a = "pto.alloc_tile"() : () -> !t
    %b = "pto.alloc_tile"() : () -> !t
    %row = arith.muli %i, %c16 : index
    "pto.tload"(%A, %row, %c0, %a) : (memref<32x16xf32>, index, index, !t) -> ()
    "pto.tmuls"(%a, %s, %b) : (!t, f32, !t) -> ()
    "pto.tstore"(%b, %B, %row, %c0) : (!t, memref<32x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}
