// The timing model exposes a wrong slot index. A step-2 loop (%i = 0, 2, 4, 6)
// indexed with the raw `%i mod 2` always picks slot 0: the two slots are
// there, but each load still waits for the previous scale to read the same
// bytes, so nothing overlaps: 4 * (80 + 12) = 368 cycles, as with one buffer.
// RUN: pto-run %s --func raw_iv_mod_2 --cycles | FileCheck %s --check-prefix=RAW
// RAW: cycles: 368

// convert-to-ptoas-multi-buffer gives the slot ((%i - 0) / 2) mod 2, which
// rotates: loads back to back, 4 * 80 + 12 = 332 cycles.
// RUN: pto-run %s --func plain --pass-pipeline convert-to-ptoas-multi-buffer --cycles --timeline %t.json | FileCheck %s --check-prefix=CONVERTED
// CONVERTED: cycles: 332
// RUN: FileCheck %s --input-file %t.json --check-prefix=SLOTS
// SLOTS:      "op": "pto.tload",
// SLOTS-NEXT: "location": "{{.*}}",
// SLOTS-NEXT: "slot": 0
// SLOTS:      "op": "pto.tload",
// SLOTS-NEXT: "location": "{{.*}}",
// SLOTS-NEXT: "slot": 1
// SLOTS:      "op": "pto.tload",
// SLOTS-NEXT: "location": "{{.*}}",
// SLOTS-NEXT: "slot": 0

!t = !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
!mb = !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 16>, f32>, 2 : i64>

func.func @raw_iv_mod_2(%A: memref<128x16xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %s = arith.constant 2.0 : f32
  %mb = "pto.alloc_multi_tile"() : () -> !mb
  %b = "pto.alloc_tile"() : () -> !t
  scf.for %i = %c0 to %c8 step %c2 {
    %slot = arith.remui %i, %c2 : index
    %a = "pto.multi_tile_get"(%mb, %slot) : (!mb, index) -> !t
    %row = arith.muli %i, %c16 : index
    "pto.tload"(%A, %row, %c0, %a) : (memref<128x16xf32>, index, index, !t) -> ()
    "pto.tmuls"(%a, %s, %b) : (!t, f32, !t) -> ()
  } {pto.pipeline_stages = 1 : i64}
  return
}

func.func @plain(%A: memref<128x16xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %s = arith.constant 2.0 : f32
  scf.for %i = %c0 to %c8 step %c2 {
    %a = "pto.alloc_tile"() : () -> !t
    %b = "pto.alloc_tile"() : () -> !t
    %row = arith.muli %i, %c16 : index
    "pto.tload"(%A, %row, %c0, %a) : (memref<128x16xf32>, index, index, !t) -> ()
    "pto.tmuls"(%a, %s, %b) : (!t, f32, !t) -> ()
  } {pto.pipeline_stages = 2 : i64}
  return
}
