// The dispatchers' choices for code of one architecture, from a source nvcc does not compile.
extern "C" int rows_variant(int arch, long long cols) {
  return kernelevo::dispatch::rows_scale_for_arch(arch, cols);
}
extern "C" int cols_variant(int arch, long long rows) {
  return kernelevo::dispatch::cols_scale_for_arch(arch, rows);
}
extern "C" int tmpl_variant(int arch, long long n) {
  return kernelevo::dispatch::tmpl_scale_for_arch(arch, n);
}
extern "C" int tmpl_block(int variant) {
  switch (variant) {
    case 0:
      return kernelevo::variants::tmpl_scale::variant<0>::TMPL_BLOCK_value;
    case 1:
      return kernelevo::variants::tmpl_scale::variant<1>::TMPL_BLOCK_value;
    default:
      return kernelevo::variants::tmpl_scale::variant<2>::TMPL_BLOCK_value;
  }
}
static_assert(kernelevo::variants::rows_scale::count == 3, "three distinct rows_scale winners");
static_assert(kernelevo::variants::tmpl_scale::count == 3, "three distinct tmpl_scale winners");
static_assert(kernelevo::variants::cols_scale::count == 3, "three distinct cols_scale winners");
