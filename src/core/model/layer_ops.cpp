#include "core/model/layer_ops.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>

#include "base/gemm.hpp"
#include "base/half.hpp"
#include "base/memory.hpp"

namespace poslab {

namespace {

// Rows of W converted per block: 64 rows of an 8192-wide matrix are 2 MB, which stays in cache
// between the conversion and the product.
constexpr std::int64_t kBlockRows = 64;

// The type gemm_weights reads as stored; none for the formats whose blocks carry scales (MXFP4,
// FP8), which are widened a block of rows at a time instead.
std::optional<StoredType> stored_type(WeightType type) {
  switch (type) {
    case WeightType::F32: return StoredType::F32;
    case WeightType::F16: return StoredType::F16;
    case WeightType::BF16: return StoredType::BF16;
    case WeightType::MXFP4:
    case WeightType::F8E4M3: return std::nullopt;
  }
  return std::nullopt;
}

// The weights kept packed, keyed by where they lie and how they are read; the byte ranges whose
// weights may be kept (those of models open now).
struct PackKey {
  const char* data;
  std::int64_t n, k, stride;
  StoredType type;
  bool transposed;
  Inputs x;  // BF16 only where the product goes on the tile unit (a layout of its own)
  auto operator<=>(const PackKey&) const = default;
};

struct PackStore {
  std::mutex mutex;
  std::vector<std::pair<const char*, const char*>> ranges;
  std::map<PackKey, std::shared_ptr<const PackedWeights>> packs;
  std::uint64_t bytes = 0;
};

// Never destroyed: a model held by another static (a cache, the GUI's state) may close after this
// file's statics are gone, and its packs are dropped here then.
PackStore& pack_store() {
  static PackStore* store = new PackStore;
  return *store;
}

// W packed once, when it lies in an open model's files and fits the budget; else null.
std::shared_ptr<const PackedWeights> packed(const PackKey& key) {
  PackStore& s = pack_store();
  std::lock_guard lock(s.mutex);
  const bool kept = std::any_of(s.ranges.begin(), s.ranges.end(), [&](const auto& r) { return key.data >= r.first && key.data < r.second; });
  if (!kept) return nullptr;
  const int n = static_cast<int>(key.n), k = static_cast<int>(key.k);
  if (auto found = s.packs.find(key); found != s.packs.end()) {
    if (found->second->fits(n, k, key.type, key.x)) return found->second;
    s.bytes -= found->second->bytes();  // packed for another instruction set (tests switch)
    s.packs.erase(found);
  }
  if (s.bytes + PackedWeights::bytes_for(n, k, key.type, key.x) > memory_budget().bytes / 4) return nullptr;
  auto made = std::make_shared<const PackedWeights>(PackedWeights::pack(n, k, key.data, key.type, key.transposed, key.stride, key.x));
  s.bytes += made->bytes();
  s.packs.emplace(key, made);
  return made;
}

thread_local bool bf16_on = false;

}  // namespace

Bf16Activations::Bf16Activations(bool on) : previous_(bf16_on) { bf16_on = on; }
Bf16Activations::~Bf16Activations() { bf16_on = previous_; }
bool bf16_activations() { return bf16_on; }

void round_activations(Matrix& X) {
  if (bf16_on) round_to_bf16(X.data(), X.size());  // base/gemm.hpp
}

std::shared_ptr<void> keep_packed_weights(std::vector<std::pair<const char*, const char*>> ranges) {
  {
    PackStore& s = pack_store();
    std::lock_guard lock(s.mutex);
    s.ranges.insert(s.ranges.end(), ranges.begin(), ranges.end());
  }
  return std::shared_ptr<void>(nullptr, [ranges = std::move(ranges)](void*) {
    PackStore& s = pack_store();
    std::lock_guard lock(s.mutex);
    for (const auto& r : ranges) {
      if (auto at = std::find(s.ranges.begin(), s.ranges.end(), r); at != s.ranges.end()) s.ranges.erase(at);
      for (auto it = s.packs.begin(); it != s.packs.end();) {
        if (it->first.data >= r.first && it->first.data < r.second) {
          s.bytes -= it->second->bytes();
          it = s.packs.erase(it);
        } else {
          ++it;
        }
      }
    }
  });
}

double packed_weights_bound(std::uint64_t bytes, const std::string& dtype) {
  bool f16 = false;  // "F16" alone or among others ("F32+F16"); not BF16
  for (std::size_t at = 0; (at = dtype.find("F16", at)) != std::string::npos; at += 3) f16 |= at == 0 || dtype[at - 1] != 'B';
  return std::min(static_cast<double>(bytes) * (f16 ? 2.0 : 1.0), static_cast<double>(memory_budget().bytes) / 4.0);
}

std::uint64_t packed_weight_bytes() {
  PackStore& s = pack_store();
  std::lock_guard lock(s.mutex);
  return s.bytes;
}

// Y (T × out) = X (T × in) · W for W stored out × in (Linear: Y = X·Wᵀ) or in × out (Conv1D).
// F32, F16 and BF16 weights go to gemm_weights, which reads them as stored, or to their packs where
// they are kept (keep_packed_weights); the scaled formats are converted a block of output columns
// at a time, the blocks shared by the cores.
Matrix linear(const Matrix& X, const WeightTensor& W, WeightLayout layout) {
  const bool out_in = layout == WeightLayout::OutIn;
  const std::int64_t in = out_in ? W.cols : W.rows, out = out_in ? W.rows : W.cols;
  Matrix Y(X.rows(), out);
  const auto T = static_cast<int>(X.rows()), k = static_cast<int>(in);
  if (const auto stored = stored_type(W.type)) {
    // BF16 activations with BF16 weights: on the tile unit where the CPU has one (base/gemm.hpp).
    const Inputs x = bf16_on && *stored == StoredType::BF16 && bf16_tile_products() ? Inputs::BF16 : Inputs::F32;
    if (const auto once = packed({W.data, out, in, W.cols, *stored, !out_in, x})) once->multiply(T, X.data(), k, Y.data(), static_cast<int>(out));
    else gemm_weights(T, static_cast<int>(out), k, X.data(), k, W.data, *stored, !out_in, W.cols, Y.data(), static_cast<int>(out), x);
    round_activations(Y);
    return Y;
  }
  const std::int64_t blocks = (out + kBlockRows - 1) / kBlockRows;
#pragma omp parallel
  {
    Matrix buffer(out_in ? kBlockRows : in, out_in ? in : kBlockRows);
#pragma omp for schedule(dynamic, 4)
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::int64_t first = b * kBlockRows, n = std::min(kBlockRows, out - first);
      const int width = static_cast<int>(n);
      float* into = Y.data() + first;
      if (out_in) {
        read_rows(W, first, n, buffer.data());
        gemm_abt(T, width, k, X.data(), k, buffer.data(), k, into, static_cast<int>(out));
      } else {
        read_cols(W, first, n, buffer.data());
        gemm_ab(T, width, k, X.data(), k, buffer.data(), width, into, static_cast<int>(out));
      }
    }
  }
  round_activations(Y);
  return Y;
}

void add_bias(Matrix& Y, const WeightTensor& b) {
  if (!b.present()) return;
  Y.rowwise() += read_vector(b);
  round_activations(Y);
}

Matrix normalize(const Matrix& X, const WeightTensor& w, const WeightTensor& b, NormKind kind, double eps, double offset) {
  if (!w.present()) return X;  // no norm here: ModernBERT's first layer, BERT's final stack
  RowVector weight = read_vector(w);
  weight.array() += static_cast<float>(offset);
  Matrix Y(X.rows(), X.cols());
  const bool twice = bf16_on && kind == NormKind::Rms && offset == 0.0;
  for (Eigen::Index t = 0; t < X.rows(); ++t) {
    const auto x = X.row(t);
    if (kind == NormKind::Rms) {
      const double ms = x.cast<double>().squaredNorm() / static_cast<double>(x.size());
      Y.row(t) = x * static_cast<float>(1.0 / std::sqrt(ms + eps));
      if (twice) round_to_bf16(Y.row(t).data(), Y.cols());
      Y.row(t) = Y.row(t).cwiseProduct(weight);
    } else {
      const double mean = x.cast<double>().mean();
      const double var = (x.cast<double>().array() - mean).square().mean();
      Y.row(t) = ((x.array() - static_cast<float>(mean)) * static_cast<float>(1.0 / std::sqrt(var + eps))).matrix().cwiseProduct(weight);
    }
  }
  if (b.present()) Y.rowwise() += read_vector(b);
  round_activations(Y);
  return Y;
}

void activate(Matrix& X, Activation a) {
  auto v = X.array();
  switch (a) {
    case Activation::Silu: v = v / (1.0f + (-v).exp()); break;
    case Activation::Relu: v = v.max(0.0f); break;
    case Activation::GeluTanh:
      v = 0.5f * v * (1.0f + (0.7978845608028654f * (v + 0.044715f * v.cube())).tanh());
      break;
    case Activation::Gelu:
      for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = 0.5f * X.data()[i] * (1.0f + std::erf(X.data()[i] * 0.70710678f));
      break;
  }
  round_activations(X);
}

void normalize_heads(Matrix& X, const WeightTensor& w, int head_dim, double eps, double offset) {
  RowVector weight = w.present() ? read_vector(w) : RowVector::Zero(head_dim);
  weight.array() += static_cast<float>(w.present() ? offset : 1.0);
  const bool twice = bf16_on && w.present() && offset == 0.0;  // as normalize's
  for (Eigen::Index t = 0; t < X.rows(); ++t)
    for (Eigen::Index h = 0; h + head_dim <= X.cols(); h += head_dim) {
      auto x = X.row(t).segment(h, head_dim);
      const double ms = x.cast<double>().squaredNorm() / head_dim;
      x *= static_cast<float>(1.0 / std::sqrt(ms + eps));
      if (twice) round_to_bf16(x.data(), head_dim);
      x = x.cwiseProduct(weight);
    }
  round_activations(X);
}

void soft_cap(Matrix& X, double c) {
  if (c <= 0.0) return;
  const float cap = static_cast<float>(c);
  X.array() = cap * (X.array() / cap).tanh();
  round_activations(X);
}

float round_to_bf16(float x) {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  round_bits_to_bf16(bits);
  return std::bit_cast<float>(bits);
}

float round_to_f16(float x) {
  int e = 0;
  const double m = std::frexp(static_cast<double>(x), &e);  // x = m·2ᵉ, |m| in [0.5, 1)
  return static_cast<float>(std::ldexp(std::nearbyint(m * 2048.0) / 2048.0, e));  // 11 significant bits
}

Matrix repeat_kv(const Matrix& X, int kv_heads, int heads, int head_dim) {
  if (kv_heads == heads) return X;
  const int group = heads / kv_heads;
  Matrix Y(X.rows(), static_cast<Eigen::Index>(heads) * head_dim);
  for (int h = 0; h < heads; ++h) Y.middleCols(h * head_dim, head_dim) = X.middleCols((h / group) * head_dim, head_dim);
  return Y;
}

}  // namespace poslab
