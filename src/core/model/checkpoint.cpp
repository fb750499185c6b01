#include "core/model/checkpoint.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

#if defined(__F16C__)
#include <immintrin.h>
#endif

#include "core/formats/files.hpp"
#include "core/formats/formats.hpp"

namespace poslab {

namespace fs = std::filesystem;

namespace {

float half_to_float(std::uint16_t h) {
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  float magnitude = 0.0f;
  if (exponent == 0x1F) magnitude = mantissa ? std::nanf("") : INFINITY;
  else if (exponent == 0) magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  else magnitude = std::ldexp(static_cast<float>(mantissa + 1024), exponent - 25);
  return (h & 0x8000) ? -magnitude : magnitude;
}

// n values of `type` starting at `src` as floats. The hot loop of every forward pass: BF16 is a
// shift, F16 the processor's converter where it has one (F16C).
void convert(const char* src, WeightType type, std::int64_t n, float* dst) {
  switch (type) {
    case WeightType::F32:
      std::memcpy(dst, src, static_cast<std::size_t>(n) * 4);
      return;
    case WeightType::BF16:
      for (std::int64_t i = 0; i < n; ++i) {
        std::uint16_t h;
        std::memcpy(&h, src + 2 * i, 2);
        dst[i] = std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16);
      }
      return;
    case WeightType::F16: {
      std::int64_t i = 0;
#if defined(__F16C__)
      for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i))));
#endif
      for (; i < n; ++i) {
        std::uint16_t h;
        std::memcpy(&h, src + 2 * i, 2);
        dst[i] = half_to_float(h);
      }
      return;
    }
  }
}

std::size_t item_bytes(WeightType t) { return t == WeightType::F32 ? 4 : 2; }

std::string shape_text(std::int64_t rows, std::int64_t cols) {
  return cols == 0 ? "[" + std::to_string(rows) + "]" : "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
}

}  // namespace

void read_rows(const WeightTensor& w, std::int64_t first, std::int64_t count, float* dst) {
  convert(w.data + static_cast<std::size_t>(first * w.cols) * item_bytes(w.type), w.type, count * w.cols, dst);
}

void read_cols(const WeightTensor& w, std::int64_t first, std::int64_t count, float* dst) {
  const std::size_t item = item_bytes(w.type);
  for (std::int64_t r = 0; r < w.rows; ++r)
    convert(w.data + static_cast<std::size_t>(r * w.cols + first) * item, w.type, count, dst + r * count);
}

RowVector read_vector(const WeightTensor& w) {
  RowVector v(w.rows * w.cols);
  read_rows(w, 0, w.rows, v.data());
  return v;
}


Result<std::shared_ptr<const Checkpoint>> Checkpoint::open(const fs::path& path) {
  auto folder = resolve_model_folder(path);
  if (!folder) return Error{folder.error()};
  std::shared_ptr<Checkpoint> c(new Checkpoint());
  c->folder_ = *folder;
  const fs::path config_path = c->folder_ / "config.json";
  auto config_text = read_whole_file(config_path);
  if (!config_text) return Error{c->folder_.string() + ": a model folder needs config.json (" + config_text.error() + ")"};
  auto config = parse_transformer_config(*config_text, config_path.string());
  if (!config) return Error{config.error()};
  c->config_ = *config;

  std::error_code ec;
  if (const fs::path tok = c->folder_ / "tokenizer.json"; fs::exists(tok, ec)) {
    auto loaded = BpeTokenizer::load(tok);
    if (!loaded) return Error{loaded.error()};
    c->tokenizer_ = std::make_shared<const BpeTokenizer>(std::move(*loaded));
  }

  // The files: model.safetensors, or every shard the index names (each checked to exist).
  std::vector<fs::path> files;
  if (fs::exists(c->folder_ / "model.safetensors", ec)) {
    files.push_back(c->folder_ / "model.safetensors");
  } else {
    const fs::path index_path = c->folder_ / "model.safetensors.index.json";
    auto index = read_whole_file(index_path);
    if (!index) return Error{c->folder_.string() + ": a model folder needs model.safetensors or model.safetensors.index.json"};
    const auto json = nlohmann::json::parse(*index, nullptr, false);
    if (!json.is_object() || !json.contains("weight_map") || !json["weight_map"].is_object())
      return Error{index_path.string() + ": no weight_map"};
    std::set<std::string> shards;
    for (const auto& [tensor, shard] : json["weight_map"].items()) {
      if (!shard.is_string()) return Error{index_path.string() + ": the shard of " + tensor + " is not a file name"};
      const std::string name = shard.get<std::string>();
      if (name.find('/') != std::string::npos || name.find("..") != std::string::npos)
        return Error{index_path.string() + ": the shard name " + name + " leaves the folder"};
      if (!fs::exists(c->folder_ / name, ec))
        return Error{index_path.string() + ": " + tensor + " is in " + name + ", which is not in the folder"};
      shards.insert(name);
    }
    for (const std::string& s : shards) files.push_back(c->folder_ / s);
  }
  for (const fs::path& f : files) {
    auto opened = SafetensorsFile::open(f);
    if (!opened) return Error{opened.error()};
    c->files_.push_back(std::move(*opened));
  }
  if (auto s = c->resolve_tensors(); !s) return Error{s.error()};
  return std::shared_ptr<const Checkpoint>(std::move(c));
}

Status Checkpoint::resolve_tensors() {
  struct Found {
    const SafetensorsFile* file;
    const TensorInfo* info;
  };
  std::unordered_map<std::string, Found> by_name;
  for (const SafetensorsFile& f : files_)
    for (const TensorInfo& t : f.tensors()) by_name.emplace(t.name, Found{&f, &t});
  const TransformerConfig& cfg = config_;
  const TensorNames& n = cfg.arch->names;
  prefix_ = !by_name.count(n.embed) && by_name.count("transformer." + n.embed) ? "transformer." : "";
  std::set<std::string> dtypes;

  // The tensor named `pattern` (for layer `layer`) with shape rows × cols (cols 0: a vector).
  const auto find = [&](const std::string& pattern, int layer, std::int64_t rows, std::int64_t cols,
                        bool required) -> Result<WeightTensor> {
    WeightTensor w;
    if (pattern.empty()) return w;
    w.name = prefix_ + layer_tensor(pattern, layer);
    const auto it = by_name.find(w.name);
    if (it == by_name.end()) {
      if (!required) return w;
      return Error{folder_.string() + ": the tensor " + w.name + " is missing (" + cfg.arch->name + " needs it)"};
    }
    const TensorInfo& t = *it->second.info;
    const std::int64_t t_rows = t.shape.empty() ? 1 : t.shape[0];
    const std::int64_t t_cols = t.shape.size() == 2 ? t.shape[1] : 0;
    if (t.shape.size() > 2 || t_rows != rows || t_cols != cols)
      return Error{it->second.file->name() + ": " + w.name + " has shape " +
                   (t.shape.size() > 2 ? std::to_string(t.shape.size()) + "-D" : shape_text(t_rows, t_cols)) +
                   ", but config.json means " + shape_text(rows, cols)};
    if (t.dtype == "F32") w.type = WeightType::F32;
    else if (t.dtype == "F16") w.type = WeightType::F16;
    else if (t.dtype == "BF16") w.type = WeightType::BF16;
    else return Error{it->second.file->name() + ": " + w.name + " has dtype " + t.dtype + " (F32, F16 and BF16 are supported)"};
    dtypes.insert(t.dtype);
    w.data = it->second.file->bytes(t).data();
    w.rows = cols == 0 ? 1 : rows;
    w.cols = cols == 0 ? rows : cols;
    weight_bytes_ += t.end - t.begin;
    return w;
  };
#define POSLAB_FIND(target, ...)                  \
  do {                                            \
    auto found_ = find(__VA_ARGS__);              \
    if (!found_) return Error{found_.error()};    \
    target = std::move(*found_);                  \
  } while (false)

  const std::int64_t d = cfg.hidden, qw = cfg.query_width(), kvw = cfg.kv_width(), ff = cfg.intermediate;
  const bool norm_bias = cfg.arch->norm == NormKind::Layer;
  const bool in_out = cfg.arch->layout == WeightLayout::InOut;
  POSLAB_FIND(embed_, n.embed, 0, cfg.vocab, d, true);
  if (cfg.positions == PositionKind::Learned) POSLAB_FIND(positions_, n.positions, 0, cfg.max_positions, d, true);
  if (cfg.positions == PositionKind::T5) POSLAB_FIND(relative_bias_, n.relative_bias, 0, cfg.t5_buckets, cfg.heads, true);
  POSLAB_FIND(final_norm_, n.final_norm, 0, d, 0, true);
  POSLAB_FIND(final_norm_bias_, n.final_norm_bias, 0, d, 0, norm_bias);
  if (cfg.tie_embeddings) lm_head_ = embed_;
  else POSLAB_FIND(lm_head_, n.lm_head, 0, cfg.vocab, d, true);
  layers_.resize(static_cast<std::size_t>(cfg.layers));
  for (int l = 0; l < cfg.layers; ++l) {
    LayerWeights& w = layers_[static_cast<std::size_t>(l)];
    POSLAB_FIND(w.attn_norm, n.attn_norm, l, d, 0, true);
    POSLAB_FIND(w.attn_norm_bias, n.attn_norm_bias, l, d, 0, norm_bias);
    POSLAB_FIND(w.mlp_norm, n.mlp_norm, l, d, 0, true);
    POSLAB_FIND(w.mlp_norm_bias, n.mlp_norm_bias, l, d, 0, norm_bias);
    if (in_out) {  // GPT-2: Conv1D weights are input × output, q, k and v fused
      POSLAB_FIND(w.qkv, n.qkv, l, d, qw + 2 * kvw, true);
      POSLAB_FIND(w.qkv_bias, n.qkv_bias, l, qw + 2 * kvw, 0, true);
      POSLAB_FIND(w.o, n.o, l, qw, d, true);
      POSLAB_FIND(w.o_bias, n.o_bias, l, d, 0, true);
      POSLAB_FIND(w.up, n.up, l, d, ff, true);
      POSLAB_FIND(w.up_bias, n.up_bias, l, ff, 0, true);
      POSLAB_FIND(w.down, n.down, l, ff, d, true);
      POSLAB_FIND(w.down_bias, n.down_bias, l, d, 0, true);
    } else {
      POSLAB_FIND(w.q, n.q, l, qw, d, true);
      POSLAB_FIND(w.k, n.k, l, kvw, d, true);
      POSLAB_FIND(w.v, n.v, l, kvw, d, true);
      POSLAB_FIND(w.q_bias, n.q_bias, l, qw, 0, cfg.attention_bias);
      POSLAB_FIND(w.k_bias, n.k_bias, l, kvw, 0, cfg.attention_bias);
      POSLAB_FIND(w.v_bias, n.v_bias, l, kvw, 0, cfg.attention_bias);
      POSLAB_FIND(w.o, n.o, l, d, qw, true);
      POSLAB_FIND(w.o_bias, n.o_bias, l, d, 0, cfg.attention_bias && !cfg.arch->qkv_bias);
      POSLAB_FIND(w.gate, n.gate, l, ff, d, true);
      POSLAB_FIND(w.up, n.up, l, ff, d, true);
      POSLAB_FIND(w.down, n.down, l, d, ff, true);
    }
  }
#undef POSLAB_FIND
  for (const std::string& t : dtypes) dtype_ += (dtype_.empty() ? "" : "+") + t;
  return Ok{};
}

}  // namespace poslab
