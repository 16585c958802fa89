// The `pto` dialect: Ascend PTO tile buffers and the tile ops that read and
// write them (docs/dialect.md, "Types" and "Ops").
//
// This file is the single definition of the dialect. Python loads it with
// `mlir.dialects.irdl.load_dialects`; C++ tools load it with
// `mlir-opt --irdl-file=<this file>`. IRDL ops have no custom syntax, so every
// op is written in MLIR's generic form, e.g.
//   %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
//
// IRDL checks what it can express: the enumerated memory spaces and element
// types, slot counts 2..16, operand counts and kinds, and type equalities
// between operands (through shared constraint variables). The remaining rules
// (rank-2 positive shapes, in-range constant slots, aligned addresses, tiles
// that fit their space, matmul shapes) live in pto_dialect/verifier.py.
irdl.dialect @pto {
  // !pto.tile_buf<LOC, SHAPE, DTYPE>, e.g. !pto.tile_buf<"vec", array<i64: 16, 16>, f32>
  irdl.type @tile_buf {
    %loc_vec = irdl.is "vec"
    %loc_mat = irdl.is "mat"
    %loc_left = irdl.is "left"
    %loc_right = irdl.is "right"
    %loc_acc = irdl.is "acc"
    %loc_bias = irdl.is "bias"
    %loc = irdl.any_of(%loc_vec, %loc_mat, %loc_left, %loc_right, %loc_acc, %loc_bias)
    %dt_i8 = irdl.is i8
    %dt_i16 = irdl.is i16
    %dt_i32 = irdl.is i32
    %dt_f16 = irdl.is f16
    %dt_bf16 = irdl.is bf16
    %dt_f32 = irdl.is f32
    %dtype = irdl.any_of(%dt_i8, %dt_i16, %dt_i32, %dt_f16, %dt_bf16, %dt_f32)
    %shape = irdl.base "#builtin.dense_array"
    irdl.parameters(loc: %loc, shape: %shape, dtype: %dtype)
  }

  // !pto.multi_tile_buf<SLOT, N : i64>: N slots of type SLOT, 2 <= N <= 16.
  irdl.type @multi_tile_buf {
    %slot = irdl.base @pto::@tile_buf
    %n2 = irdl.is 2 : i64
    %n3 = irdl.is 3 : i64
    %n4 = irdl.is 4 : i64
    %n5 = irdl.is 5 : i64
    %n6 = irdl.is 6 : i64
    %n7 = irdl.is 7 : i64
    %n8 = irdl.is 8 : i64
    %n9 = irdl.is 9 : i64
    %n10 = irdl.is 10 : i64
    %n11 = irdl.is 11 : i64
    %n12 = irdl.is 12 : i64
    %n13 = irdl.is 13 : i64
    %n14 = irdl.is 14 : i64
    %n15 = irdl.is 15 : i64
    %n16 = irdl.is 16 : i64
    %count = irdl.any_of(%n2, %n3, %n4, %n5, %n6, %n7, %n8, %n9, %n10, %n11, %n12, %n13, %n14, %n15, %n16)
    irdl.parameters(slot: %slot, count: %count)
  }

  // %t = pto.alloc_tile [addr : i64] -> tile_buf. Without addr: one buffer per op.
  irdl.operation @alloc_tile {
    %i64 = irdl.is i64
    %tile = irdl.base @pto::@tile_buf
    irdl.operands(addr: optional %i64)
    irdl.results(result: %tile)
  }

  // %mb = pto.alloc_multi_tile [addr : i64] -> multi_tile_buf. Slot k at addr + k * stride.
  irdl.operation @alloc_multi_tile {
    %i64 = irdl.is i64
    %mb = irdl.base @pto::@multi_tile_buf
    irdl.operands(addr: optional %i64)
    irdl.results(result: %mb)
  }

  // %t = pto.multi_tile_get %mb[%slot]: the result type is the slot type of %mb.
  irdl.operation @multi_tile_get {
    %loc = irdl.any
    %shape = irdl.any
    %dtype = irdl.any
    %count = irdl.any
    %tile = irdl.parametric @pto::@tile_buf<%loc, %shape, %dtype>
    %mb = irdl.parametric @pto::@multi_tile_buf<%tile, %count>
    %index = irdl.is index
    irdl.operands(mb: %mb, slot: %index)
    irdl.results(result: %tile)
  }

  // pto.tload %src[%row, %col] into %dst (pipe MTE2).
  irdl.operation @tload {
    %memref = irdl.base "!builtin.memref"
    %index = irdl.is index
    %tile = irdl.base @pto::@tile_buf
    irdl.operands(src: %memref, row: %index, col: %index, dst: %tile)
  }

  // pto.tstore %src into %dst[%row, %col] (pipe MTE3).
  irdl.operation @tstore {
    %memref = irdl.base "!builtin.memref"
    %index = irdl.is index
    %tile = irdl.base @pto::@tile_buf
    irdl.operands(src: %tile, dst: %memref, row: %index, col: %index)
  }

  // dst = a + b, elementwise; same shape and element type, any spaces (pipe V).
  irdl.operation @tadd {
    %loc_a = irdl.any
    %loc_b = irdl.any
    %loc_dst = irdl.any
    %shape = irdl.any
    %dtype = irdl.any
    %a = irdl.parametric @pto::@tile_buf<%loc_a, %shape, %dtype>
    %b = irdl.parametric @pto::@tile_buf<%loc_b, %shape, %dtype>
    %dst = irdl.parametric @pto::@tile_buf<%loc_dst, %shape, %dtype>
    irdl.operands(a: %a, b: %b, dst: %dst)
  }

  // dst = a - b, elementwise; same shape and element type, any spaces (pipe V).
  irdl.operation @tsub {
    %loc_a = irdl.any
    %loc_b = irdl.any
    %loc_dst = irdl.any
    %shape = irdl.any
    %dtype = irdl.any
    %a = irdl.parametric @pto::@tile_buf<%loc_a, %shape, %dtype>
    %b = irdl.parametric @pto::@tile_buf<%loc_b, %shape, %dtype>
    %dst = irdl.parametric @pto::@tile_buf<%loc_dst, %shape, %dtype>
    irdl.operands(a: %a, b: %b, dst: %dst)
  }

  // dst = a * b, elementwise; same shape and element type, any spaces (pipe V).
  irdl.operation @tmul {
    %loc_a = irdl.any
    %loc_b = irdl.any
    %loc_dst = irdl.any
    %shape = irdl.any
    %dtype = irdl.any
    %a = irdl.parametric @pto::@tile_buf<%loc_a, %shape, %dtype>
    %b = irdl.parametric @pto::@tile_buf<%loc_b, %shape, %dtype>
    %dst = irdl.parametric @pto::@tile_buf<%loc_dst, %shape, %dtype>
    irdl.operands(a: %a, b: %b, dst: %dst)
  }

  // dst = max(a, b), elementwise; same shape and element type, any spaces (pipe V).
  irdl.operation @tmax {
    %loc_a = irdl.any
    %loc_b = irdl.any
    %loc_dst = irdl.any
    %shape = irdl.any
    %dtype = irdl.any
    %a = irdl.parametric @pto::@tile_buf<%loc_a, %shape, %dtype>
    %b = irdl.parametric @pto::@tile_buf<%loc_b, %shape, %dtype>
    %dst = irdl.parametric @pto::@tile_buf<%loc_dst, %shape, %dtype>
    irdl.operands(a: %a, b: %b, dst: %dst)
  }

  // dst = min(a, b), elementwise; same shape and element type, any spaces (pipe V).
  irdl.operation @tmin {
    %loc_a = irdl.any
    %loc_b = irdl.any
    %loc_dst = irdl.any
    %shape = irdl.any
    %dtype = irdl.any
    %a = irdl.parametric @pto::@tile_buf<%loc_a, %shape, %dtype>
    %b = irdl.parametric @pto::@tile_buf<%loc_b, %shape, %dtype>
    %dst = irdl.parametric @pto::@tile_buf<%loc_dst, %shape, %dtype>
    irdl.operands(a: %a, b: %b, dst: %dst)
  }

  // dst = a + s for a scalar s; same shape and element type (pipe V).
  irdl.operation @tadds {
    %loc_a = irdl.any
    %loc_dst = irdl.any
    %shape = irdl.any
    %dtype = irdl.any
    %a = irdl.parametric @pto::@tile_buf<%loc_a, %shape, %dtype>
    %dst = irdl.parametric @pto::@tile_buf<%loc_dst, %shape, %dtype>
    %i8 = irdl.is i8
    %i16 = irdl.is i16
    %i32 = irdl.is i32
    %i64 = irdl.is i64
    %index = irdl.is index
    %f16 = irdl.is f16
    %bf16 = irdl.is bf16
    %f32 = irdl.is f32
    %scalar = irdl.any_of(%i8, %i16, %i32, %i64, %index, %f16, %bf16, %f32)
    irdl.operands(a: %a, s: %scalar, dst: %dst)
  }

  // dst = a * s for a scalar s; same shape and element type (pipe V).
  irdl.operation @tmuls {
    %loc_a = irdl.any
    %loc_dst = irdl.any
    %shape = irdl.any
    %dtype = irdl.any
    %a = irdl.parametric @pto::@tile_buf<%loc_a, %shape, %dtype>
    %dst = irdl.parametric @pto::@tile_buf<%loc_dst, %shape, %dtype>
    %i8 = irdl.is i8
    %i16 = irdl.is i16
    %i32 = irdl.is i32
    %i64 = irdl.is i64
    %index = irdl.is index
    %f16 = irdl.is f16
    %bf16 = irdl.is bf16
    %f32 = irdl.is f32
    %scalar = irdl.any_of(%i8, %i16, %i32, %i64, %index, %f16, %bf16, %f32)
    irdl.operands(a: %a, s: %scalar, dst: %dst)
  }

  // dst = exp(a), elementwise; same shape and element type (pipe V).
  irdl.operation @texp {
    %loc_a = irdl.any
    %loc_dst = irdl.any
    %shape = irdl.any
    %dtype = irdl.any
    %a = irdl.parametric @pto::@tile_buf<%loc_a, %shape, %dtype>
    %dst = irdl.parametric @pto::@tile_buf<%loc_dst, %shape, %dtype>
    irdl.operands(a: %a, dst: %dst)
  }

  // dst = |a|, elementwise; same shape and element type (pipe V).
  irdl.operation @tabs {
    %loc_a = irdl.any
    %loc_dst = irdl.any
    %shape = irdl.any
    %dtype = irdl.any
    %a = irdl.parametric @pto::@tile_buf<%loc_a, %shape, %dtype>
    %dst = irdl.parametric @pto::@tile_buf<%loc_dst, %shape, %dtype>
    irdl.operands(a: %a, dst: %dst)
  }

  // dst = max(a, 0), elementwise; same shape and element type (pipe V).
  irdl.operation @trelu {
    %loc_a = irdl.any
    %loc_dst = irdl.any
    %shape = irdl.any
    %dtype = irdl.any
    %a = irdl.parametric @pto::@tile_buf<%loc_a, %shape, %dtype>
    %dst = irdl.parametric @pto::@tile_buf<%loc_dst, %shape, %dtype>
    irdl.operands(a: %a, dst: %dst)
  }

  // dst = convert(a): same shape, any element types (pipe V).
  irdl.operation @tcvt {
    %loc_a = irdl.any
    %loc_dst = irdl.any
    %shape = irdl.any
    %dt_a = irdl.any
    %dt_dst = irdl.any
    %a = irdl.parametric @pto::@tile_buf<%loc_a, %shape, %dt_a>
    %dst = irdl.parametric @pto::@tile_buf<%loc_dst, %shape, %dt_dst>
    irdl.operands(a: %a, dst: %dst)
  }

  // dst = src across spaces: same shape and element type (pipe MTE1).
  irdl.operation @tmov {
    %loc_src = irdl.any
    %loc_dst = irdl.any
    %shape = irdl.any
    %dtype = irdl.any
    %src = irdl.parametric @pto::@tile_buf<%loc_src, %shape, %dtype>
    %dst = irdl.parametric @pto::@tile_buf<%loc_dst, %shape, %dtype>
    irdl.operands(src: %src, dst: %dst)
  }

  // dst = lhs @ rhs with lhs in left, rhs in right, dst in acc (pipe M).
  irdl.operation @tmatmul {
    %left = irdl.is "left"
    %right = irdl.is "right"
    %accloc = irdl.is "acc"
    %shape_l = irdl.any
    %shape_r = irdl.any
    %shape_acc = irdl.any
    %dt_in = irdl.any
    %dt_acc = irdl.any
    %lhs = irdl.parametric @pto::@tile_buf<%left, %shape_l, %dt_in>
    %rhs = irdl.parametric @pto::@tile_buf<%right, %shape_r, %dt_in>
    %acc = irdl.parametric @pto::@tile_buf<%accloc, %shape_acc, %dt_acc>
    irdl.operands(lhs: %lhs, rhs: %rhs, dst: %acc)
  }

  // acc += lhs @ rhs with lhs in left, rhs in right, acc in acc (pipe M).
  irdl.operation @tmatmul_acc {
    %left = irdl.is "left"
    %right = irdl.is "right"
    %accloc = irdl.is "acc"
    %shape_l = irdl.any
    %shape_r = irdl.any
    %shape_acc = irdl.any
    %dt_in = irdl.any
    %dt_acc = irdl.any
    %lhs = irdl.parametric @pto::@tile_buf<%left, %shape_l, %dt_in>
    %rhs = irdl.parametric @pto::@tile_buf<%right, %shape_r, %dt_in>
    %acc = irdl.parametric @pto::@tile_buf<%accloc, %shape_acc, %dt_acc>
    irdl.operands(lhs: %lhs, rhs: %rhs, acc: %acc)
  }
}
