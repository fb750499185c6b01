#include "core/model/checkpoint.hpp"

#include "core/model/layer_ops.hpp"  // keep_packed_weights

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#if defined(__x86_64__)
#include <immintrin.h>  // the MXFP4 decoder's AVX2 types, which a build for any x86-64 does not get from Eigen
#endif
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

#include "base/files.hpp"
#include "base/gemm.hpp"
#include "base/json.hpp"
#include "core/formats/formats.hpp"

namespace poslab {

namespace fs = std::filesystem;

namespace {

// n values of `type` starting at `src` as floats. The hot loop of every forward pass: BF16 is a
// shift, F16 the processor's converter where it has one (F16C), both chosen at start-up.
void convert(const char* src, WeightType type, std::int64_t n, float* dst) {
  switch (type) {
    case WeightType::F32:
      std::memcpy(dst, src, static_cast<std::size_t>(n) * 4);
      return;
    case WeightType::BF16: return widen_bf16(src, n, dst);  // on the CPU's own instruction set (base/gemm.hpp)
    case WeightType::F16: return widen_f16(src, n, dst);
    case WeightType::MXFP4:
    case WeightType::F8E4M3: return;  // read by block (convert_mxfp4, convert_fp8): a value's scale depends on its column
  }
}

std::size_t item_bytes(WeightType t) { return t == WeightType::F32 ? 4 : 2; }

// Values [col, col + n) of row `row` of an F8_E4M3 tensor, each times its 128 × 128 block's scale.
void convert_fp8(const WeightTensor& w, std::int64_t row, std::int64_t col, std::int64_t n, float* dst) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(w.data) + row * w.cols;
  const std::int64_t blocks_per_row = (w.cols + 127) / 128;
  const char* scale_row = w.scales + static_cast<std::size_t>((row / 128) * blocks_per_row) * 4;
  for (std::int64_t c = col, end = col + n; c < end;) {
    float scale;
    std::memcpy(&scale, scale_row + static_cast<std::size_t>(c / 128) * 4, 4);
    for (const std::int64_t block_end = std::min(end, (c / 128 + 1) * 128); c < block_end; ++c) *dst++ = fp8_e4m3(bytes[c]) * scale;
  }
}

#if defined(__x86_64__)
// One whole block of 32 MXFP4 values (16 bytes, low nibble first) times its scale: each nibble's
// three low bits index the eight magnitudes in a register (vpermps), its fourth bit is the sign.
// A forward pass of GPT-OSS decodes every expert it touches, 1.6 G values for 2 layers at full
// width, so this is its inner loop. Compiled for AVX2 whatever the build's flags, and taken only
// where the processor has it (mxfp4_simd), so that a package built here runs on any x86-64.
__attribute__((target("avx2"))) void decode_mxfp4_block(const unsigned char* bytes, float scale, float* dst) {
  const __m256 magnitudes = _mm256_setr_ps(0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f);
  const __m256 factor = _mm256_set1_ps(scale);
  const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes));
  const __m128i low = _mm_and_si128(packed, _mm_set1_epi8(0x0F));
  const __m128i high = _mm_and_si128(_mm_srli_epi16(packed, 4), _mm_set1_epi8(0x0F));
  const __m128i halves[2] = {_mm_unpacklo_epi8(low, high), _mm_unpackhi_epi8(low, high)};  // values in order
  for (int h = 0; h < 2; ++h)
    for (int q = 0; q < 2; ++q) {
      const __m256i codes = _mm256_cvtepu8_epi32(q == 0 ? halves[h] : _mm_srli_si128(halves[h], 8));
      const __m256 magnitude = _mm256_permutevar8x32_ps(magnitudes, codes);
      const __m256i sign = _mm256_slli_epi32(_mm256_and_si256(codes, _mm256_set1_epi32(8)), 28);
      _mm256_storeu_ps(dst + 16 * h + 8 * q, _mm256_mul_ps(_mm256_xor_ps(magnitude, _mm256_castsi256_ps(sign)), factor));
    }
}

// Initialized with the statics, maybe before libgcc's own constructor has read cpuid: so init first.
const bool mxfp4_simd = (__builtin_cpu_init(), __builtin_cpu_supports("avx2"));
#else
constexpr bool mxfp4_simd = false;
void decode_mxfp4_block(const unsigned char*, float, float*) {}
#endif

// Values [col, col + n) of row `row` of an MXFP4 tensor, each code times its block's 2^(s − 127).
void convert_mxfp4(const WeightTensor& w, std::int64_t row, std::int64_t col, std::int64_t n, float* dst) {
  const auto* blocks = reinterpret_cast<const unsigned char*>(w.data) + row * (w.cols / 2);
  const auto* scales = reinterpret_cast<const unsigned char*>(w.scales) + row * (w.cols / 32);
  // A block's scale once, then a product per value: the inner loop of GPT-OSS's experts.
  for (std::int64_t c = col, end = col + n; c < end;) {
    const float scale = std::ldexp(1.0f, static_cast<int>(scales[c / 32]) - 127);
    if (mxfp4_simd && c % 32 == 0 && c + 32 <= end) {
      decode_mxfp4_block(blocks + c / 2, scale, dst);
      c += 32;
      dst += 32;
      continue;
    }
    for (const std::int64_t block_end = std::min(end, (c / 32 + 1) * 32); c < block_end; ++c) {
      const unsigned byte = blocks[c / 2];
      *dst++ = fp4_e2m1(c % 2 == 0 ? byte & 0x0F : byte >> 4) * scale;
    }
  }
}

// A tensor's shape as messages write it: "4 × 64 × 2".
std::string dims_text(const std::vector<std::int64_t>& shape) {
  std::string s;
  for (std::int64_t d : shape) s += (s.empty() ? "" : " × ") + std::to_string(d);
  return s.empty() ? std::string("()") : s;
}

std::string shape_text(std::int64_t rows, std::int64_t cols) {
  return cols == 0 ? "[" + std::to_string(rows) + "]" : "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
}

}  // namespace

float fp4_e2m1(unsigned code) {
  static constexpr float kMagnitudes[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  const float m = kMagnitudes[code & 7];
  return (code & 8) ? -m : m;
}

float fp8_e4m3(unsigned byte) {
  const unsigned exponent = (byte >> 3) & 0xF, mantissa = byte & 7;
  float magnitude;
  if (exponent == 0xF && mantissa == 7) magnitude = std::nanf("");
  else if (exponent == 0) magnitude = std::ldexp(static_cast<float>(mantissa) / 8.0f, -6);
  else magnitude = std::ldexp(1.0f + static_cast<float>(mantissa) / 8.0f, static_cast<int>(exponent) - 7);
  return (byte & 0x80) ? -magnitude : magnitude;
}

void read_rows(const WeightTensor& w, std::int64_t first, std::int64_t count, float* dst) {
  if (w.type == WeightType::MXFP4 || w.type == WeightType::F8E4M3) {
    const auto convert_row = w.type == WeightType::MXFP4 ? convert_mxfp4 : convert_fp8;
    for (std::int64_t r = 0; r < count; ++r) convert_row(w, first + r, 0, w.cols, dst + r * w.cols);
    return;
  }
  convert(w.data + static_cast<std::size_t>(first * w.cols) * item_bytes(w.type), w.type, count * w.cols, dst);
}

void read_cols(const WeightTensor& w, std::int64_t first, std::int64_t count, float* dst) {
  if (w.type == WeightType::MXFP4 || w.type == WeightType::F8E4M3) {
    const auto convert_part = w.type == WeightType::MXFP4 ? convert_mxfp4 : convert_fp8;
    for (std::int64_t r = 0; r < w.rows; ++r) convert_part(w, r, first, count, dst + r * count);
    return;
  }
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
  auto config_text = read_whole_file(config_path, kJsonConfigFile);
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
    auto index = read_whole_file(index_path, kJsonConfigFile);
    if (!index) return Error{c->folder_.string() + ": a model folder needs model.safetensors or model.safetensors.index.json"};
    const auto json = nlohmann::json::parse(*index, nullptr, false);
    if (json.is_discarded()) return Error{index_path.string() + ": not valid JSON"};
    const nlohmann::json* weight_map = json_member(json, "weight_map", &nlohmann::json::is_object);
    if (!weight_map) return Error{index_path.string() + ": no weight_map"};
    std::set<std::string> shards;
    for (const auto& [tensor, shard] : weight_map->items()) {
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
  // The weights of these files may be kept packed for the products while the model is open.
  std::vector<std::pair<const char*, const char*>> ranges;
  for (const SafetensorsFile& file : c->files_) {
    const char *first = nullptr, *last = nullptr;  // the file's tensor bytes, one range
    for (const TensorInfo& t : file.tensors()) {
      const std::string_view b = file.bytes(t);
      if (!first || b.data() < first) first = b.data();
      if (!last || b.data() + b.size() > last) last = b.data() + b.size();
    }
    if (first) ranges.emplace_back(first, last);
  }
  c->packs_ = keep_packed_weights(std::move(ranges));
  return std::shared_ptr<const Checkpoint>(std::move(c));
}

WeightTensor* LayerWeights::slot(TensorRole role) {
  switch (role) {
    case TensorRole::AttnNorm: return &attn_norm;
    case TensorRole::AttnNormBias: return &attn_norm_bias;
    case TensorRole::Q: return &q;
    case TensorRole::K: return &k;
    case TensorRole::V: return &v;
    case TensorRole::QBias: return &q_bias;
    case TensorRole::KBias: return &k_bias;
    case TensorRole::VBias: return &v_bias;
    case TensorRole::Qkv: return &qkv;
    case TensorRole::QkvBias: return &qkv_bias;
    case TensorRole::O: return &o;
    case TensorRole::OBias: return &o_bias;
    case TensorRole::MlpNorm: return &mlp_norm;
    case TensorRole::MlpNormBias: return &mlp_norm_bias;
    case TensorRole::Gate: return &gate;
    case TensorRole::Up: return &up;
    case TensorRole::UpBias: return &up_bias;
    case TensorRole::Down: return &down;
    case TensorRole::DownBias: return &down_bias;
    case TensorRole::QNorm: return &q_norm;
    case TensorRole::KNorm: return &k_norm;
    case TensorRole::PostAttnNorm: return &post_attn_norm;
    case TensorRole::GateUp: return &gate_up;
    case TensorRole::PostMlpNorm: return &post_mlp_norm;
    case TensorRole::CrossNorm: return &cross_norm;
    case TensorRole::CrossQ: return &cross_q;
    case TensorRole::CrossK: return &cross_k;
    case TensorRole::CrossV: return &cross_v;
    case TensorRole::CrossO: return &cross_o;
    case TensorRole::Router: return &router;
    case TensorRole::RouterBias: return &router_bias;
    case TensorRole::SharedGate: return &shared_gate;
    case TensorRole::SharedUp: return &shared_up;
    case TensorRole::SharedDown: return &shared_down;
    case TensorRole::Sinks: return &sinks;
    case TensorRole::QA: return &q_a;
    case TensorRole::QANorm: return &q_a_norm;
    case TensorRole::QB: return &q_b;
    case TensorRole::KvA: return &kv_a;
    case TensorRole::KvANorm: return &kv_a_norm;
    case TensorRole::KvB: return &kv_b;
    case TensorRole::RouterCorrection: return &router_correction;
    case TensorRole::PerLayerGate: return &per_layer_gate;
    case TensorRole::PerLayerUp: return &per_layer_up;
    case TensorRole::PostPerLayerNorm: return &post_per_layer_norm;
    case TensorRole::LayerScalar: return &layer_scalar;
    case TensorRole::RouterScale: return &router_scale;
    case TensorRole::RouterExpertScale: return &router_expert_scale;
    case TensorRole::PreExpertNorm: return &pre_expert_norm;
    case TensorRole::PostExpertNorm: return &post_expert_norm;
    case TensorRole::PostDenseNorm: return &post_dense_norm;
    default: return nullptr;
  }
}

WeightTensor* Checkpoint::model_slot(TensorRole role) {
  switch (role) {
    case TensorRole::Embed: return &embed_;
    case TensorRole::Positions: return &positions_;
    case TensorRole::RelativeBias: return &relative_bias_;
    case TensorRole::FinalNorm: return &final_norm_;
    case TensorRole::FinalNormBias: return &final_norm_bias_;
    case TensorRole::LmHead: return &lm_head_;
    case TensorRole::LmHeadBias: return &lm_head_bias_;
    case TensorRole::EmbedNorm: return &embed_norm_;
    case TensorRole::EmbedNormBias: return &embed_norm_bias_;
    case TensorRole::TokenTypes: return &token_types_;
    case TensorRole::HeadDense: return &head_dense_;
    case TensorRole::HeadDenseBias: return &head_dense_bias_;
    case TensorRole::HeadNorm: return &head_norm_;
    case TensorRole::HeadNormBias: return &head_norm_bias_;
    case TensorRole::DecoderFinalNorm: return &decoder_final_norm_;
    case TensorRole::DecoderRelativeBias: return &decoder_relative_bias_;
    case TensorRole::EmbedPerLayer: return &embed_per_layer_;
    case TensorRole::PerLayerProjection: return &per_layer_projection_;
    case TensorRole::PerLayerProjectionNorm: return &per_layer_projection_norm_;
    default: return nullptr;
  }
}

// Every tensor of the files by name, and the one the architecture's slot means.
class TensorIndex {
 public:
  struct Located {
    const SafetensorsFile* file;
    const TensorInfo* info;
  };
  TensorIndex(const std::vector<SafetensorsFile>& files, const Architecture& arch) : arch_(arch) {
    for (const SafetensorsFile& f : files)
      for (const TensorInfo& t : f.tensors()) {
        by_name_.emplace(t.name, Located{&f, &t});
        // Also under the names the row reads (architecture.hpp's renames: a wrapper's language
        // model, transformers 5's names of Mixtral's block).
        for (const auto& [from, to] : arch.renames)
          if (const auto at = t.name.find(from); at != std::string::npos)
            by_name_.emplace(t.name.substr(0, at) + to + t.name.substr(at + from.size()), Located{&f, &t});
      }
  }
  std::size_t size() const { return by_name_.size(); }
  const Architecture& architecture() const { return arch_; }

  // The slot's tensor for `layer` under the first of the architecture's name prefixes that has it;
  // a LayerNorm's weight and bias also under TensorFlow's names gamma and beta, which the
  // original BERT checkpoints keep.
  const Located* find(const TensorSlot& s, int layer, int expert = 0) const {
    const std::string name = layer_tensor(s.name, layer, expert);
    for (const std::string& n : {name, tensorflow_name(name)})
      for (const std::string& prefix : arch_.prefixes)
        if (const auto it = by_name_.find(prefix + n); !n.empty() && it != by_name_.end()) return &it->second;
    return nullptr;
  }

 private:
  static std::string tensorflow_name(const std::string& name) {
    for (const auto& [torch, tf] : {std::pair<std::string, std::string>{"LayerNorm.weight", "LayerNorm.gamma"}, {"LayerNorm.bias", "LayerNorm.beta"}})
      if (name.size() > torch.size() && name.compare(name.size() - torch.size(), torch.size(), torch) == 0)
        return name.substr(0, name.size() - torch.size()) + tf;
    return "";
  }

 public:

 private:
  const Architecture& arch_;
  std::unordered_map<std::string, Located> by_name_;
};

// A tensor's element type, or an error naming it.
Result<WeightType> weight_type(const SafetensorsFile& file, const TensorInfo& t) {
  if (t.dtype == "F32") return WeightType::F32;
  if (t.dtype == "F16") return WeightType::F16;
  if (t.dtype == "BF16") return WeightType::BF16;
  return Error{file.name() + ": " + t.name + " has dtype " + t.dtype + " (F32, F16 and BF16 are supported)"};
}

// The slot's tensor, checked against the shape config.json gives it.
Result<WeightTensor> Checkpoint::resolve(const TensorIndex& index, const TensorSlot& slot, int layer, std::set<std::string>& dtypes,
                                         int expert) {
  WeightTensor w;
  const TransformerConfig& cfg = config_;
  const auto* found = index.find(slot, layer, expert);
  if (!found) {
    if (!is_needed(cfg, slot.need, layer) || slot.need == Need::IfPresent) return w;
    return Error{folder_.string() + ": the tensor " + layer_tensor(slot.name, layer, expert) + " is missing (" + cfg.arch->name + " needs it)"};
  }
  if (!is_needed(cfg, slot.need, layer)) return w;  // present but unused (a bias config.json turns off)
  const std::int64_t rows = dimension(cfg, slot.rows, layer), cols = dimension(cfg, slot.cols, layer);
  const SafetensorsFile& file = *found->file;
  const TensorInfo& t = *found->info;
  w.name = t.name;
  const std::int64_t t_rows = t.shape.empty() ? 1 : t.shape[0];
  const std::int64_t t_cols = t.shape.size() == 2 ? t.shape[1] : 0;
  if (t.shape.size() > 2 || t_rows != rows || t_cols != cols)
    return Error{file.name() + ": " + w.name + " has shape " +
                 (t.shape.size() > 2 ? std::to_string(t.shape.size()) + "-D" : shape_text(t_rows, t_cols)) +
                 ", but config.json means " + shape_text(rows, cols)};
  if (t.dtype == "F8_E4M3" && cols > 0) return resolve_fp8(index, slot, layer, expert, file, t, std::move(w), dtypes);
  auto type = weight_type(file, t);
  if (!type) return Error{type.error()};
  w.type = *type;
  dtypes.insert(t.dtype);
  w.data = file.bytes(t).data();
  w.rows = cols == 0 ? 1 : rows;
  w.cols = cols == 0 ? rows : cols;
  weight_bytes_ += t.end - t.begin;
  return w;
}

// An F8_E4M3 matrix and its weight_scale_inv beside it, F32 [⌈rows/128⌉ × ⌈cols/128⌉]: one scale a
// 128 × 128 block (config.json's weight_block_size, checked when it is read).
Result<WeightTensor> Checkpoint::resolve_fp8(const TensorIndex& index, const TensorSlot& slot, int layer, int expert, const SafetensorsFile& file,
                                             const TensorInfo& info, WeightTensor w, std::set<std::string>& dtypes) {
  TensorSlot scale_slot = slot;
  scale_slot.name = slot.name + "_scale_inv";
  const auto* scales = index.find(scale_slot, layer, expert);
  const std::string scale_name = layer_tensor(scale_slot.name, layer, expert);
  if (!scales) return Error{file.name() + ": " + info.name + " is F8_E4M3, and its scales " + scale_name + " are missing"};
  const std::int64_t rows = info.shape[0], cols = info.shape[1];
  const std::vector<std::int64_t> want{(rows + 127) / 128, (cols + 127) / 128};
  if (scales->info->dtype != "F32" || scales->info->shape != want)
    return Error{scales->file->name() + ": " + scales->info->name + " must be F32 [" + std::to_string(want[0]) + ", " + std::to_string(want[1]) +
                 "], one scale a 128 × 128 block of " + info.name};
  w.type = WeightType::F8E4M3;
  w.data = file.bytes(info).data();
  w.scales = scales->file->bytes(*scales->info).data();
  w.rows = rows;
  w.cols = cols;
  dtypes.insert("F8_E4M3");
  weight_bytes_ += (info.end - info.begin) + (scales->info->end - scales->info->begin);
  return w;
}

// A 3-D tensor holding every expert's matrix [experts × rows × cols] (transformers 5's stacked
// experts), as one view per expert into the mapped file.
Result<std::vector<WeightTensor>> Checkpoint::resolve_stacked(const TensorIndex& index, const TensorSlot& slot, int layer,
                                                             std::set<std::string>& dtypes) {
  const auto* found = index.find(slot, layer);
  if (!found) return Error{folder_.string() + ": the tensor " + layer_tensor(slot.name, layer) + " is missing (" + config_.arch->name + " needs it)"};
  if (slot.mxfp4) return resolve_mxfp4(index, slot, layer, dtypes);
  const std::int64_t experts = config_.experts, rows = dimension(config_, slot.rows), cols = dimension(config_, slot.cols);
  const TensorInfo& t = *found->info;
  // A stacked vector (GPT-OSS's experts' biases) is [experts × n].
  const std::vector<std::int64_t> expected = cols == 0 ? std::vector<std::int64_t>{experts, rows} : std::vector<std::int64_t>{experts, rows, cols};
  if (t.shape != expected)
    return Error{found->file->name() + ": " + t.name + " has shape " + dims_text(t.shape) + ", but config.json means " + std::to_string(experts) + " × " + shape_text(rows, cols)};
  auto type = weight_type(*found->file, t);
  if (!type) return Error{type.error()};
  dtypes.insert(t.dtype);
  const std::size_t item = *type == WeightType::F32 ? 4 : 2;
  const char* base = found->file->bytes(t).data();
  std::vector<WeightTensor> out(static_cast<std::size_t>(experts));
  for (std::int64_t e = 0; e < experts; ++e) {
    WeightTensor& w = out[static_cast<std::size_t>(e)];
    w.name = t.name + "[" + std::to_string(e) + "]";
    w.type = *type;
    w.rows = cols == 0 ? 1 : rows;
    w.cols = cols == 0 ? rows : cols;
    w.data = base + static_cast<std::size_t>(e * w.rows * w.cols) * item;
  }
  weight_bytes_ += t.end - t.begin;
  return out;
}

namespace {

// Whether a stacked slot after `s` in the table, of the same role, names a tensor the files hold:
// then `s`'s absence is not an error.
bool later_form_present(const TensorIndex& index, const TensorSlot& s, int layer) {
  const auto& all = index.architecture().tensors;
  for (auto it = all.begin(); it != all.end(); ++it)
    if (&*it == &s) {
      for (auto later = it + 1; later != all.end(); ++later)
        if (later->stacked && later->role == s.role && index.find(*later, layer)) return true;
      return false;
    }
  return false;
}

void place_expert_tensor(ExpertWeights& x, const TensorSlot& s, WeightTensor t) {
  switch (s.role) {
    case TensorRole::ExpertGateUp:
      x.gate_up = std::move(t);
      x.gate_up_layout = s.layout;
      break;
    case TensorRole::ExpertDown:
      x.down = std::move(t);
      x.down_layout = s.layout;
      break;
    case TensorRole::ExpertGateUpBias: x.gate_up_bias = std::move(t); break;
    case TensorRole::ExpertDownBias: x.down_bias = std::move(t); break;
    default: break;
  }
}

}  // namespace

// Every expert's matrix in MXFP4: the slot's U8 blocks [experts × rows × cols/32 × 16] and its
// scales [experts × rows × cols/32], as one view per expert; nothing is converted until a block of
// rows is read.
Result<std::vector<WeightTensor>> Checkpoint::resolve_mxfp4(const TensorIndex& index, const TensorSlot& slot, int layer,
                                                           std::set<std::string>& dtypes) {
  TensorSlot scale_slot = slot;
  scale_slot.name = slot.name.substr(0, slot.name.rfind("_blocks")) + "_scales";
  const auto* blocks = index.find(slot, layer);
  const auto* scales = index.find(scale_slot, layer);
  if (!blocks || !scales)
    return Error{folder_.string() + ": the tensor " + layer_tensor((blocks ? scale_slot : slot).name, layer) + " is missing (MXFP4 needs " +
                 "blocks and scales)"};
  const std::int64_t experts = config_.experts, rows = dimension(config_, slot.rows), cols = dimension(config_, slot.cols);
  if (cols % 32 != 0)
    return Error{blocks->file->name() + ": " + blocks->info->name + ": MXFP4 needs rows of whole 32-value blocks, and this one has " +
                 std::to_string(cols)};
  for (const auto& [found, want] : {std::pair{blocks, std::vector<std::int64_t>{experts, rows, cols / 32, 16}},
                                    std::pair{scales, std::vector<std::int64_t>{experts, rows, cols / 32}}}) {
    if (found->info->dtype != "U8")
      return Error{found->file->name() + ": " + found->info->name + " has dtype " + found->info->dtype + ", and MXFP4 is stored as U8"};
    if (found->info->shape != want)
      return Error{found->file->name() + ": " + found->info->name + " has shape " + dims_text(found->info->shape) + ", but config.json means " +
                   dims_text(want)};
  }
  dtypes.insert("MXFP4");
  std::vector<WeightTensor> out(static_cast<std::size_t>(experts));
  for (std::int64_t e = 0; e < experts; ++e) {
    WeightTensor& w = out[static_cast<std::size_t>(e)];
    w.name = blocks->info->name + "[" + std::to_string(e) + "]";
    w.type = WeightType::MXFP4;
    w.rows = rows;
    w.cols = cols;
    w.data = blocks->file->bytes(*blocks->info).data() + static_cast<std::size_t>(e * rows * cols / 2);
    w.scales = scales->file->bytes(*scales->info).data() + static_cast<std::size_t>(e * rows * cols / 32);
  }
  weight_bytes_ += (blocks->info->end - blocks->info->begin) + (scales->info->end - scales->info->begin);
  return out;
}

// A sparse layer's router and experts: one tensor per expert when the files have expert 0's,
// else the stacked form. A role may have several stacked forms (GPT-OSS's MXFP4 blocks, or the
// dequantized BF16 tensor): the first the files hold is read.
Status Checkpoint::resolve_experts(const TensorIndex& index, int layer, LayerWeights& w, std::set<std::string>& dtypes) {
  w.experts.resize(static_cast<std::size_t>(config_.experts));
  const auto* split_gate = [&]() -> const TensorSlot* {
    for (const TensorSlot& s : config_.arch->tensors)
      if (s.per_expert && s.role == TensorRole::ExpertGate) return &s;
    return nullptr;
  }();
  const bool split = split_gate && index.find(*split_gate, layer, 0);
  std::set<TensorRole> done;
  for (const TensorSlot& s : config_.arch->tensors) {
    if (s.role == TensorRole::Router || s.role == TensorRole::RouterBias || s.role == TensorRole::RouterCorrection) {
      auto r = resolve(index, s, layer, dtypes);
      if (!r) return Error{r.error()};
      *w.slot(s.role) = std::move(*r);
    } else if (s.per_expert && split) {
      for (int e = 0; e < config_.experts; ++e) {
        auto r = resolve(index, s, layer, dtypes, e);
        if (!r) return Error{r.error()};
        ExpertWeights& x = w.experts[static_cast<std::size_t>(e)];
        (s.role == TensorRole::ExpertGate ? x.gate : s.role == TensorRole::ExpertUp ? x.up : x.down) = std::move(*r);
      }
    } else if (s.stacked && !split && !done.count(s.role)) {
      if (!index.find(s, layer) && later_form_present(index, s, layer)) continue;
      auto all = resolve_stacked(index, s, layer, dtypes);
      if (!all) return Error{all.error()};
      done.insert(s.role);
      for (std::size_t e = 0; e < all->size(); ++e) place_expert_tensor(w.experts[e], s, std::move((*all)[e]));
    }
  }
  return Ok{};
}

// config.json's layer count against the files, before anything is sized by it: a count the files
// do not hold (100 000 000 layers in a small folder) is an error, not an allocation.
Status Checkpoint::check_layer_count(const TensorIndex& index, bool decoder) const {
  const int layers = decoder ? config_.decoder_layers : config_.layers;
  const TensorSlot* first = nullptr;
  for (const TensorSlot& s : config_.arch->tensors)
    if (is_layer_role(s.role) && s.need == Need::Always && s.decoder == decoder) {
      first = &s;
      break;
    }
  if (!first || layers == 0 || index.find(*first, layers - 1)) return Ok{};
  int held = 0;
  while (static_cast<std::size_t>(held) < index.size() && index.find(*first, held)) ++held;
  return Error{folder_.string() + ": config.json says " + std::to_string(layers) + (decoder ? " decoder" : "") + " layers, but the files hold " +
               std::to_string(held) + " (no " + layer_tensor(first->name, layers - 1) + ")"};
}

// The layers of one stack. A slot the config does not need is skipped, so that T5's plain wi and
// gated wi_1, both the MLP's up projection, do not overwrite each other.
Status Checkpoint::resolve_layers(const TensorIndex& index, bool decoder, std::set<std::string>& dtypes) {
  if (auto s = check_layer_count(index, decoder); !s) return s;
  std::vector<LayerWeights>& stack = decoder ? decoder_layers_ : layers_;
  stack.resize(static_cast<std::size_t>(decoder ? config_.decoder_layers : config_.layers));
  for (std::size_t l = 0; l < stack.size(); ++l)
    for (const TensorSlot& slot : config_.arch->tensors) {
      const int layer = static_cast<int>(l);
      if (!is_layer_role(slot.role) || slot.decoder != decoder || !is_needed(config_, slot.need, layer)) continue;
      if (slot.role == TensorRole::Router || slot.role == TensorRole::RouterBias || slot.role == TensorRole::RouterCorrection ||
          slot.per_expert || slot.stacked)
        continue;  // resolve_experts
      auto w = resolve(index, slot, layer, dtypes);
      if (!w) return Error{w.error()};
      *stack[l].slot(slot.role) = std::move(*w);
    }
  if (!decoder)
    for (std::size_t l = 0; l < stack.size(); ++l)
      if (config_.is_sparse(static_cast<int>(l)))
        if (auto s = resolve_experts(index, static_cast<int>(l), stack[l], dtypes); !s) return s;
  return Ok{};
}

Status Checkpoint::resolve_tensors() {
  const TensorIndex index(files_, *config_.arch);
  std::set<std::string> dtypes;
  for (const TensorSlot& slot : config_.arch->tensors) {
    if (is_layer_role(slot.role) || !is_needed(config_, slot.need)) continue;
    auto w = resolve(index, slot, 0, dtypes);
    if (!w) return Error{w.error()};
    *model_slot(slot.role) = std::move(*w);
  }
  if (config_.tie_embeddings) lm_head_ = embed_;
  for (bool decoder : {false, true})
    if (auto s = resolve_layers(index, decoder, dtypes); !s) return s;
  for (const std::string& t : dtypes) dtype_ += (dtype_.empty() ? "" : "+") + t;
  return Ok{};
}

}  // namespace poslab
