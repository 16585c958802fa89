// RUN: pto-opt %S/Inputs/kernel.mlir --pto-pipeline --use-ptoas-multi-buffer | FileCheck %s --check-prefix=ON
// RUN: pto-opt %S/Inputs/kernel.mlir --pto-pipeline | FileCheck %s --check-prefix=OFF
// RUN: pto-opt %S/Inputs/kernel.mlir --pto-pipeline='use-ptoas-multi-buffer=true allocate=false' | FileCheck %s --check-prefix=ON-NOALLOC
// RUN: pto-opt %S/Inputs/kernel.mlir --pto-pipeline{use-ptoas-multi-buffer=false} | FileCheck %s --check-prefix=OFF

// The same kernel both ways. On: ptoas multi-buffers, no replication, slots
// at constant addresses. Off: the body replicated twice, every tile at its
// own address, no multi-tile buffer.

// ON-LABEL:    func.func @add
// ON-SAME:     attributes {pto.memory_usage = {vec = 16384 : i64}}
// ON:          %[[A0:.*]] = arith.constant 0 : i64
// ON-NEXT:     "pto.alloc_multi_tile"(%[[A0]]) : (i64) -> !pto.multi_tile_buf<!pto.tile_buf<"vec", array<i64: 16, 64>, f32>, 2 : i64>
// ON-NEXT:     %[[A1:.*]] = arith.constant 8192 : i64
// ON-NEXT:     "pto.alloc_multi_tile"(%[[A1]])
// ON:          scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[STEP:.*]] {
// ON:            arith.remui
// ON-COUNT-2:    "pto.multi_tile_get"
// ON-NOT:        "pto.alloc_tile"
// ON:          } {pto.pipeline_stages = 1 : i64}

// OFF-LABEL:   func.func @add
// OFF-SAME:    attributes {pto.memory_usage = {vec = 16384 : i64}}
// OFF-NOT:     pto.alloc_multi_tile
// OFF:         scf.for
// OFF-COUNT-4:   "pto.alloc_tile"(%{{.*}}) : (i64)
// OFF:         } {pto.pipeline_stages = 1 : i64}
// OFF-NOT:     pto.alloc_multi_tile

// ON-NOALLOC-LABEL: func.func @add
// ON-NOALLOC-NOT:   pto.memory_usage
// ON-NOALLOC-NOT:   : (i64) ->
// ON-NOALLOC:       "pto.alloc_multi_tile"() : ()
