// base/gemm.hpp's gemm_weights for one instruction set: Y = X · Wᵀ with W read in the precision
// its file stores, compiled once per set beside gemm_isa.cpp (CMakeLists.txt defines
// POSLAB_KERNEL_NS). No Eigen here: the product is blocked by hand, in the way of Goto and van de
// Geijn's "Anatomy of high-performance matrix multiplication", because Eigen's product packs its
// right-hand side again on every call and, called once per block of weights as the forward pass
// did, packed the activations again for every block.
//
// Blocks: kKc steps of the sum at a time; the weights' block (kKc × up to kNc columns) packed into
// panels of kNr columns, each panel step by step (kNr values for one step of the sum, next to each
// other), kept in the precision of the file: BF16 stays 16 bits wide and the micro-kernel widens it
// (a shift and a mask), so no float copy of the model is ever made. The activations' block
// (kMc × kKc) packed into slivers of kMr rows. The micro-kernel keeps a kMr × kNr tile of Y in
// registers over one block of the sum. BF16 activations times BF16 weights, on a CPU with AMX,
// take a form of their own (Form::Tiles): both in BF16 pairs, multiplied on the tile unit.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include <omp.h>
#if defined(__AVX2__) || defined(__FMA__)
#include <immintrin.h>
#endif

#include "base/gemm.hpp"  // StoredType; no Eigen in it
#include "base/half.hpp"  // round_bits_to_bf16; no Eigen either

namespace poslab::kernels::POSLAB_KERNEL_NS {

// gemm_isa.cpp's, for this set.
void widen_bf16(const char* src, std::int64_t n, float* dst);
void widen_f16(const char* src, std::int64_t n, float* dst);

namespace {

// One vector of kLanes floats, or of kLanes 32-bit words: a register of the set (in SSE, two).
#if defined(__AVX512F__)
constexpr int kLanes = 16;
constexpr int kMr = 14;  // 28 accumulators, 2 weight vectors and a broadcast: 31 of 32 registers
#elif defined(__AVX2__)
constexpr int kLanes = 8;
constexpr int kMr = 6;  // 12 accumulators, 2 weight vectors and a broadcast: 15 of 16 registers
#else
constexpr int kLanes = 8;
constexpr int kMr = 2;  // in SSE each vector is two registers: 8 accumulators of 16
#endif
typedef float Floats __attribute__((vector_size(4 * kLanes)));
typedef std::uint32_t Words __attribute__((vector_size(4 * kLanes)));

constexpr int kNr = 2 * kLanes;  // a panel's columns: two vectors
constexpr int kKc = 256;         // a panel's block of the sum: 256 × 32 × 2 bytes of BF16 stay in L1
constexpr int kMc = 16 * kMr;    // the activations' block: at most 224 × 256 floats (224 KB), in L2
// A thread's panels packed at a time: 4,096 columns × 256 steps, 2 MB of BF16 (4 MB of floats), the
// most memory a product takes beyond X and Y, whatever the width of W (an LM head's 128,256 rows).
constexpr int kNcPanels = 4096 / kNr;

// The form a panel holds W in, and the sliver X.
enum class Form {
  Float,  // W as floats (F32; F16 widened), kNr a step of the sum; X as floats
  Bf16,    // W in BF16, columns i and kLanes + i in one word, widened in the kernel; X as floats
  // W and X in BF16, two steps of the sum to a word (steps p, p + 1 of one column of W, or of one
  // row of X), multiplied on AMX's tile unit (TDPBF16PS: a 16-row tile of X's pairs times a 16-pair
  // tile of a panel's, summed in float32): a forward pass in BF16, on a CPU with AMX (the caller
  // checks, and has the kernel's permission for the tiles). AVX-512's copy alone has the kernel.
  // A block's pairs are padded with zeros to whole tiles of 16.
  Tiles,
};
#if defined(__AVX512F__)
constexpr bool kHasTiles = true;
#else
constexpr bool kHasTiles = false;
#endif
constexpr int kTilePairs = 16;  // pairs of the sum in one tile: 64 bytes a row
constexpr int kTileRows = 16;   // rows of a tile: a sliver of X in tiles (the registers' kMr in the others)

// W's panels: one for each kNr columns of Y, the last padded with zero columns.
constexpr int panel_count(std::int64_t n) { return static_cast<int>((n + kNr - 1) / kNr); }
// Pairs of kc steps of the sum in tiles: ⌈kc / 2⌉ rounded up to whole tiles.
constexpr int tile_pairs(int kc) { return ((kc + 1) / 2 + kTilePairs - 1) / kTilePairs * kTilePairs; }
// 32-bit words a panel holds for kc steps of the sum: floats one value to a word, BF16 two; in
// tiles kNr words for each pair of steps.
constexpr std::int64_t block_words(Form f, int kc) {
  return f == Form::Float ? std::int64_t{kc} * kNr : f == Form::Bf16 ? std::int64_t{kc} * kLanes : std::int64_t{tile_pairs(kc)} * kNr;
}
// Steps of the sum in a block: kKc, or in tiles four times as many. Y's tile is loaded into the
// tile unit and stored back once a block, and at kKc those loads and stores of Y, which no cache
// holds between the blocks, took longer than the tile unit's products.
constexpr int block_steps(Form f) { return f == Form::Tiles ? 4 * kKc : kKc; }
// X's rows packed at a time: kMc, or in tiles twice as many, which halves the passes over W's
// panels (2 × kMc rows of 512 pairs: 917 KB, in L2).
constexpr int rows_per_block(Form f) { return f == Form::Tiles ? 2 * kMc : kMc; }
// Rows of X's sliver: a register tile's, or a tile's.
constexpr int sliver_rows(Form f) { return f == Form::Tiles ? kTileRows : kMr; }
// Words (floats, or pairs) of a row of X's sliver for kc steps.
constexpr int sliver_row(Form f, int kc) { return f == Form::Tiles ? tile_pairs(kc) : kc; }
constexpr Form form_of(StoredType type, bool tiles) {
  return type != StoredType::BF16 ? Form::Float : tiles && kHasTiles ? Form::Tiles : Form::Bf16;
}

// a·b + c, fused where the set has FMA (the summation order is the same; the rounding differs).
inline Floats fma(Floats a, Floats b, Floats c) {
#if defined(__AVX512F__)
  return _mm512_fmadd_ps(a, b, c);
#elif defined(__FMA__)
  return _mm256_fmadd_ps(a, b, c);
#else
  return a * b + c;
#endif
}

inline Floats splat(float x) {
  Floats v;
  for (int i = 0; i < kLanes; ++i) v[i] = x;  // one broadcast
  return v;
}

inline Floats load(const float* p) {
  Floats v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline void store(float* p, Floats v) { std::memcpy(p, &v, sizeof v); }

// A panel's one step as two vectors (its first kLanes columns and its last). BF16 panels hold, in
// 32-bit word i, column i's value in the low half and column kLanes + i's in the high half: each
// is a float's top half, so a shift and a mask give both vectors exactly.
template <bool Bf16>
inline void panel_step(const void* panel, int p, Floats& lo, Floats& hi) {
  if constexpr (Bf16) {
    Words w;
    std::memcpy(&w, static_cast<const std::uint32_t*>(panel) + kLanes * p, sizeof w);
    lo = std::bit_cast<Floats>(Words(w << 16));
    hi = std::bit_cast<Floats>(Words(w & 0xFFFF0000u));
  } else {
    lo = load(static_cast<const float*>(panel) + kNr * p);
    hi = load(static_cast<const float*>(panel) + kNr * p + kLanes);
  }
}

// A kernel's Mr × kNr sums into Y's tile (rows × cols of it), = or +=.
template <int Mr>
inline void store_tile(const Floats (&acc)[Mr][2], float* y, int ldy, int rows, int cols, bool add) {
  if (rows == Mr && cols == kNr) {
    for (int r = 0; r < Mr; ++r) {
      float* row = y + static_cast<std::int64_t>(r) * ldy;
      store(row, add ? load(row) + acc[r][0] : acc[r][0]);
      store(row + kLanes, add ? load(row + kLanes) + acc[r][1] : acc[r][1]);
    }
    return;
  }
  float tile[Mr][kNr];
  for (int r = 0; r < Mr; ++r) {
    store(tile[r], acc[r][0]);
    store(tile[r] + kLanes, acc[r][1]);
  }
  for (int r = 0; r < rows; ++r) {
    float* row = y + static_cast<std::int64_t>(r) * ldy;
    for (int c = 0; c < cols; ++c) row[c] = add ? row[c] + tile[r][c] : tile[r][c];
  }
}

// Y's tile (rows × cols of at most Mr × kNr, at y with leading dimension ldy) = or += the sum over
// kc steps of a sliver's column times a panel's row. `add`: the blocks of the sum after the first.
// Mr: the sliver's rows the kernel reads (a sliver holds kMr; a short last one takes a kernel of
// its own size rather than multiplying rows of zeros).
template <bool Bf16, int Mr>
void micro_kernel(int kc, const float* sliver, const void* panel, float* y, int ldy, int rows, int cols, bool add) {
  // Y's rows fetched while the sum runs: they are read once at its end, from memory as often as not.
  for (int r = 0; r < rows; ++r) {
    __builtin_prefetch(y + static_cast<std::int64_t>(r) * ldy, 1);
    __builtin_prefetch(y + static_cast<std::int64_t>(r) * ldy + kNr - 1, 1);
  }
  Floats acc[Mr][2] = {};
  for (int p = 0; p < kc; ++p) {
    Floats lo, hi;
    panel_step<Bf16>(panel, p, lo, hi);
#pragma GCC unroll 16
    for (int r = 0; r < Mr; ++r) {
      const Floats a = splat(sliver[p * kMr + r]);
      acc[r][0] = fma(a, lo, acc[r][0]);
      acc[r][1] = fma(a, hi, acc[r][1]);
    }
  }
  store_tile<Mr>(acc, y, ldy, rows, cols, add);
}

#if defined(__AVX512F__)
// AMX's tile configuration (palette 1): tiles 0 to 3 hold two slivers' kTileRows × kNr tiles of Y in
// floats (16 columns each), tiles 4 and 5 the two slivers' rows of X's pairs, tiles 6 and 7 a
// panel's 16 pairs of 16 columns each: every panel tile loaded serves two slivers, every sliver
// tile two halves of the panel.
struct TileConfig {
  std::uint8_t palette = 1, start_row = 0, reserved[14] = {};
  std::uint16_t bytes[16] = {};
  std::uint8_t rows[16] = {};
};

// GCC 12's tile intrinsics are asm statements that do not tell the compiler which memory they read
// or write (the configuration's 64 bytes, a tile's rows): without this fence it drops the stores
// to the configuration as dead, and may keep a stored tile's floats in registers it thinks current.
inline void memory_fence() { asm volatile("" ::: "memory"); }

__attribute__((target("amx-tile"))) void configure_tiles() {
  alignas(64) TileConfig c;
  for (int t = 0; t < 8; ++t) {
    c.rows[t] = t < 6 ? kTileRows : kTilePairs;
    c.bytes[t] = 64;
  }
  memory_fence();
  _tile_loadconfig(&c);
}

__attribute__((target("amx-tile"))) void release_tiles() { _tile_release(); }

// A partial tile of Y: its rows × cols into a kTileRows × kNr buffer padded with zeros (get), or
// back from it (put).
void get_rows(float (&tile)[kTileRows][kNr], const float* y, int ldy, int rows, int cols) {
  for (int r = 0; r < kTileRows; ++r)
    for (int c = 0; c < kNr; ++c) tile[r][c] = r < rows && c < cols ? y[static_cast<std::int64_t>(r) * ldy + c] : 0.0f;
}

void put_rows(const float (&tile)[kTileRows][kNr], float* y, int ldy, int rows, int cols) {
  for (int r = 0; r < rows; ++r) std::memcpy(y + static_cast<std::int64_t>(r) * ldy, tile[r], sizeof(float) * static_cast<std::size_t>(cols));
}

// Y's tile for two slivers (rows ≤ 2·kTileRows: the first sliver's, then the next's, which lies
// right after it) and a panel in tiles (Form::Tiles): per 16 pairs of the sum, each sliver's rows
// (each row's pairs side by side) times the panel's two halves. The accumulators start from Y's
// sum so far (add), so that every element of Y is summed in one order whichever tile it falls in
// (a row's numbers do not depend on the other rows of X): a whole kTileRows × kNr tile of Y is
// loaded where it lies and stored back there, a partial one goes through a zero-padded buffer.
__attribute__((target("amx-tile,amx-bf16"))) void tile_kernel(int kc, const std::uint32_t* sliver, const void* panel, float* y, int ldy,
                                                               int rows, int cols, bool add) {
  const int pairs = tile_pairs(kc);
  const auto* words = static_cast<const std::uint32_t*>(panel);
  const std::uint32_t* next = sliver + static_cast<std::int64_t>(kTileRows) * pairs;
  float* y_next = y + static_cast<std::int64_t>(kTileRows) * ldy;
  const int rows_first = std::min(rows, kTileRows), rows_next = rows - kTileRows;
  const bool two = rows_next > 0;
  const bool whole = rows_first == kTileRows && cols == kNr, whole_next = rows_next == kTileRows && cols == kNr;
  float tile[kTileRows][kNr];
  memory_fence();  // the slivers, the panel and Y written
  if (!add) {
    _tile_zero(0);
    _tile_zero(1);
  } else if (whole) {
    _tile_loadd(0, y, ldy * 4);
    _tile_loadd(1, y + kLanes, ldy * 4);
  } else {
    get_rows(tile, y, ldy, rows_first, cols);
    memory_fence();
    _tile_loadd(0, &tile[0][0], kNr * 4);
    _tile_loadd(1, &tile[0][kLanes], kNr * 4);
  }
  memory_fence();  // (the buffer is read before it is filled again)
  if (two && !add) {
    _tile_zero(2);
    _tile_zero(3);
  } else if (two && whole_next) {
    _tile_loadd(2, y_next, ldy * 4);
    _tile_loadd(3, y_next + kLanes, ldy * 4);
  } else if (two) {
    get_rows(tile, y_next, ldy, rows_next, cols);
    memory_fence();
    _tile_loadd(2, &tile[0][0], kNr * 4);
    _tile_loadd(3, &tile[0][kLanes], kNr * 4);
  }
  for (int q = 0; q < pairs; q += kTilePairs) {
    _tile_loadd(6, words + static_cast<std::int64_t>(q) * kNr, kNr * 4);
    _tile_loadd(7, words + static_cast<std::int64_t>(q) * kNr + kLanes, kNr * 4);
    _tile_loadd(4, sliver + q, pairs * 4);
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    if (two) {
      _tile_loadd(5, next + q, pairs * 4);
      _tile_dpbf16ps(2, 5, 6);
      _tile_dpbf16ps(3, 5, 7);
    }
  }
  memory_fence();
  if (whole) {
    _tile_stored(0, y, ldy * 4);
    _tile_stored(1, y + kLanes, ldy * 4);
  } else {
    _tile_stored(0, &tile[0][0], kNr * 4);
    _tile_stored(1, &tile[0][kLanes], kNr * 4);
    memory_fence();  // `tile` written
    put_rows(tile, y, ldy, rows_first, cols);
  }
  memory_fence();
  if (two && whole_next) {
    _tile_stored(2, y_next, ldy * 4);
    _tile_stored(3, y_next + kLanes, ldy * 4);
  } else if (two) {
    _tile_stored(2, &tile[0][0], kNr * 4);
    _tile_stored(3, &tile[0][kLanes], kNr * 4);
    memory_fence();
    put_rows(tile, y_next, ldy, rows_next, cols);
  }
  memory_fence();  // Y written
}
#endif


// The kernel for a sliver of `rows` rows: the full one, or the smallest that covers a short sliver
// (the tile unit's takes two slivers of kTileRows rows at a time: the padding rows are zero).
template <Form F>
void tile_product(int kc, const float* sliver, const void* panel, float* y, int ldy, int rows, int cols, bool add) {
#if defined(__AVX512F__)
  if constexpr (F == Form::Tiles) return tile_kernel(kc, reinterpret_cast<const std::uint32_t*>(sliver), panel, y, ldy, rows, cols, add);
#endif
  if constexpr (F != Form::Tiles) {
    constexpr bool bf16 = F == Form::Bf16;
    if (rows == kMr) return micro_kernel<bf16, kMr>(kc, sliver, panel, y, ldy, rows, cols, add);
    if constexpr (kMr > 2) {
      if (rows <= 2) return micro_kernel<bf16, 2>(kc, sliver, panel, y, ldy, rows, cols, add);
      if (rows <= kMr / 2) return micro_kernel<bf16, kMr / 2>(kc, sliver, panel, y, ldy, rows, cols, add);
    }
    micro_kernel<bf16, kMr>(kc, sliver, panel, y, ldy, rows, cols, add);
  }
}

// Where W's elements lie: the element for column j of Y and step p of the sum.
struct WeightReader {
  const char* data;
  StoredType type;
  bool transposed;
  std::int64_t stride;
  std::int64_t offset(std::int64_t j, std::int64_t p) const { return transposed ? p * stride + j : j * stride + p; }
  // count elements from (j, p) on, along a row of the stored matrix, as floats (gemm_isa.cpp's
  // widening for this set: exact).
  void widen(std::int64_t j, std::int64_t p, int count, float* out) const {
    const char* at = data + offset(j, p) * (type == StoredType::F32 ? 4 : 2);
    switch (type) {
      case StoredType::F32: std::memcpy(out, at, sizeof(float) * static_cast<std::size_t>(count)); return;
      case StoredType::F16: widen_f16(at, count, out); return;
      case StoredType::BF16: widen_bf16(at, count, out); return;
    }
  }
};

// Eight 16-bit values: SSE2's register, in every set.
typedef std::uint16_t Halves __attribute__((vector_size(16)));
typedef std::uint32_t Pairs __attribute__((vector_size(16)));
typedef std::uint64_t Quads __attribute__((vector_size(16)));

// out[t] (8 values, 8 steps from `step`) ← value t of each of the 8 rows: an 8 × 8 transpose in
// three rounds of interleaving, 16, 32 and 64 bits wide.
inline void transpose8(const std::uint16_t* const* rows, int step, std::uint16_t* out, int out_stride) {
  Halves r[8];
  for (int t = 0; t < 8; ++t) std::memcpy(&r[t], rows[t] + step, sizeof(Halves));
  Pairs u[8];
  for (int t = 0; t < 8; t += 2) {
    u[t] = std::bit_cast<Pairs>(Halves(__builtin_shufflevector(r[t], r[t + 1], 0, 8, 1, 9, 2, 10, 3, 11)));
    u[t + 1] = std::bit_cast<Pairs>(Halves(__builtin_shufflevector(r[t], r[t + 1], 4, 12, 5, 13, 6, 14, 7, 15)));
  }
  // u[0]: steps 0–3 of rows 0, 1; u[1]: steps 4–7 of rows 0, 1; u[2], u[3]: rows 2, 3; …
  Quads q[8];
  for (int half = 0; half < 2; ++half)
    for (int t = 0; t < 4; t += 2) {
      const int a = 4 * (t / 2) + half, b = a + 2;  // rows (0,1) with (2,3); rows (4,5) with (6,7)
      q[4 * half + t] = std::bit_cast<Quads>(Pairs(__builtin_shufflevector(u[a], u[b], 0, 4, 1, 5)));
      q[4 * half + t + 1] = std::bit_cast<Quads>(Pairs(__builtin_shufflevector(u[a], u[b], 2, 6, 3, 7)));
    }
  // q[0]: steps 0, 1 of rows 0–3; q[1]: steps 2, 3 of rows 0–3; q[2], q[3]: the same of rows 4–7;
  // q[4] … q[7]: steps 4–7.
  for (int half = 0; half < 2; ++half)
    for (int t = 0; t < 2; ++t) {
      const Quads lo = q[4 * half + t], hi = q[4 * half + t + 2];
      const Quads first = __builtin_shufflevector(lo, hi, 0, 2), second = __builtin_shufflevector(lo, hi, 1, 3);
      std::memcpy(out + (4 * half + 2 * t) * out_stride, &first, sizeof first);
      std::memcpy(out + (4 * half + 2 * t + 1) * out_stride, &second, sizeof second);
    }
}

// The weights' block (columns [j0, j0 + nb), steps [p0, p0 + kc)) as panels, columns past nb zero.
// For a Linear (W is n × k, a row per column of Y) a panel is the transpose of kNr rows, taken 8
// × 8 at a time, the rows in the order the words interleave them (column i, then kLanes + i); for
// a Conv1D (k × n) each step's kNr values lie next to each other already.
void pack_bf16(const WeightReader& w, std::int64_t j0, int nb, std::int64_t p0, int kc, std::uint32_t* out) {
  static const std::uint16_t zeros[kKc] = {};
  for (int j = 0; j < nb; j += kNr) {
    const int cols = std::min(kNr, nb - j);
    std::uint32_t* panel = out + static_cast<std::int64_t>(j / kNr) * kc * kLanes;
    if (w.transposed) {
      for (int p = 0; p < kc; ++p) {
        std::uint16_t lane[kNr] = {};
        std::memcpy(lane, w.data + 2 * w.offset(j0 + j, p0 + p), 2 * static_cast<std::size_t>(cols));
        for (int i = 0; i < kLanes; ++i) panel[kLanes * p + i] = lane[i] | static_cast<std::uint32_t>(lane[kLanes + i]) << 16;
      }
      continue;
    }
    // Half-word q of a step holds column i = q / 2, or kLanes + q / 2 for odd q.
    const std::uint16_t* rows[kNr];
    for (int q = 0; q < kNr; ++q) {
      const int c = q / 2 + (q % 2) * kLanes;
      rows[q] = c < cols ? reinterpret_cast<const std::uint16_t*>(w.data + 2 * w.offset(j0 + j + c, p0)) : zeros;
    }
    // The next panel's rows asked for now, while this one is transposed: each row is a stream of its
    // own in memory (a page apart), more than the hardware's prefetchers follow.
    if (j + kNr < nb) {
      const int next_cols = std::min(kNr, nb - j - kNr);
      for (int c = 0; c < next_cols; ++c) {
        const char* row = w.data + 2 * w.offset(j0 + j + kNr + c, p0);
        for (int byte = 0; byte < 2 * kc; byte += 64) __builtin_prefetch(row + byte);
      }
    }
    auto* halves = reinterpret_cast<std::uint16_t*>(panel);
    int p = 0;
    for (; p + 8 <= kc; p += 8)
      for (int q = 0; q < kNr; q += 8) transpose8(rows + q, p, halves + p * kNr + q, kNr);
    for (; p < kc; ++p)
      for (int q = 0; q < kNr; ++q) std::memcpy(halves + p * kNr + q, rows[q] + p, 2);
  }
}

// out[t] (4 values, 4 steps from `step`) ← value t of each of 4 rows of 32-bit values (floats, or
// BF16 pairs): a 4 × 4 transpose.
template <typename Word>
inline void transpose4(const Word* const* rows, int step, Word* out, int out_stride) {
  static_assert(sizeof(Word) == 4);
  Pairs r[4];
  for (int t = 0; t < 4; ++t) std::memcpy(&r[t], rows[t] + step, sizeof(Pairs));
  const Quads a = std::bit_cast<Quads>(Pairs(__builtin_shufflevector(r[0], r[1], 0, 4, 1, 5)));  // steps 0, 1 of rows 0, 1
  const Quads b = std::bit_cast<Quads>(Pairs(__builtin_shufflevector(r[0], r[1], 2, 6, 3, 7)));  // steps 2, 3
  const Quads c = std::bit_cast<Quads>(Pairs(__builtin_shufflevector(r[2], r[3], 0, 4, 1, 5)));  // rows 2, 3
  const Quads d = std::bit_cast<Quads>(Pairs(__builtin_shufflevector(r[2], r[3], 2, 6, 3, 7)));
  const Quads steps[4] = {__builtin_shufflevector(a, c, 0, 2), __builtin_shufflevector(a, c, 1, 3), __builtin_shufflevector(b, d, 0, 2),
                          __builtin_shufflevector(b, d, 1, 3)};
  for (int t = 0; t < 4; ++t) std::memcpy(out + t * out_stride, &steps[t], sizeof steps[t]);
}

// The same for F32 and F16 weights, widened to floats on the way: F32 rows transposed where they
// lie, F16 ones widened first (exactly, by gemm_isa.cpp's converter for this set).
void pack_floats(const WeightReader& w, std::int64_t j0, int nb, std::int64_t p0, int kc, float* out) {
  static const float zeros[kKc] = {};
  std::vector<float> widened(w.transposed || w.type == StoredType::F32 ? 0 : static_cast<std::size_t>(kNr) * kKc);
  for (int j = 0; j < nb; j += kNr) {
    const int cols = std::min(kNr, nb - j);
    float* panel = out + static_cast<std::int64_t>(j / kNr) * kc * kNr;
    if (w.transposed) {
      for (int p = 0; p < kc; ++p) {
        w.widen(j0 + j, p0 + p, cols, panel + kNr * p);
        std::fill(panel + kNr * p + cols, panel + kNr * (p + 1), 0.0f);
      }
      continue;
    }
    const float* rows[kNr];
    for (int c = 0; c < kNr; ++c) {
      if (c >= cols) rows[c] = zeros;
      else if (w.type == StoredType::F32) rows[c] = reinterpret_cast<const float*>(w.data + 4 * w.offset(j0 + j + c, p0));
      else {
        w.widen(j0 + j + c, p0, kc, widened.data() + c * kKc);
        rows[c] = widened.data() + c * kKc;
      }
    }
    int p = 0;
    for (; p + 4 <= kc; p += 4)
      for (int c = 0; c < kNr; c += 4) transpose4(rows + c, p, panel + p * kNr + c, kNr);
    for (; p < kc; ++p)
      for (int c = 0; c < kNr; ++c) std::memcpy(panel + p * kNr + c, rows[c] + p, 4);
  }
}

// BF16 weights as pairs (Form::Tiles): word (pair q, column c) holds column c's steps 2q (low half)
// and 2q + 1 (high), the last of an odd kc alone, then zero pairs up to whole tiles. For a Linear
// the two lie next to each other in W's row, one 32-bit word, and a panel is the transpose of kNr
// rows of words, 4 × 4 at a time.
void pack_pairs(const WeightReader& w, std::int64_t j0, int nb, std::int64_t p0, int kc, std::uint32_t* out) {
  static const std::uint16_t zeros[block_steps(Form::Tiles)] = {};
  const int whole = kc / 2, pairs = (kc + 1) / 2;
  const auto value = [&w](std::int64_t j, std::int64_t p) {
    std::uint16_t v;
    std::memcpy(&v, w.data + 2 * w.offset(j, p), 2);
    return static_cast<std::uint32_t>(v);
  };
  for (int j = 0; j < nb; j += kNr) {
    const int cols = std::min(kNr, nb - j);
    std::uint32_t* panel = out + static_cast<std::int64_t>(j / kNr) * block_words(Form::Tiles, kc);
    std::fill(panel + static_cast<std::int64_t>(pairs) * kNr, panel + block_words(Form::Tiles, kc), 0u);
    if (w.transposed) {
      for (int q = 0; q < pairs; ++q)
        for (int c = 0; c < kNr; ++c) {
          const bool second = 2 * q + 1 < kc;
          panel[kNr * q + c] = c >= cols ? 0u : value(j0 + j + c, p0 + 2 * q) | (second ? value(j0 + j + c, p0 + 2 * q + 1) << 16 : 0u);
        }
      continue;
    }
    const std::uint32_t* rows[kNr];  // each row's words, steps (0, 1), (2, 3), … (read with memcpy: any alignment)
    for (int c = 0; c < kNr; ++c)
      rows[c] = reinterpret_cast<const std::uint32_t*>(c < cols ? w.data + 2 * w.offset(j0 + j + c, p0) : reinterpret_cast<const char*>(zeros));
    if (j + kNr < nb)  // the next panel's rows asked for now, as pack_bf16 does
      for (int c = 0; c < std::min(kNr, nb - j - kNr); ++c)
        for (int byte = 0; byte < 2 * kc; byte += 64) __builtin_prefetch(w.data + 2 * w.offset(j0 + j + kNr + c, p0) + byte);
    int q = 0;
    for (; q + 4 <= whole; q += 4)
      for (int c = 0; c < kNr; c += 4) transpose4(rows + c, q, panel + q * kNr + c, kNr);
    for (; q < whole; ++q)
      for (int c = 0; c < kNr; ++c) std::memcpy(panel + q * kNr + c, rows[c] + q, 4);
    if (whole < pairs)  // an odd kc: the last step alone, in the low half
      for (int c = 0; c < kNr; ++c) panel[whole * kNr + c] = c < cols ? value(j0 + j + c, p0 + kc - 1) : 0u;
  }
}

// The weights' block as panels in the form it takes in them.
void pack_panels(const WeightReader& w, Form form, std::int64_t j0, int nb, std::int64_t p0, int kc, std::uint32_t* out) {
  if (form == Form::Tiles) pack_pairs(w, j0, nb, p0, kc, out);
  else if (form == Form::Bf16) pack_bf16(w, j0, nb, p0, kc, out);
  else pack_floats(w, j0, nb, p0, kc, reinterpret_cast<float*>(out));
}

// X's sliver of rows [i, i + kMr) (those past m zero), steps [p0, p0 + kc), step by step; in tiles
// (Form::Tiles) row by row as BF16, steps 2q and 2q + 1 of a row in one word (each float rounded to
// the nearest BF16, which a BF16 forward's activations already are), zero pairs up to whole tiles.
void pack_sliver(Form form, const float* X, int ldx, int m, int i, std::int64_t p0, int kc, float* sliver) {
  const float* rows[std::max(kMr, kTileRows)];
  for (int r = 0; r < sliver_rows(form); ++r) rows[r] = i + r < m ? X + static_cast<std::int64_t>(i + r) * ldx + p0 : nullptr;
  if (form != Form::Tiles) {
    for (int p = 0; p < kc; ++p)
      for (int r = 0; r < kMr; ++r) sliver[p * kMr + r] = rows[r] ? rows[r][p] : 0.0f;
    return;
  }
  const auto bf16 = [](float x) {  // the value's 16 bits
    std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
    round_bits_to_bf16(bits);
    return bits >> 16;
  };
  auto* words = reinterpret_cast<std::uint32_t*>(sliver);
  const int pairs = tile_pairs(kc), whole = kc / 2;
  for (int r = 0; r < kTileRows; ++r) {
    std::uint32_t* out = words + r * pairs;
    int q = 0;
    if (rows[r]) {
      const float* x = rows[r];
      for (; q < whole; ++q) out[q] = bf16(x[2 * q]) | bf16(x[2 * q + 1]) << 16;
      if (kc % 2) out[q++] = bf16(x[kc - 1]);
    }
    std::fill(out + q, out + pairs, 0u);
  }
}

// One thread's share of Y's columns (panels [first, last)) over one block of the sum and one block
// of X's rows, packed already.
template <Form F>
void block_product(int kc, const float* slivers, int i0, int mc, const std::uint32_t* weights, int first, int last, int n, float* Y,
                   int ldy, bool add) {
  const std::int64_t stride = block_words(F, kc);
  constexpr int step = F == Form::Tiles ? 2 * kTileRows : kMr;  // rows a kernel call takes
  // The next panel is fetched into L2 a share at a time while this one's slivers run: packed once,
  // the panels come from memory, and the first sliver of each would otherwise wait for its panel.
  const std::int64_t lines = stride * 4 / 64, slivers_here = (mc + step - 1) / step;
  const std::int64_t share = (lines + slivers_here - 1) / slivers_here;
  for (int j = first; j < last; ++j) {
    const int cols = std::min(kNr, n - j * kNr);
    const std::uint32_t* panel = weights + (j - first) * stride;
    const char* next = j + 1 < last ? reinterpret_cast<const char*>(panel + stride) : nullptr;
    for (int i = 0, s = 0; i < mc; i += step, ++s) {
      if (next)
        for (std::int64_t line = s * share; line < std::min(lines, (s + 1) * share); ++line) __builtin_prefetch(next + 64 * line, 0, 2);
      tile_product<F>(kc, slivers + static_cast<std::int64_t>(i) * sliver_row(F, kc), panel, Y + static_cast<std::int64_t>(i0 + i) * ldy + j * kNr,
                         ldy, std::min(step, mc - i), cols, add);
    }
  }
}

// Where a block of the sum's panels start in W packed whole (pack_all): block after block, each
// holding every panel of its kc steps one after the other (every block before the last: block_steps).
std::int64_t packed_offset(int panels, int k, std::int64_t p0, int panel, Form form) {
  const int full = block_steps(form), kc = static_cast<int>(std::min<std::int64_t>(full, k - p0));
  return panels * block_words(form, full) * (p0 / full) + panel * block_words(form, kc);
}

// The whole product on the threads of the parallel region it is called in. Each thread takes a
// contiguous share of W's panels, kNcPanels of them at a time (a round), and packs them; the threads
// pack each block of X together into one buffer they share. Every thread goes through the same
// rounds, blocks and barriers, with no panels of its own left in the last rounds if need be.
template <Form F>
void threads_product(int m, int n, int k, const float* X, int ldx, const WeightReader& w, const std::uint32_t* packed, float* Y, int ldy,
                     float* slivers) {
  const int panels = panel_count(n);
  const int threads = omp_get_num_threads(), thread = omp_get_thread_num();
  const int first = static_cast<int>(static_cast<std::int64_t>(panels) * thread / threads);
  const int last = static_cast<int>(static_cast<std::int64_t>(panels) * (thread + 1) / threads);
  const int most = (panels + threads - 1) / threads;  // the largest share: every thread's round count
  constexpr int full = block_steps(F);
  const std::int64_t panel_words = block_words(F, full);
  // Kept from call to call: a fresh 2 MB buffer would be fresh pages for the kernel to zero on every
  // product (5 % of a forward pass).
  thread_local std::vector<std::uint32_t> weights;
  if (!packed) weights.resize(std::max(weights.size(), static_cast<std::size_t>(std::min(kNcPanels, std::max(1, last - first)) * panel_words)));
  for (int round = 0; round * kNcPanels < most; ++round) {
    const int from = std::min(last, first + round * kNcPanels), to = std::min(last, from + kNcPanels);
    const std::int64_t j0 = static_cast<std::int64_t>(from) * kNr;
    const int nb = static_cast<int>(std::min<std::int64_t>(static_cast<std::int64_t>(to) * kNr, n) - j0);
    for (std::int64_t p0 = 0; p0 < k; p0 += full) {
      const int kc = static_cast<int>(std::min<std::int64_t>(full, k - p0));
      const std::uint32_t* panels_now = weights.data();
      if (packed) panels_now = packed + packed_offset(panels, k, p0, from, F);
      else if (nb > 0) pack_panels(w, F, j0, nb, p0, kc, weights.data());
      for (int i0 = 0; i0 < m; i0 += rows_per_block(F)) {
        const int mc = std::min(rows_per_block(F), m - i0);
#pragma omp for schedule(static)
        for (int i = 0; i < mc; i += sliver_rows(F)) pack_sliver(F, X, ldx, m, i0 + i, p0, kc, slivers + static_cast<std::int64_t>(i) * sliver_row(F, kc));
        // (the loop's implicit barrier: every sliver is packed)
        block_product<F>(kc, slivers, i0, mc, panels_now, from, to, n, Y, ldy, p0 > 0);
#pragma omp barrier
        // (every thread is done with the slivers before they are packed again)
      }
    }
  }
}

}  // namespace

void gemm_weights(int m, int n, int k, const float* X, int ldx, const char* data, StoredType type, bool transposed,
                  std::int64_t stride, const std::uint32_t* packed, float* Y, int ldy, bool tiles) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    for (int i = 0; i < m; ++i) std::fill(Y + static_cast<std::int64_t>(i) * ldy, Y + static_cast<std::int64_t>(i) * ldy + n, 0.0f);
    return;
  }
  const WeightReader w{data, type, transposed, stride};
  // The calling thread's, kept from call to call; its address taken here, since inside the parallel
  // region each thread's own thread_local would be another (and never constructed).
  constexpr std::size_t kSliverWords = std::max<std::size_t>(std::size_t{kMc} * kKc, std::size_t{rows_per_block(Form::Tiles)} *
                                                                                       sliver_row(Form::Tiles, block_steps(Form::Tiles)));
  thread_local std::vector<float> kept(kSliverWords);
  float* const slivers = kept.data();
  const bool nested = omp_in_parallel() != 0;
  const int panels = panel_count(n);
#pragma omp parallel if (!nested && panels > 1)
  {
    switch (form_of(type, tiles)) {
      case Form::Float: threads_product<Form::Float>(m, n, k, X, ldx, w, packed, Y, ldy, slivers); break;
      case Form::Bf16: threads_product<Form::Bf16>(m, n, k, X, ldx, w, packed, Y, ldy, slivers); break;
      case Form::Tiles:
#if defined(__AVX512F__)
        configure_tiles();  // each thread's own tiles
        threads_product<Form::Tiles>(m, n, k, X, ldx, w, packed, Y, ldy, slivers);
        release_tiles();
#endif
        break;
    }
  }
}

std::int64_t packed_words(int n, int k, StoredType type, bool tiles) {
  const Form form = form_of(type, tiles);
  const int full = block_steps(form);
  const std::int64_t last = (k - 1) / full * full;  // where the last block of the sum starts
  return panel_count(n) * (block_words(form, full) * (last / full) + block_words(form, static_cast<int>(k - last)));
}

void pack_all(int n, int k, const char* data, StoredType type, bool transposed, std::int64_t stride, std::uint32_t* out, bool tiles) {
  const WeightReader w{data, type, transposed, stride};
  const int panels = panel_count(n);
  const Form form = form_of(type, tiles);
  const bool nested = omp_in_parallel() != 0;
  // A panel's every block of the sum in turn: its rows of W are read from start to end once.
#pragma omp parallel for schedule(dynamic, 8) if (!nested)
  for (int j = 0; j < panels; ++j) {
    const std::int64_t j0 = static_cast<std::int64_t>(j) * kNr;
    const int cols = static_cast<int>(std::min<std::int64_t>(kNr, n - j0));
    for (std::int64_t p0 = 0; p0 < k; p0 += block_steps(form)) {
      const int kc = static_cast<int>(std::min<std::int64_t>(block_steps(form), k - p0));
      pack_panels(w, form, j0, cols, p0, kc, out + packed_offset(panels, k, p0, j, form));
    }
  }
}

}  // namespace poslab::kernels::POSLAB_KERNEL_NS
