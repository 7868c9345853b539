// Prints which compiled variant serves each (architecture, size): no GPU needed.
#include <cstdio>

extern "C" int rows_variant(int arch, long long cols);
extern "C" int cols_variant(int arch, long long rows);
extern "C" int tmpl_variant(int arch, long long n);
extern "C" int tmpl_block(int variant);

int main() {
  const int archs[] = {900, 800, 750};
  const long long cols[] = {100, 2047, 2048, 5000};
  for (int arch : archs)
    for (long long c : cols) std::printf("rows %d %lld -> %d\n", arch, c, rows_variant(arch, c));
  const long long rows[] = {8, 64, 65, 200, 512};
  for (int arch : archs)
    for (long long r : rows) std::printf("cols %d %lld -> %d\n", arch, r, cols_variant(arch, r));
  const long long ns[] = {1024, 8192, 8193, 30000, 65536};
  for (int arch : archs)
    for (long long n : ns) {
      const int v = tmpl_variant(arch, n);
      std::printf("tmpl %d %lld -> %d (block %d)\n", arch, n, v, tmpl_block(v));
    }
  return 0;
}
