// pto-run --cycles: the pipe timing model's estimate (a model with the a3
// parameter table, not measured hardware). Per iteration a 16x16 f32 tile is
// loaded (MTE2: 64 + 1024/64 = 80 cycles), scaled (V: 8 + 1024/256 = 12) and
// stored (MTE3: 32 + 1024/64 = 48).
//
// One buffer: the load of tile i+1 overwrites %a, which the scale of tile i
// reads, so it starts when that scale ends: 3 * (80 + 12) + 80 + 12 + 48 = 416.
// RUN: pto-run %s --func k --cycles | FileCheck %s
// CHECK:      %B  memref<64x16xf32>  out
// CHECK-NEXT: cycles: 416
// CHECK-NEXT:   pipe   ops      busy  utilisation
// CHECK-NEXT:   MTE2     4       320        76.9%
// CHECK-NEXT:   MTE1     0         0         0.0%
// CHECK-NEXT:   V        4        48        11.5%
// CHECK-NEXT:   M        0         0         0.0%
// CHECK-NEXT:   MTE3     4       192        46.2%
// CHECK-NEXT:   lower bound: 320 (MTE2, the busiest pipe)
// CHECK-NEXT:   efficiency: 76.9% (lower bound / cycles)

// Two slots: the loads run back to back (4 * 80) and the last scale and
// store follow: 320 + 12 + 48 = 380. --cycles reports both runs and the gain.
// RUN: pto-run %s --func k --cycles --compare-pipeline 'pto-pipeline{use-ptoas-multi-buffer=true}' | FileCheck %s --check-prefix=GAIN
// GAIN:      cycles: 416
// GAIN:      after 'pto-pipeline{use-ptoas-multi-buffer=true}': cycles: 380
// GAIN:        lower bound: 320 (MTE2, the busiest pipe)
// GAIN-NEXT:   efficiency: 84.2% (lower bound / cycles)
// GAIN-NEXT: cycles: 416 -> 380 after 'pto-pipeline{use-ptoas-multi-buffer=true}' (speedup 1.09x)
// GAIN-NEXT: compare: identical after

// Replication (the default path) overlaps the same way.
// RUN: pto-run %s --func k --cycles --pass-pipeline pto-pipeline | FileCheck %s --check-prefix=REPLICATED
// REPLICATED: cycles: 380

// A function without pto ops has no pipe work.
// RUN: pto-run %s --func scalar --arg n=3 --cycles | FileCheck %s --check-prefix=EMPTY
// EMPTY:      cycles: 0
// EMPTY:        lower bound: 0 (no pipe ops executed)
// EMPTY-NEXT:   efficiency: - (lower bound / cycles)

!t = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>

func.func @k(%A: memref<64x16xf32>, %B: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %s = arith.constant 2.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    %a = "pto.alloc_tile"() : () -> !t
    %b = "pto.alloc_tile"() : () -> !t
    %row = arith.muli %i, %c16 : index
    "pto.tload"(%A, %row, %c0, %a) : (memref<64x16xf32>, index, index, !t) -> ()
    "pto.tmuls"(%a, %s, %b) : (!t, f32, !t) -> ()
    "pto.tstore"(%b, %B, %row, %c0) : (!t, memref<64x16xf32>, index, index) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}

func.func @scalar(%n: index) -> index {
  %c1 = arith.constant 1 : index
  %r = arith.addi %n, %c1 : index
  return %r : index
}
