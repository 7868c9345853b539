// Stream-K's partition of templates/attention_fwd.cu (StreamRun), run on the host: for each
// geometry and block count, every block's pieces (whole tiles for the full rounds, then Stream-K
// over the last round's) together cover every key tile of every query tile exactly once, a query
// tile with no key tiles is written by exactly one block, and a tile whose keys several blocks
// share names the same blocks, scratch slots and ticket in every one of them (the merge reads
// exactly the slots its parts wrote; no two tiles share a ticket or a slot), and the closed forms
// that place each block agree with walking the tiles. Prints the first failure and exits 1,
// else 0.
#define ATT_ONLY 2
#include <cstdio>
#include <map>
#include <set>
#include <vector>

#include "attention_fwd.cu"

namespace {

struct Shape {
  int batch, seq_q, seq_k, heads, causal;
};

// StreamRun's closed forms against the walk they replace: the key tiles left after the whole
// rounds summed tile by tile, and the first tile holding a block's first position (or beginning
// at it) found by walking the tiles.
template <class C>
bool placed_as_walked(const Shape& s, int grid) {
  const attention_detail::Geometry g{s.batch, s.seq_q, s.seq_k, s.heads, 1, s.heads, s.causal};
  const int m_blocks = (s.seq_q + C::BM - 1) / C::BM;
  const long long tiles = static_cast<long long>(s.batch) * s.heads * m_blocks;
  const auto length = [&](long long i) {
    return attention_sm90_detail::key_tiles<C>(
        attention_sm90_detail::tile_of(static_cast<unsigned>(i), g, m_blocks).m_block * C::BM, g);
  };
  for (int block = 0; block < grid; ++block) {
    const attention_sm90_detail::StreamRun<C> run(g, block, grid);
    const long long first = static_cast<long long>(run.whole_turns) * grid;
    long long total = 0;
    for (long long i = first; i < tiles; ++i) total += length(i);
    long long tile = first, pos = 0;
    const long long start = block * total / grid, end = (block + 1) * total / grid;
    if (total == 0) {
      if (block + 1 != grid) tile = tiles;
    } else if (start == end) {
      tile = tiles;
    } else {
      for (;; ++tile) {
        const int len = length(tile);
        if (!(pos < start && pos + len <= start)) break;
        pos += len;
      }
    }
    if (run.total != total || run.tile != tile || run.pos != pos) {
      std::printf(
          "FAILED: placed at tile %lld, position %lld of %lld; walked: %lld, %lld of %lld "
          "(block %d of %d; batch %d, %d x %d, %d heads, causal %d, BM %d, BN %d)\n",
          run.tile, run.pos, run.total, tile, pos, total, block, grid, s.batch, s.seq_q, s.seq_k,
          s.heads, s.causal, C::BM, C::BN);
      return false;
    }
  }
  return true;
}

template <class C>
bool check(const Shape& s, int grid) {
  if (!placed_as_walked<C>(s, grid)) return false;
  const attention_detail::Geometry g{s.batch, s.seq_q, s.seq_k, s.heads, 1, s.heads, s.causal};
  const int m_blocks = (s.seq_q + C::BM - 1) / C::BM;
  const int tiles = s.batch * s.heads * m_blocks;
  std::vector<std::vector<int>> covered(tiles);
  std::vector<int> empty_written(tiles, 0);
  struct Split {
    int first = -1, last = -1, parts = 0;
    long long pos = 0;
    std::map<int, int> slot_of_block;
  };
  std::map<int, Split> splits;
  std::set<int> slots_used;
  const auto fail = [&](const char* what, int tile) {
    std::printf("FAILED: %s (tile %d; batch %d, %d x %d, %d heads, causal %d, BM %d, %d blocks)\n",
                what, tile, s.batch, s.seq_q, s.seq_k, s.heads, s.causal, C::BM, grid);
    return false;
  };
  for (int block = 0; block < grid; ++block) {
    attention_sm90_detail::StreamRun<C> run(g, block, grid);
    // The producer's form, placed at its first piece after the whole tiles: the same pieces.
    attention_sm90_detail::StreamRun<C> lazy(g, block, grid, false);
    attention_sm90_detail::Work w{}, lw{};
    int pieces = 0, partial = 0;
    while (run.next(g, w)) {
      if (!lazy.next_late(g, lw) || lw.tile.b != w.tile.b || lw.tile.head != w.tile.head ||
          lw.tile.m_block != w.tile.m_block || lw.tb != w.tb || lw.te != w.te ||
          lw.parts != w.parts)
        return fail("the producer's pieces differ from the consumers'", -1);
      ++pieces;
      const int tile = (w.tile.b * s.heads + w.tile.head) * m_blocks + w.tile.m_block;
      if (tile < 0 || tile >= tiles) return fail("a tile out of range", tile);
      const int len = attention_sm90_detail::key_tiles<C>(w.tile.m_block * C::BM, g);
      if (w.len != len || w.tb < 0 || w.tb > w.te || w.te > len) return fail("a bad range", tile);
      if (covered[tile].empty()) covered[tile].assign(len, 0);
      if (len == 0) ++empty_written[tile];
      if (len > 0 && w.tb == w.te) return fail("an empty piece of a tile with keys", tile);
      for (int t = w.tb; t < w.te; ++t) ++covered[tile][t];
      const bool whole = w.tb == 0 && w.te == len;
      if (whole != (w.parts == 1)) return fail("parts disagree with the range", tile);
      if (whole) continue;
      ++partial;
      Split& split = splits[tile];
      if (split.parts == 0) {
        split.first = w.first;
        split.last = w.last;
        split.parts = w.parts;
        split.pos = w.pos;
      }
      if (split.first != w.first || split.last != w.last || split.parts != w.parts ||
          split.pos != w.pos)
        return fail("the parts of a tile disagree on its first block or count", tile);
      if (block < w.first || block > w.last) return fail("a part outside its blocks", tile);
      split.slot_of_block[block] = w.slot;
      if (!slots_used.insert(w.slot).second) return fail("a slot written twice", tile);
      if (w.slot / 2 != block) return fail("a slot of another block", tile);
    }
    if (lazy.next_late(g, lw)) return fail("the producer has a piece the consumers do not", -1);
    if (partial > 2) return fail("a block with more than two partial pieces", -1);
    (void)pieces;
  }
  // Whole tiles for every full round: only the last round's tiles (twice the blocks' count at
  // most, causal) are split, so the blocks never spread over the whole problem.
  if (splits.size() > 2u * static_cast<unsigned>(grid))
    return fail("split tiles beyond the last round", -1);
  std::set<int> tickets;
  const attention_sm90_detail::StreamRun<C> any(g, 0, grid);
  for (const auto& [tile, split] : splits) {
    if (static_cast<int>(split.slot_of_block.size()) != split.parts)
      return fail("a split tile whose parts are not its count", tile);
    // The merge reads each part's block and slot: exactly the blocks and slots the parts wrote.
    attention_sm90_detail::Work w{};
    w.first = split.first;
    w.last = split.last;
    w.parts = split.parts;
    w.pos = split.pos;
    std::map<int, int> read;
    for (int k = 0; k < split.parts; ++k) {
      const int c = any.part_block(w, k);
      if (c < split.first || c > split.last) return fail("a merged part outside its blocks", tile);
      read[c] = attention_sm90_detail::StreamRun<C>::part_slot(w, c);
    }
    if (read != split.slot_of_block)
      return fail("the merge's blocks or slots are not the parts'", tile);
    if (!tickets.insert(split.first).second) return fail("two split tiles share a ticket", tile);
  }
  for (int tile = 0; tile < tiles; ++tile) {
    const int len = attention_sm90_detail::key_tiles<C>((tile % m_blocks) * C::BM, g);
    if (len == 0 && empty_written[tile] != 1) return fail("an empty tile not written once", tile);
    if (len > 0 && static_cast<int>(covered[tile].size()) != len)
      return fail("a tile no block took", tile);
    for (int c : covered[tile])
      if (c != 1) return fail("a key tile taken other than once", tile);
  }
  return true;
}

}  // namespace

int main() {
  using Defaults = attention_sm90_detail::Config<128, 128, 2, 2, true, true, true, 132, true, true>;
  using Three = attention_sm90_detail::Config<64, 64, 3, 1, false, false, true, 132, true, false>;
  // Key tiles that do not divide the query blocks: the causal sums' uneven steps.
  using Wide = attention_sm90_detail::Config<128, 176, 2, 2, true, true, true, 132, true, true>;
  using OneWide =
      attention_sm90_detail::Config<64, 176, 1, 2, false, false, true, 132, true, false>;
  using ThreeWide =
      attention_sm90_detail::Config<128, 128, 3, 1, true, false, true, 132, true, false>;
  const Shape shapes[] = {
      {16, 1024, 1024, 32, 0},  {16, 1024, 1024, 32, 1},  {4, 4096, 4096, 32, 1},
      {1, 16384, 16384, 32, 0}, {1, 16384, 16384, 32, 1}, {3, 333, 333, 16, 1},
      {1, 77, 77, 4, 1},        {2, 33, 150, 6, 1},       {1, 130, 61, 2, 0},
      {1, 300, 100, 4, 1},      {1, 1000, 600, 2, 1},     {3, 1, 1000, 8, 0},
      {1, 128, 4096, 1, 0},     {2, 256, 3000, 4, 1},     {1, 64, 0, 2, 0},
      {1, 600, 1000, 2, 1},     {1, 1, 1, 1, 0}};
  bool ok = true;
  int checked = 0;
  for (const Shape& s : shapes)
    for (int grid : {1, 2, 7, 64, 131, 132}) {
      ok = check<Defaults>(s, grid) && ok;
      ok = check<Three>(s, grid) && ok;
      ok = check<Wide>(s, grid) && ok;
      ok = check<OneWide>(s, grid) && ok;
      ok = check<ThreeWide>(s, grid) && ok;
      checked += 5;
    }
  std::printf("%d partitions checked: %s\n", checked,
              ok ? "all cover every key tile once" : "FAILED");
  return ok ? 0 : 1;
}
