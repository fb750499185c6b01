// Which library should multiply a model's activations by its weights (issue 35)? Y = X·Wᵀ, X being
// T × K float activations and W an N × K weight stored as BF16, for the products of a
// Llama-3.2-1B-shaped layer (q/o, k/v, gate/up, down) and a slice of its LM head, at T = 1 to 4096,
// by every library this build found (bench/gemm_choice_run.sh installs them from Debian):
//   poslab_bf16     today's path: layer_ops' `linear`, base/gemm.hpp's gemm_weights, which packs W
//                   as stored (BF16 panels) and widens it in its micro-kernel
//   poslab_blocks   the path before it: blocks of 64 rows of W (here already in float) multiplied
//                   by gemm_abt (Eigen), which packs X again for every block
//   eigen_f32       gemm_abt over the whole float W in one call: Eigen with W converted once
//   openblas_f32    cblas_sgemm over the float W
//   openblas_bf16   what PosLab could do with OpenBLAS and its weights left in BF16: W widened 16 MB
//                   of rows at a time (base/gemm.hpp's widen_bf16), each block by cblas_sgemm
//   openblas_sbgemm cblas_sbgemm, BF16 X (rounded in the timed call) and W, float Y, where the
//                   library has it
//   onednn_f32      a oneDNN matmul whose weights are reordered once, before timing, into the layout
//                   it asks for (format_tag::any)
//   onednn_bf16     the same in BF16 (X rounded in the timed call), float Y, where oneDNN offers it
//   blis_f32        bli_sgemm over the float W
//   libxsmm_f32     libxsmm_sgemm_omp over the float W
// Prints Markdown tables: GFLOP/s (2·T·N·K over the median time of several calls after a warm-up),
// the winner of each row, every library's largest error against a double-precision reference,
// and the machine's float peak (an FMA loop, and the square 2048³ product). Not a test.
//   gemm_choice [--t 1,16,64,256,1024,4096] [--shapes q/o,k/v,gate/up,down,lm] [--libs a,b,…]
//               [--lm-rows 16384] [--budget 0.2] [--max-gflop 70] [--max-call 10] [--min-reps 3] [--max-reps 15]
#include <dlfcn.h>
#include <immintrin.h>
#include <omp.h>
#include <sys/utsname.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/gemm.hpp"
#include "base/matrix.hpp"
#include "core/model/checkpoint.hpp"
#include "core/model/layer_ops.hpp"

#ifdef POSLAB_HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef POSLAB_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>
#endif
#ifdef POSLAB_HAVE_LIBXSMM
#include <libxsmm.h>
#endif
#ifdef POSLAB_HAVE_BLIS
// bench/gemm_choice_blis.cpp: blis.h cannot share a file with OpenBLAS's cblas.h.
void blis_abt(int m, int n, int k, const float* A, const float* B, float* C);
std::string blis_about();
#endif

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// --- The data ------------------------------------------------------------------------------------

// A value in [-1, 1) that depends only on (seed, i): the matrices are filled in parallel and are the
// same in every run.
float uniform(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 1;  // splitmix64's finaliser
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(static_cast<double>(z >> 40) * 0x1p-23 - 1.0);
}

// BF16 is a float's top half; rounded to nearest, ties to even (no NaNs arise here).
std::uint16_t to_bf16(float x) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  return static_cast<std::uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
float from_bf16(std::uint16_t h) { return std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16); }

// X rounded to BF16 for the libraries' BF16 products (sbgemm, oneDNN's), where this build has one.
[[maybe_unused]] void round_to_bf16(const float* src, std::int64_t n, std::uint16_t* dst) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) dst[i] = to_bf16(src[i]);
}

struct Shape {
  std::string name;  // the model's products of this shape
  int N, K;
};

// One weight: BF16 as the checkpoint holds it, and the same values widened to float once (the
// float libraries' input; exactly equal, so every library multiplies the same numbers).
struct Weight {
  std::vector<std::uint16_t> bf16;
  std::vector<float> f32;
  Weight(int N, int K, std::uint64_t seed) : bf16(static_cast<std::size_t>(N) * K), f32(bf16.size()) {
    const auto n = static_cast<std::int64_t>(bf16.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      bf16[i] = to_bf16(0.05f * uniform(seed, static_cast<std::uint64_t>(i)));
      f32[i] = from_bf16(bf16[i]);
    }
  }
};

// One product to time: X (T × K, float, row-major, an Eigen matrix for `linear`), W, and Y.
struct Problem {
  int T, N, K;
  const poslab::Matrix* X;
  const Weight* W;
  float* Y;  // T × N, for the libraries that write into a buffer given
};

// --- The libraries -------------------------------------------------------------------------------

// The shared object a function came from: with OpenBLAS and BLIS in one process, both of which
// export cblas_sgemm, this says whose the call resolved to.
[[maybe_unused]] std::string library_of(const void* function) {
  Dl_info info{};
  return dladdr(function, &info) && info.dli_fname ? info.dli_fname : "?";
}


// A way to compute Y = X·Wᵀ. `prepare` does, untimed, what is done once per weight or per T in a
// forward pass (oneDNN's primitive, its weights' reorder) and returns an empty string, or why this
// library cannot do this product. `run` is what is timed; it returns where Y is.
struct Library {
  std::string name;
  bool bf16_input = false;  // X is rounded to BF16: compared against a looser tolerance
  bool threads_outside_openmp = false;  // OpenBLAS's own pthreads, which spin for a while after a call
  std::function<std::string(const Problem&)> prepare;  // may be empty: nothing to prepare
  std::function<const float*(const Problem&)> run;
  // What the library said it chose (oneDNN's implementation and weights layout): for the report.
  std::shared_ptr<std::set<std::string>> notes = std::make_shared<std::set<std::string>>();
};

std::vector<Library> libraries() {
  std::vector<Library> libs;

  // Exactly the forward pass's call: a BF16 WeightTensor as the checkpoint maps it (out × in).
  {
    auto result = std::make_shared<poslab::Matrix>();
    libs.push_back({"poslab_bf16", false, false, {}, [result](const Problem& p) {
                      poslab::WeightTensor w;
                      w.name = "w";
                      w.data = reinterpret_cast<const char*>(p.W->bf16.data());
                      w.type = poslab::WeightType::BF16;
                      w.rows = p.N;
                      w.cols = p.K;
                      *result = poslab::linear(*p.X, w, poslab::WeightLayout::OutIn);
                      return static_cast<const float*>(result->data());
                    }});
  }
  // layer_ops.cpp's loop (its kBlockRows is 64) without the widening: the blocks' own cost.
  libs.push_back({"poslab_blocks", false, false, {}, [](const Problem& p) {
                    constexpr int kRows = 64;
                    const int blocks = (p.N + kRows - 1) / kRows;
#pragma omp parallel for schedule(dynamic, 4)
                    for (int b = 0; b < blocks; ++b) {
                      const int first = b * kRows, n = std::min(kRows, p.N - first);
                      poslab::gemm_abt(p.T, n, p.K, p.X->data(), p.K, p.W->f32.data() + static_cast<std::size_t>(first) * p.K,
                                       p.K, p.Y + first, p.N);
                    }
                    return static_cast<const float*>(p.Y);
                  }});
  // One call over the whole float W: Eigen parallelises it over OpenMP's threads itself.
  libs.push_back({"eigen_f32", false, false, {}, [](const Problem& p) {
                    poslab::gemm_abt(p.T, p.N, p.K, p.X->data(), p.K, p.W->f32.data(), p.K, p.Y, p.N);
                    return static_cast<const float*>(p.Y);
                  }});

#ifdef POSLAB_HAVE_OPENBLAS
  // OpenBLAS and BLIS both export cblas_sgemm: this is OpenBLAS's only if the linker put it first.
  libs.push_back({"openblas_f32", false, true,
                  [](const Problem&) {
                    const std::string from = library_of(reinterpret_cast<const void*>(&cblas_sgemm));
                    return from.find("openblas") == std::string::npos ? "cblas_sgemm is " + from + "'s, not OpenBLAS's"
                                                                      : std::string();
                  },
                  [](const Problem& p) {
                    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, p.T, p.N, p.K, 1.0f, p.X->data(), p.K,
                                p.W->f32.data(), p.K, 0.0f, p.Y, p.N);
                    return static_cast<const float*>(p.Y);
                  }});
  // The float libraries' W is a float copy made once; a forward pass keeps BF16 weights mapped and
  // cannot hold one (twice the model's size). Widening a block of rows at a time, as `linear` does,
  // on OpenMP's threads, with blocks of 4 Mi floats (16 MB): OpenBLAS's rate falls with N (at
  // T = 256 it ran blocks of 512 rows at 0.6× the whole matrix's), and these make q/o, k/v one block.
  {
    auto buffer = std::make_shared<std::vector<float>>();
    libs.push_back({"openblas_bf16", false, true,
                    [buffer](const Problem& p) {
                      const int rows = std::max(64, (1 << 22) / p.K);
                      buffer->resize(static_cast<std::size_t>(rows) * p.K);
                      return std::string();
                    },
                    [buffer](const Problem& p) {
                      const int rows = static_cast<int>(buffer->size() / static_cast<std::size_t>(p.K));
                      for (int first = 0; first < p.N; first += rows) {
                        const int n = std::min(rows, p.N - first);
#pragma omp parallel for schedule(static)
                        for (int r = 0; r < n; r += 64) {
                          const std::size_t at = static_cast<std::size_t>(r) * p.K;
                          poslab::widen_bf16(reinterpret_cast<const char*>(p.W->bf16.data() + static_cast<std::size_t>(first) * p.K + at),
                                             static_cast<std::int64_t>(std::min(64, n - r)) * p.K, buffer->data() + at);
                        }
                        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, p.T, n, p.K, 1.0f, p.X->data(), p.K,
                                    buffer->data(), p.K, 0.0f, p.Y + first, p.N);
                      }
                      return static_cast<const float*>(p.Y);
                    }});
  }
#ifdef POSLAB_HAVE_OPENBLAS_SBGEMM
  {
    auto x16 = std::make_shared<std::vector<std::uint16_t>>();
    libs.push_back({"openblas_sbgemm", true, true,
                    [x16](const Problem& p) {
                      x16->resize(static_cast<std::size_t>(p.T) * p.K);
                      return std::string();
                    },
                    [x16](const Problem& p) {
                      round_to_bf16(p.X->data(), static_cast<std::int64_t>(p.T) * p.K, x16->data());
                      cblas_sbgemm(CblasRowMajor, CblasNoTrans, CblasTrans, p.T, p.N, p.K, 1.0f, x16->data(), p.K,
                                   p.W->bf16.data(), p.K, 0.0f, p.Y, p.N);
                      return static_cast<const float*>(p.Y);
                    }});
  }
#endif
#endif

#ifdef POSLAB_HAVE_ONEDNN
  // A matmul primitive per T (as a forward pass would make one per prompt length, or find it in
  // oneDNN's cache), with the weights in whatever layout it asks for: W (N × K, row-major) is
  // Wᵀ (K × N) in layout `ba`, reordered once per weight and layout, before any timing.
  struct Dnnl {
    dnnl::engine engine{dnnl::engine::kind::cpu, 0};
    dnnl::stream stream{engine};
    dnnl::matmul primitive;
    dnnl::memory src, dst, weights;  // weights: the reordered copy the primitive reads
    const Weight* packed_for = nullptr;
    dnnl::memory::desc packed_desc;
    std::vector<std::uint16_t> x16;
  };
  for (const bool bf16 : {false, true}) {
    auto d = std::make_shared<Dnnl>();
    auto notes = std::make_shared<std::set<std::string>>();
    libs.push_back(
        {bf16 ? "onednn_bf16" : "onednn_f32", bf16, false,
         [d, bf16, notes](const Problem& p) -> std::string {
           using dt = dnnl::memory::data_type;
           using tag = dnnl::memory::format_tag;
           const dt in = bf16 ? dt::bf16 : dt::f32;
           const dnnl::memory::dims x_dims{p.T, p.K}, w_dims{p.K, p.N}, y_dims{p.T, p.N};
           try {
             const dnnl::matmul::desc desc({x_dims, in, tag::ab}, {w_dims, in, tag::any}, {y_dims, dt::f32, tag::ab});
             const dnnl::matmul::primitive_desc pd(desc, d->engine);
             d->primitive = dnnl::matmul(pd);
             const dnnl::memory::desc packed = pd.weights_desc();
             const char* layout = packed == dnnl::memory::desc(w_dims, in, tag::ba)   ? "W as stored (ba)"
                                  : packed == dnnl::memory::desc(w_dims, in, tag::ab) ? "Wᵀ (ab)"
                                                                                      : "blocked";
             notes->insert(std::string(pd.impl_info_str()) + ", weights " + layout);
             if (bf16) d->x16.resize(static_cast<std::size_t>(p.T) * p.K);
             d->src = dnnl::memory(pd.src_desc(), d->engine,
                                   bf16 ? static_cast<void*>(d->x16.data()) : const_cast<float*>(p.X->data()));
             d->dst = dnnl::memory(pd.dst_desc(), d->engine, p.Y);
             if (d->packed_for != p.W || d->packed_desc != pd.weights_desc()) {
               void* user = bf16 ? const_cast<std::uint16_t*>(p.W->bf16.data()) : static_cast<void*>(const_cast<float*>(p.W->f32.data()));
               dnnl::memory plain({w_dims, in, tag::ba}, d->engine, user);
               d->weights = dnnl::memory(pd.weights_desc(), d->engine);
               dnnl::reorder(plain, d->weights).execute(d->stream, plain, d->weights);
               d->stream.wait();
               d->packed_for = p.W;
               d->packed_desc = pd.weights_desc();
             }
             return std::string();
           } catch (const dnnl::error& e) {
             if (e.status == dnnl_unimplemented) return std::string("oneDNN: no implementation on this CPU (dnnl_unimplemented)");
             return std::string("oneDNN: ") + e.what() + " (status " + std::to_string(static_cast<int>(e.status)) + ")";
           }
         },
         [d, bf16](const Problem& p) {
           if (bf16) round_to_bf16(p.X->data(), static_cast<std::int64_t>(p.T) * p.K, d->x16.data());
           d->primitive.execute(d->stream, {{DNNL_ARG_SRC, d->src}, {DNNL_ARG_WEIGHTS, d->weights}, {DNNL_ARG_DST, d->dst}});
           d->stream.wait();
           return static_cast<const float*>(p.Y);
         },
         notes});
  }
#endif

#ifdef POSLAB_HAVE_BLIS
  libs.push_back({"blis_f32", false, false, {}, [](const Problem& p) {
                    blis_abt(p.T, p.N, p.K, p.X->data(), p.W->f32.data(), p.Y);
                    return static_cast<const float*>(p.Y);
                  }});
#endif

#ifdef POSLAB_HAVE_LIBXSMM
  // libxsmm speaks column-major BLAS: row-major Y (T × N) is column-major Yᵀ (N × T) = W·Xᵀ, with
  // W, read column-major, being Wᵀ (K × N): hence "T", "N".
  libs.push_back({"libxsmm_f32", false, false, {}, [](const Problem& p) {
                    const libxsmm_blasint m = p.N, n = p.T, k = p.K, lda = p.K, ldb = p.K, ldc = p.N;
                    const float one = 1.0f, zero = 0.0f;
                    libxsmm_sgemm_omp("T", "N", &m, &n, &k, &one, p.W->f32.data(), &lda, p.X->data(), &ldb, &zero, p.Y, &ldc);
                    return static_cast<const float*>(p.Y);
                  }});
#endif
  return libs;
}

// --- Measuring -----------------------------------------------------------------------------------

struct Settings {
  std::vector<int> Ts{1, 16, 64, 256, 1024, 4096};
  std::vector<std::string> shapes{"q/o", "k/v", "gate/up", "down", "lm"};
  std::vector<std::string> libs;  // empty: all
  int lm_rows = 16384;
  double budget = 0.2;    // seconds of timed calls per measurement, beyond the minimum count
  // Products larger than this are not timed, for every library alike: at T = 4096 gate/up and down
  // are 137 GFLOP a call and the LM head's slice 275, several seconds each on two cores, and their
  // rate is already that of T = 1024 (a large product's). Keeps the whole run within ~5 minutes.
  double max_gflop = 70;
  double max_call = 10.0;  // a call predicted longer than this is skipped (a machine very busy)
  int min_reps = 3, max_reps = 15;
};

// A buffer larger than this machine's last-level cache, rewritten before a short call: in a forward
// pass a weight is read once per token, after every other weight has been through the cache, so a
// T = 1 product must not find its W there from the previous call.
class CacheFlusher {
 public:
  void flush() {
    const auto n = static_cast<std::int64_t>(buffer_.size());
    float* b = buffer_.data();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) b[i] += 1.0f;
  }

 private:
  std::vector<float> buffer_ = std::vector<float>(std::size_t{96} << 18);  // 96 MiB
};

struct Measurement {
  std::optional<double> seconds;  // median of the timed calls
  int reps = 0;
  bool warmed = true;  // false: no warm-up call of its own (its call was long; the previous T warmed the library)
  std::string skipped;  // why there is no time
  double error = 0;  // max |Y − reference| / max |reference| over the sampled rows
};

// The reference: rows {0, T/2, T−1} of Y in double precision, from the same X and (float) W.
struct Reference {
  std::vector<int> rows;
  std::vector<double> values;  // rows.size() × N
  double scale = 0;            // max |value|
  explicit Reference(const Problem& p) {
    rows = {0, p.T / 2, p.T - 1};
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    values.resize(rows.size() * static_cast<std::size_t>(p.N));
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const float* x = p.X->data() + static_cast<std::size_t>(rows[r]) * p.K;
#pragma omp parallel for schedule(static)
      for (int n = 0; n < p.N; ++n) {
        const float* w = p.W->f32.data() + static_cast<std::size_t>(n) * p.K;
        double sum = 0;
        for (int k = 0; k < p.K; ++k) sum += static_cast<double>(x[k]) * w[k];
        values[r * p.N + n] = sum;
      }
    }
    for (double v : values) scale = std::max(scale, std::abs(v));
  }
  double error(const float* Y, int N) const {
    double worst = 0;
    for (std::size_t r = 0; r < rows.size(); ++r)
      for (int n = 0; n < N; ++n) {
        const double y = Y[static_cast<std::size_t>(rows[r]) * N + n];
        const double e = std::isfinite(y) ? std::abs(y - values[r * N + n]) : INFINITY;
        worst = std::max(worst, e);
      }
    return worst / scale;
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

// Times one library on one product. `predicted`: this call's expected length from the same
// library's rate at the previous T, when there was one.
Measurement measure(Library& lib, const Problem& p, const Reference& ref, std::optional<double> predicted,
                    const Settings& s, CacheFlusher& flusher) {
  Measurement m;
  if (predicted && *predicted > s.max_call) {
    char why[96];
    std::snprintf(why, sizeof why, "skipped: one call would take ~%.0f s", *predicted);
    m.skipped = why;
    return m;
  }
  if (std::string why = lib.prepare ? lib.prepare(p) : std::string(); !why.empty()) {
    m.skipped = why;
    return m;
  }
  // NaN in Y first, so that a library that writes nothing cannot pass on the previous one's result.
  std::fill(p.Y, p.Y + static_cast<std::size_t>(p.T) * p.N, NAN);
  double estimate;
  if (predicted && *predicted > 0.5) {
    estimate = *predicted;
    m.warmed = false;
  } else {
    const auto start = Clock::now();
    lib.run(p);
    estimate = seconds_since(start);
  }
  const bool cold = estimate < 0.05;  // short enough for the cache to matter: start each call cold
  m.reps = std::clamp(static_cast<int>(std::ceil(s.budget / estimate)), s.min_reps, s.max_reps);
  std::vector<double> times;
  const float* Y = nullptr;
  for (int r = 0; r < m.reps; ++r) {
    if (cold) flusher.flush();
    const auto start = Clock::now();
    Y = lib.run(p);
    times.push_back(seconds_since(start));
  }
  m.seconds = median(times);
  m.error = ref.error(Y, p.N);
  // OpenBLAS's idle threads keep spinning for a while after a call (2^28 cycles, its default
  // THREAD_TIMEOUT: ~0.1 s); let them sleep before another library wants both cores.
  if (lib.threads_outside_openmp) std::this_thread::sleep_for(std::chrono::milliseconds(120));
  return m;
}

// --- The machine's float peak --------------------------------------------------------------------

// Twelve independent chains of fused multiply-adds on 8 floats: an FMA's latency (4–5 cycles) times
// the two FMA ports of a Zen or Intel core needs 8–10 chains in flight; twelve leaves no stall.
// Compiled for AVX2 + FMA whatever the build's flags, and only called where cpuid says they exist.
__attribute__((target("avx2,fma"))) float fma_chains(std::int64_t iterations, float seed) {
  // Unrolled, so that the accumulators live in registers (at -O2 GCC would keep the array in memory,
  // and time the store-to-load forwarding instead).
  __m256 acc[12];
#pragma GCC unroll 12
  for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(seed + static_cast<float>(i));
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (std::int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  }
  __m256 sum = acc[0];
  for (int i = 1; i < 12; ++i) sum = _mm256_add_ps(sum, acc[i]);
  float out[8];
  _mm256_storeu_ps(out, sum);
  return out[0] + out[7];
}

// The same with AVX-512's sixteen floats a register (the peak of the products' AVX-512 copy), only
// called where cpuid says the CPU has AVX-512F.
__attribute__((target("avx512f"))) float fma_chains_512(std::int64_t iterations, float seed) {
  __m512 acc[12];
#pragma GCC unroll 12
  for (int i = 0; i < 12; ++i) acc[i] = _mm512_set1_ps(seed + static_cast<float>(i));
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (std::int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  __m512 sum = acc[0];
  for (int i = 1; i < 12; ++i) sum = _mm512_add_ps(sum, acc[i]);
  float out[16];
  _mm512_storeu_ps(out, sum);
  return out[0] + out[15];
}

// GFLOP/s of the FMA loop (lanes: 8 for AVX2, 16 for AVX-512) on every OpenMP thread at once (best
// of 5 runs of ~0.2 s each).
double fma_peak(int threads, int lanes = 8) {
  const std::int64_t iterations = 20'000'000;  // 12 × 8 × 2 FLOP each: 3.84 GFLOP per thread
  double best = 0;
  volatile float sink = 0;
  for (int run = 0; run < 5; ++run) {
    const auto start = Clock::now();
    float total = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total)
    total += lanes == 16 ? fma_chains_512(iterations, static_cast<float>(omp_get_thread_num()))
                         : fma_chains(iterations, static_cast<float>(omp_get_thread_num()));
    const double s = seconds_since(start);
    sink = sink + total;
    best = std::max(best, static_cast<double>(threads) * static_cast<double>(iterations) * 12 * lanes * 2 / s / 1e9);
  }
  return best;
}

// --- The report ----------------------------------------------------------------------------------

std::string cpu_model_and_flags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model, flags;
  while (std::getline(in, line) && (model.empty() || flags.empty())) {
    if (model.empty() && line.rfind("model name", 0) == 0) model = line.substr(line.find(':') + 2);
    if (flags.empty() && line.rfind("flags", 0) == 0) flags = " " + line.substr(line.find(':') + 2) + " ";
  }
  std::string have;
  for (const char* f : {"avx2", "fma", "f16c", "avx512f", "avx512_bf16", "avx_vnni", "amx_bf16"})
    if (flags.find(std::string(" ") + f + " ") != std::string::npos) have += std::string(have.empty() ? "" : ", ") + f;
  return model + " (" + (have.empty() ? "no AVX2" : have) + ")";
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one;
  in >> one;
  return one;
}

void print_about(int threads) {
  utsname u{};
  uname(&u);
  std::printf("CPU: %s; %u logical CPUs, %d OpenMP threads; Linux %s; load average (1 min) %s at the start\n",
              cpu_model_and_flags().c_str(), std::thread::hardware_concurrency(), threads, u.release,
              load_average().c_str());
  std::printf("- PosLab: products on %s (base/gemm.hpp), Eigen %d.%d.%d\n",
              std::string(poslab::isa_words(poslab::active_isa())).c_str(), EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION,
              EIGEN_MINOR_VERSION);
#ifdef POSLAB_HAVE_OPENBLAS
  const int parallel = openblas_get_parallel();
  std::printf("- OpenBLAS: %s; core %s; %s, %d threads; cblas_sgemm from %s; cblas_sbgemm %s\n", openblas_get_config(),
              openblas_get_corename(), parallel == 0 ? "sequential" : parallel == 1 ? "pthreads" : "OpenMP",
              openblas_get_num_threads(), library_of(reinterpret_cast<const void*>(&cblas_sgemm)).c_str(),
#ifdef POSLAB_HAVE_OPENBLAS_SBGEMM
              "present"
#else
              "absent (cblas.h declares it, but this library was built without BUILD_BFLOAT16)"
#endif
  );
#else
  std::printf("- OpenBLAS: not found when this was built\n");
#endif
#ifdef POSLAB_HAVE_ONEDNN
  const dnnl_version_t* v = dnnl_version();
  static const std::map<dnnl::cpu_isa, const char*> isa_names{
      {dnnl::cpu_isa::sse41, "SSE4.1"},           {dnnl::cpu_isa::avx, "AVX"},
      {dnnl::cpu_isa::avx2, "AVX2"},              {dnnl::cpu_isa::avx2_vnni, "AVX2 VNNI"},
      {dnnl::cpu_isa::avx512_core, "AVX-512"},    {dnnl::cpu_isa::avx512_core_vnni, "AVX-512 VNNI"},
      {dnnl::cpu_isa::avx512_core_bf16, "AVX-512 BF16"}, {dnnl::cpu_isa::avx512_core_amx, "AMX"}};
  const auto isa = isa_names.find(dnnl::get_effective_cpu_isa());
  std::printf("- oneDNN %d.%d.%d: CPU runtime %s, kernels up to %s\n", v->major, v->minor, v->patch,
              v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other", isa == isa_names.end() ? "?" : isa->second);
#else
  std::printf("- oneDNN: not found when this was built\n");
#endif
#ifdef POSLAB_HAVE_BLIS
  std::printf("- %s\n", blis_about().c_str());
#else
  std::printf("- BLIS: not found when this was built\n");
#endif
#ifdef POSLAB_HAVE_LIBXSMM
  std::printf("- libxsmm %s, target %s, OpenMP (libxsmmext)\n", LIBXSMM_VERSION, libxsmm_get_target_arch());
#else
  std::printf("- libxsmm: not found when this was built\n");
#endif
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

bool parse(int argc, char** argv, Settings& s) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--t") {
      s.Ts.clear();
      for (const auto& t : split(value)) s.Ts.push_back(std::atoi(t.c_str()));
    } else if (key == "--shapes") s.shapes = split(value);
    else if (key == "--libs") s.libs = split(value);
    else if (key == "--lm-rows") s.lm_rows = std::atoi(value.c_str());
    else if (key == "--budget") s.budget = std::atof(value.c_str());
    else if (key == "--max-gflop") s.max_gflop = std::atof(value.c_str());
    else if (key == "--max-call") s.max_call = std::atof(value.c_str());
    else if (key == "--min-reps") s.min_reps = std::atoi(value.c_str());
    else if (key == "--max-reps") s.max_reps = std::atoi(value.c_str());
    else return std::fprintf(stderr, "unknown option %s\n", key.c_str()), false;
  }
  if (argc % 2 == 0) return std::fprintf(stderr, "%s takes a value\n", argv[argc - 1]), false;
  for (int t : s.Ts)
    if (t < 1) return std::fprintf(stderr, "--t: %d is not a token count\n", t), false;
  return !s.Ts.empty() && s.min_reps >= 1 && s.max_reps >= s.min_reps;
}

// The tolerance of a library's error: float accumulation over K = 8192 stays far below 1e-4 of the
// largest value; X rounded to BF16 (8 significant bits) costs up to ~2⁻⁹ of each term.
double tolerance(const Library& lib) { return lib.bf16_input ? 2e-2 : 1e-4; }

struct Row {
  std::string shape;
  int T, N, K;
  std::vector<Measurement> results;  // one per library
};

std::string cell(const Row& row, const Measurement& m, const Library& lib) {
  if (!m.seconds) return "—";
  char text[64];
  const double gflops = 2.0 * row.T * row.N * row.K / *m.seconds / 1e9;
  std::snprintf(text, sizeof text, "%.1f%s%s", gflops, m.warmed ? "" : "°", m.error > tolerance(lib) ? " WRONG" : "");
  return text;
}

void print_table(const std::vector<Row>& rows, const std::vector<Library>& libs) {
  std::printf("\n| product | T | N × K |");
  for (const auto& lib : libs) std::printf(" %s |", lib.name.c_str());
  std::printf(" winner | × runner-up | × poslab_bf16 |\n|---|---:|---|");
  for (std::size_t i = 0; i < libs.size(); ++i) std::printf("---:|");
  std::printf("---|---:|---:|\n");
  for (const Row& row : rows) {
    std::printf("| %s | %d | %d × %d |", row.shape.c_str(), row.T, row.N, row.K);
    int best = -1, second = -1;
    for (std::size_t i = 0; i < libs.size(); ++i) {
      const Measurement& m = row.results[i];
      std::printf(" %s |", cell(row, m, libs[i]).c_str());
      if (!m.seconds || m.error > tolerance(libs[i])) continue;
      const auto ii = static_cast<int>(i);
      if (best < 0 || *m.seconds < *row.results[best].seconds) second = best, best = ii;
      else if (second < 0 || *m.seconds < *row.results[second].seconds) second = ii;
    }
    if (best < 0) {
      std::printf(" — | | |\n");
      continue;
    }
    const double t = *row.results[best].seconds;
    std::printf(" **%s** |", libs[best].name.c_str());
    if (second >= 0) std::printf(" %.2f× |", *row.results[second].seconds / t);
    else std::printf(" |");
    const auto today = std::find_if(libs.begin(), libs.end(), [](const Library& l) { return l.name == "poslab_bf16"; });
    const Measurement* base = today == libs.end() ? nullptr : &row.results[static_cast<std::size_t>(today - libs.begin())];
    if (base && base->seconds) std::printf(" %.2f× |\n", *base->seconds / t);
    else std::printf(" |\n");
  }
}

// A whole layer's seven products (q, k, v, o, gate, up, down: 2·q/o + 2·k/v + 2·gate/up + down) in
// milliseconds per library, for each T at which all four shapes were timed: the sum a forward
// pass pays per layer, which is what the choice is about.
void print_layer_table(const std::vector<Row>& rows, const std::vector<Library>& libs, const std::vector<int>& Ts) {
  const std::vector<std::pair<std::string, int>> layer{{"q/o", 2}, {"k/v", 2}, {"gate/up", 2}, {"down", 1}};
  bool header = false;
  for (int T : Ts) {
    std::vector<std::optional<double>> total(libs.size(), 0.0);
    bool complete = true;
    for (const auto& [name, count] : layer) {
      const auto row = std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.shape == name && r.T == T; });
      if (row == rows.end()) {
        complete = false;
        break;
      }
      for (std::size_t i = 0; i < libs.size(); ++i) {
        const Measurement& m = row->results[i];
        if (total[i] && m.seconds && m.error <= tolerance(libs[i])) *total[i] += count * *m.seconds;
        else total[i].reset();
      }
    }
    if (!complete) continue;
    if (!header) {
      std::printf("\nOne layer's seven products (2·q/o + 2·k/v + 2·gate/up + down), milliseconds:\n\n| T |");
      for (const auto& lib : libs) std::printf(" %s |", lib.name.c_str());
      std::printf(" fastest | poslab_bf16 / fastest |\n|---:|");
      for (std::size_t i = 0; i < libs.size(); ++i) std::printf("---:|");
      std::printf("---|---:|\n");
      header = true;
    }
    std::printf("| %d |", T);
    int best = -1;
    for (std::size_t i = 0; i < libs.size(); ++i) {
      if (total[i]) std::printf(" %.2f |", *total[i] * 1e3);
      else std::printf(" — |");
      if (total[i] && (best < 0 || *total[i] < *total[best])) best = static_cast<int>(i);
    }
    const auto today = std::find_if(libs.begin(), libs.end(), [](const Library& l) { return l.name == "poslab_bf16"; });
    const std::optional<double> base = today == libs.end() ? std::nullopt : total[static_cast<std::size_t>(today - libs.begin())];
    if (best < 0) std::printf(" — | |\n");
    else if (base) std::printf(" **%s** | %.2f× |\n", libs[best].name.c_str(), *base / *total[best]);
    else std::printf(" **%s** | |\n", libs[best].name.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  if (!parse(argc, argv, s)) return 2;
  const auto begin = Clock::now();
  const int threads = omp_get_max_threads();
#ifdef POSLAB_HAVE_LIBXSMM
  libxsmm_init();
#endif
  std::vector<Library> libs = libraries();
  if (!s.libs.empty())
    std::erase_if(libs, [&](const Library& l) { return std::find(s.libs.begin(), s.libs.end(), l.name) == s.libs.end(); });
  if (libs.empty()) return std::fprintf(stderr, "--libs: none of those was built in\n"), 2;
  print_about(threads);

  // Llama-3.2-1B: hidden 2048, 32 query heads and 8 key/value heads of 64, MLP 8192, vocabulary
  // 128,256. q and o have one shape, and so have k and v, and gate and up. The LM head is timed on
  // its first lm_rows rows: its rate is that of any N this wide, and its 1 GB float copy would cost
  // the run more than it tells.
  const std::vector<Shape> all_shapes{{"q/o", 2048, 2048},
                                      {"k/v", 512, 2048},
                                      {"gate/up", 8192, 2048},
                                      {"down", 2048, 8192},
                                      {"lm", s.lm_rows, 2048}};
  std::vector<Shape> shapes;
  for (const auto& name : s.shapes) {
    const auto it = std::find_if(all_shapes.begin(), all_shapes.end(), [&](const Shape& sh) { return sh.name == name; });
    if (it == all_shapes.end()) return std::fprintf(stderr, "--shapes: no product %s\n", name.c_str()), 2;
    shapes.push_back(*it);
  }
  const int max_T = *std::max_element(s.Ts.begin(), s.Ts.end());
  int max_K = 0, max_N = 0;
  for (const auto& sh : shapes) max_K = std::max(max_K, sh.K), max_N = std::max(max_N, sh.N);
  // X's rows for the largest K; a smaller K reads the first K columns of each row into its own matrix.
  poslab::Matrix X_all(max_T, max_K);
  {
    float* x = X_all.data();
    const auto n = static_cast<std::int64_t>(X_all.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) x[i] = uniform(1, static_cast<std::uint64_t>(i));
  }
  std::vector<float> Y(static_cast<std::size_t>(max_T) * max_N);
  CacheFlusher flusher;

  std::vector<Row> rows;
  std::vector<std::string> not_timed;  // the products over max_gflop
  for (std::size_t si = 0; si < shapes.size(); ++si) {
    const Shape& sh = shapes[si];
    const Weight W(sh.N, sh.K, 100 + si);
    // Per library, the fastest seconds per row of X so far (at T ≥ 16), and the last T timed.
    std::vector<std::optional<double>> rate(libs.size());
    std::vector<int> last_T(libs.size(), 0);
    std::vector<int> Ts = s.Ts;
    std::sort(Ts.begin(), Ts.end());
    for (int T : Ts) {
      if (2.0 * T * sh.N * sh.K / 1e9 > s.max_gflop) {
        not_timed.push_back(sh.name + " at T = " + std::to_string(T));
        continue;
      }
      const poslab::Matrix X = X_all.topLeftCorner(T, sh.K);
      const Problem p{T, sh.N, sh.K, &X, &W, Y.data()};
      const Reference ref(p);
      Row row{sh.name, T, sh.N, sh.K, {}};
      for (std::size_t i = 0; i < libs.size(); ++i) {
        std::optional<double> predicted;
        // Only from a T near this one: a small product's rate says little of a large one's.
        if (rate[i] && 4 * last_T[i] >= T) predicted = *rate[i] * T;
        Measurement m = measure(libs[i], p, ref, predicted, s, flusher);
        // T = 1 runs as a matrix-vector product: no guide to the rate of larger T.
        // The fastest rate so far: one slow measurement (the machine is shared) skips nothing.
        if (m.seconds && T >= 16) {
          rate[i] = std::min(rate[i].value_or(INFINITY), *m.seconds / T);
          last_T[i] = T;
        }
        row.results.push_back(m);
        std::fprintf(stderr, "%s T=%d %s: %s\n", sh.name.c_str(), T, libs[i].name.c_str(),
                     m.seconds ? (cell(row, m, libs[i]) + " GFLOP/s, " + std::to_string(m.reps) + " calls").c_str()
                               : m.skipped.c_str());
      }
      rows.push_back(std::move(row));
    }
  }

  std::printf("\nGFLOP/s (2·T·N·K / median time), %d threads. lm: the LM head's first %d of 128,256 rows. "
              "°: no warm-up call of its own (a long call; the same library ran at the previous T). "
              "WRONG: error above tolerance (below).\n",
              threads, s.lm_rows);
  print_table(rows, libs);
  {
    std::vector<int> Ts = s.Ts;
    std::sort(Ts.begin(), Ts.end());
    print_layer_table(rows, libs, Ts);
  }
  if (!not_timed.empty()) {
    std::string list;
    for (const auto& n : not_timed) list += (list.empty() ? "" : ", ") + n;
    std::printf("\nNot timed (over %.0f GFLOP a call, for every library): %s.\n", s.max_gflop, list.c_str());
  }

  // Every library's largest error and why any did not run.
  std::printf("\n| library | largest error: max abs(Y − ref) / max abs(ref), sampled rows of every product | tolerance | "
              "not run | what it chose |\n|---|---:|---:|---|---|\n");
  for (std::size_t i = 0; i < libs.size(); ++i) {
    std::optional<double> worst;
    std::map<std::string, int> why;
    for (const Row& row : rows) {
      const Measurement& m = row.results[i];
      if (m.seconds) worst = std::max(worst.value_or(0.0), m.error);
      else ++why[m.skipped];
    }
    std::string not_run, chose;
    for (const auto& [reason, count] : why) not_run += (not_run.empty() ? "" : "; ") + reason + " (" + std::to_string(count) + "×)";
    for (const auto& note : *libs[i].notes) chose += (chose.empty() ? "" : "; ") + note;
    char error[32] = "—";
    if (worst) std::snprintf(error, sizeof error, "%.2e", *worst);
    std::printf("| %s | %s | %.0e | %s | %s |\n", libs[i].name.c_str(), error, tolerance(libs[i]), not_run.c_str(), chose.c_str());
  }

  // The float peak: the FMA loop on every thread, then every library's square 2048³ product.
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    const double peak = fma_peak(threads), one = fma_peak(1);
    std::printf("\nFloat peak, AVX2 FMA loop (12 chains of 8 floats): %.1f GFLOP/s on %d threads, %.1f on one\n", peak,
                threads, one);
  }
  if (__builtin_cpu_supports("avx512f")) {
    const double peak = fma_peak(threads, 16), one = fma_peak(1, 16);
    std::printf("Float peak, AVX-512 FMA loop (12 chains of 16 floats): %.1f GFLOP/s on %d threads, %.1f on one\n", peak,
                threads, one);
  }
  {
    const Weight W(2048, 2048, 7);
    poslab::Matrix X(2048, 2048);
    for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = uniform(2, static_cast<std::uint64_t>(i));
    std::vector<float> Y_square(std::size_t{2048} * 2048);
    const Problem p{2048, 2048, 2048, &X, &W, Y_square.data()};
    const Reference ref(p);
    Row row{"square", 2048, 2048, 2048, {}};
    for (auto& lib : libs) row.results.push_back(measure(lib, p, ref, std::nullopt, s, flusher));
    std::printf("\nThe square 2048³ product (float peak by the libraries):\n");
    print_table({row}, libs);
  }
  std::printf("\nWhole run: %.0f s; load average (1 min) %s at the end\n", seconds_since(begin), load_average().c_str());
#ifdef POSLAB_HAVE_LIBXSMM
  libxsmm_finalize();
#endif
  return 0;
}
