// --save writes the result buffers (and returned scalars) to an .npz file,
// by name; bf16 buffers as float32 values. With --compare-pipeline, the
// runs before and after the pipeline are both saved.

// RUN: pto-run %s --func k --save %t.npz
// RUN: %python -c "import numpy as np; d = np.load('%t.npz'); print(sorted(d.files)); print(d['X'].dtype, d['X'].shape, d['Y'].dtype, int(d['return_0'])); print(bool((d['Y'] == 2 * d['X']).all()))" | FileCheck %s
// CHECK:      ['X', 'Y', 'return_0']
// CHECK-NEXT: float32 (8, 16) float32 7
// CHECK-NEXT: True

// RUN: pto-run %s --func k --save %t2.npz --compare-pipeline convert-to-ptoas-multi-buffer
// RUN: %python -c "import numpy as np; d = np.load('%t2.npz'); print(sorted(d.files)); print(bool((d['before/Y'] == d['after/Y']).all()))" | FileCheck %s --check-prefix=BOTH
// BOTH:      ['after/X', 'after/Y', 'after/return_0', 'before/X', 'before/Y', 'before/return_0']
// BOTH-NEXT: True

// RUN: not pto-run %s --func k --save %t.missing/dir/out.npz 2>&1 | FileCheck %s --check-prefix=NODIR
// NODIR: pto-run: error: could not write '{{.*}}out.npz': No such file or directory

!t = !pto.tile_buf<"vec", array<i64: 8, 16>, bf16>
func.func @k(%X: memref<8x16xbf16>, %Y: memref<8x16xbf16>) -> index {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : index
  %t = "pto.alloc_tile"() : () -> !t
  "pto.tload"(%X, %c0, %c0, %t) : (memref<8x16xbf16>, index, index, !t) -> ()
  "pto.tadd"(%t, %t, %t) : (!t, !t, !t) -> ()
  "pto.tstore"(%t, %Y, %c0, %c0) : (!t, memref<8x16xbf16>, index, index) -> ()
  return %c7 : index
}
