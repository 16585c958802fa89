// Valid on a5 only: 256x224xf32 = 229376 bytes of vec (a3: 196608, a5: 253952).
module attributes {pto.target_arch = "a5"} {
  func.func @big() {
    %t = "pto.alloc_tile"() : () -> !pto.tile_buf<"vec", array<i64: 256, 224>, f32>
    return
  }
}
