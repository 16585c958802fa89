// RUN: pto-opt %s --pto-allocate-memory-addr --pto-memory-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=TEXT
// RUN: pto-opt %s --pto-allocate-memory-addr=report=text -o /dev/null 2>&1 | FileCheck %s --check-prefix=TEXT
// RUN: pto-opt %s --pto-allocate-memory-addr --pto-memory-report=json -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON
// RUN: pto-opt %s --pto-allocate-memory-addr=report=json -o /dev/null 2>%t.json
// RUN: %python -c "import json, sys; d = json.load(open(sys.argv[1])); f = d['memory'][0]; print(f['function'], f['peak'], f['capacity'], [(b['addr'], b['size'], b['first'], b['last'], b['fixed']) for b in f['buffers']])" %t.json | FileCheck %s --check-prefix=DATA
// RUN: not pto-opt %s --pto-memory-report=yaml 2>&1 | FileCheck %s --check-prefix=BAD

// The memory report: per function and space the peak against the capacity,
// then each buffer's address range, size, lifetime (program points and the
// ops bounding it) and, where it lives through a whole loop, why.

// TEXT:      memory of @kernel (arch a3):
// TEXT-NEXT:   vec: peak 5120 of 196608 bytes (2.6%), at most 4096 bytes live at once, 3 buffers
// TEXT-NEXT:     [     0,   2048)   2048 B  points 6-13 (45:9 to 46:3)  !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64> at 45:9
// TEXT-NEXT:         lives through the scf.for at 46:3: defined before the loop and used in it
// TEXT-NEXT:     [  2048,   3072)   1024 B  points 7-13 (46:3 to 46:3)  !pto.tile_buf<"vec", array<i64: 16, 16>, f32> at 47:12
// TEXT-NEXT:         lives through the scf.for at 46:3: loop-carried through memory: it is read by 'pto.tadd' before it is written in the iteration
// TEXT-NEXT:     [  4096,   5120)   1024 B  points 5-14 (44:12 to 53:3)  !pto.tile_buf<"vec", array<i64: 16, 16>, f32> at 44:12  fixed by the input
// TEXT-NEXT: memory of @empty (arch a3):
// TEXT-NEXT:   no buffers

// JSON:      "memory": [
// JSON:          "function": "kernel",
// JSON-NEXT:     "arch": "a3",
// JSON-NEXT:     "peak": {
// JSON-NEXT:       "vec": 5120
// JSON:          "whole_loops": [{{$}}
// JSON:            "the scf.for at {{.*}}:46:3: loop-carried through memory: it is read by 'pto.tadd' before it is written in the iteration"
// JSON:          "live_peak": {
// JSON-NEXT:       "vec": 4096

// DATA: kernel {'vec': 5120} {'vec': 196608} [(4096, 1024, 5, 14, True), (0, 2048, 6, 13, False), (2048, 1024, 7, 13, False)]

// BAD: pto-opt: error: invalid value for --pto-memory-report: 'yaml' (expected text or json)

!v = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
!mb = !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>
func.func @kernel(%src: memref<64x64xf32>, %dst: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %at = arith.constant 4096 : i64
  %fixed = "pto.alloc_tile"(%at) : (i64) -> !v
  %mb = "pto.alloc_multi_tile"() : () -> !mb
  scf.for %i = %c0 to %c8 step %c1 {
    %acc = "pto.alloc_tile"() : () -> !v
    %slot = arith.remui %i, %c2 : index
    %x = "pto.multi_tile_get"(%mb, %slot) : (!mb, index) -> !v
    "pto.tload"(%src, %i, %c0, %x) : (memref<64x64xf32>, index, index, !v) -> ()
    "pto.tadd"(%acc, %x, %acc) : (!v, !v, !v) -> ()
  }
  "pto.tstore"(%fixed, %dst, %c0, %c0) : (!v, memref<64x64xf32>, index, index) -> ()
  return
}

func.func @empty() {
  return
}
