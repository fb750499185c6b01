#include "base/gemm.hpp"

#include <atomic>
#if defined(__x86_64__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace poslab {

// The copies of src/base/kernels/gemm_isa.cpp, one per instruction set.
#define POSLAB_DECLARE_GEMM(ns)                                                                                  \
  namespace kernels::ns {                                                                                       \
  void gemm_abt(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc, bool add); \
  void gemm_ab(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc, bool add);  \
  void gemm_atb(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc, bool add); \
  void widen_bf16(const char* src, std::int64_t n, float* dst);                                                 \
  void widen_f16(const char* src, std::int64_t n, float* dst);                                                  \
  float softmax_row(float* data, int n, float sink);                                                             \
  void round_to_bf16(float* x, std::int64_t n);                                                                  \
  void gemm_weights(int m, int n, int k, const float* X, int ldx, const char* W, StoredType type, bool transposed, \
                    std::int64_t stride, const std::uint32_t* packed, float* Y, int ldy, bool tiles);            \
  std::int64_t packed_words(int n, int k, StoredType type, bool tiles);                                          \
  void pack_all(int n, int k, const char* W, StoredType type, bool transposed, std::int64_t stride, std::uint32_t* out, bool tiles); \
  }
POSLAB_DECLARE_GEMM(baseline)
POSLAB_DECLARE_GEMM(avx2)
POSLAB_DECLARE_GEMM(avx512)
#undef POSLAB_DECLARE_GEMM

namespace {

using Product = void (*)(int, int, int, const float*, int, const float*, int, float*, int, bool);
using Widen = void (*)(const char*, std::int64_t, float*);
using Softmax = float (*)(float*, int, float);
using Round = void (*)(float*, std::int64_t);
using WeightProduct = void (*)(int, int, int, const float*, int, const char*, StoredType, bool, std::int64_t, const std::uint32_t*,
                               float*, int, bool);
using PackedWords = std::int64_t (*)(int, int, StoredType, bool);
using PackAll = void (*)(int, int, const char*, StoredType, bool, std::int64_t, std::uint32_t*, bool);
struct Products {
  Product abt, ab, atb;
  Widen bf16, f16;
  Softmax softmax;
  Round round_bf16;
  WeightProduct weights;
  PackedWords packed_words;
  PackAll pack_all;
};

#define POSLAB_PRODUCTS(ns) \
  {kernels::ns::gemm_abt, kernels::ns::gemm_ab, kernels::ns::gemm_atb, kernels::ns::widen_bf16, kernels::ns::widen_f16, \
   kernels::ns::softmax_row, kernels::ns::round_to_bf16, kernels::ns::gemm_weights, kernels::ns::packed_words, kernels::ns::pack_all}
constexpr Products kProducts[] = {POSLAB_PRODUCTS(baseline), POSLAB_PRODUCTS(avx2), POSLAB_PRODUCTS(avx512)};
#undef POSLAB_PRODUCTS

Isa detect() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma"))
    return Isa::Avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::Avx2;
#endif
  return Isa::Baseline;  // elsewhere the three copies are compiled alike
}

// POSLAB_ISA's choice, when the CPU has it; said once on stderr when it cannot be followed.
Isa initial() {
  const Isa best = cpu_isa();
  const char* asked = std::getenv("POSLAB_ISA");
  if (!asked || !*asked) return best;
  auto isa = parse_isa(asked);
  if (!isa) {
    std::fprintf(stderr, "poslab: POSLAB_ISA: %s; using %s\n", isa.error().c_str(), std::string(isa_name(best)).c_str());
    return best;
  }
  if (static_cast<int>(*isa) > static_cast<int>(best)) {
    std::fprintf(stderr, "poslab: POSLAB_ISA=%s: this CPU has only %s; using it\n", asked, std::string(isa_name(best)).c_str());
    return best;
  }
  return *isa;
}

std::atomic<int>& chosen() {
  static std::atomic<int> isa{static_cast<int>(initial())};
  return isa;
}

const Products& products() { return kProducts[chosen().load(std::memory_order_relaxed)]; }

// Whether a product of `type` weights with these activations goes on the tile unit now.
bool tiles_for(StoredType type, Inputs x) { return x == Inputs::BF16 && type == StoredType::BF16 && bf16_tile_products(); }

}  // namespace

std::string_view isa_name(Isa isa) {
  switch (isa) {
    case Isa::Baseline: return "baseline";
    case Isa::Avx2: return "avx2";
    case Isa::Avx512: return "avx512";
  }
  return "baseline";
}

std::string_view isa_words(Isa isa) {
  switch (isa) {
    case Isa::Baseline: return "x86-64 (SSE2)";
    case Isa::Avx2: return "AVX2 + FMA";
    case Isa::Avx512: return "AVX-512";
  }
  return "x86-64 (SSE2)";
}

Result<Isa> parse_isa(std::string_view name) {
  for (Isa isa : {Isa::Baseline, Isa::Avx2, Isa::Avx512})
    if (name == isa_name(isa)) return isa;
  return Error{"unknown instruction set \"" + std::string(name) + "\" (baseline, avx2, avx512)"};
}

Isa cpu_isa() {
  static const Isa best = detect();
  return best;
}

Isa active_isa() { return static_cast<Isa>(chosen().load(std::memory_order_relaxed)); }

bool bf16_tile_products() {
#if defined(__x86_64__)
  // AMX's tiles: the CPU has them (cpuid leaf 7: AMX-BF16, AMX-TILE) and Linux lets this process
  // use their state (arch_prctl ARCH_REQ_XCOMP_PERM for XTILEDATA, asked once for every thread).
  static const bool usable = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(d & (1u << 22)) || !(d & (1u << 24))) return false;
    constexpr long kRequestPermission = 0x1023, kTileData = 18;
    return syscall(SYS_arch_prctl, kRequestPermission, kTileData) == 0;
  }();
  return usable && active_isa() == Isa::Avx512;
#else
  return false;
#endif
}

Status use_isa(Isa isa) {
  if (static_cast<int>(isa) > static_cast<int>(cpu_isa()))
    return Error{"this CPU has no " + std::string(isa_words(isa)) + " (its best: " + std::string(isa_words(cpu_isa())) + ")"};
  chosen().store(static_cast<int>(isa), std::memory_order_relaxed);
  return Ok{};
}

void gemm_abt(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc, Into into) {
  products().abt(m, n, k, A, lda, B, ldb, C, ldc, into == Into::Add);
}

void gemm_ab(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc, Into into) {
  products().ab(m, n, k, A, lda, B, ldb, C, ldc, into == Into::Add);
}

void gemm_atb(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc, Into into) {
  products().atb(m, n, k, A, lda, B, ldb, C, ldc, into == Into::Add);
}

void widen_bf16(const char* src, std::int64_t n, float* dst) { products().bf16(src, n, dst); }
void widen_f16(const char* src, std::int64_t n, float* dst) { products().f16(src, n, dst); }
float softmax_row(float* row, int n, float sink) { return products().softmax(row, n, sink); }

void gemm_weights(int m, int n, int k, const float* X, int ldx, const char* W, StoredType type, bool transposed,
                  std::int64_t stride, float* Y, int ldy, Inputs x) {
  products().weights(m, n, k, X, ldx, W, type, transposed, stride, nullptr, Y, ldy, tiles_for(type, x));
}

PackedWeights PackedWeights::pack(int n, int k, const char* W, StoredType type, bool transposed, std::int64_t stride, Inputs x) {
  PackedWeights p;
  p.isa_ = active_isa();
  p.type_ = type;
  p.tiles_ = tiles_for(type, x);
  p.n_ = n;
  p.k_ = k;
  const Products& on = kProducts[static_cast<int>(p.isa_)];
  p.count_ = static_cast<std::size_t>(on.packed_words(n, k, type, p.tiles_));
  p.words_.reset(new std::uint32_t[p.count_]);
  on.pack_all(n, k, W, type, transposed, stride, p.words_.get(), p.tiles_);
  return p;
}

std::uint64_t PackedWeights::bytes_for(int n, int k, StoredType type, Inputs x) {
  return static_cast<std::uint64_t>(products().packed_words(n, k, type, tiles_for(type, x))) * sizeof(std::uint32_t);
}

bool PackedWeights::fits(int n, int k, StoredType type, Inputs x) const {
  return n == n_ && k == k_ && type == type_ && isa_ == active_isa() && tiles_ == tiles_for(type, x);
}

void PackedWeights::multiply(int m, const float* X, int ldx, float* Y, int ldy) const {
  kProducts[static_cast<int>(isa_)].weights(m, n_, k_, X, ldx, nullptr, type_, false, 0, words_.get(), Y, ldy, tiles_);
}

void round_to_bf16(float* x, std::int64_t n) { products().round_bf16(x, n); }

}  // namespace poslab
