func.func @f() {
  "test.unknown"() : () -> ()
  return
}
