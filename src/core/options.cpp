#include "core/options.hpp"

#include "core/formats/formats.hpp"
#include "core/model/model_config.hpp"
#include "core/model_resolver.hpp"

#include <charconv>
#include <filesystem>
#include <cmath>

namespace poslab {

Result<double> parse_number(std::string_view text, std::string_view what) {
  double v = 0.0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(v))
    return Error{std::string(what) + " expects a number, got \"" + std::string(text) + "\""};
  return v;
}

Result<long long> parse_integer(std::string_view text, std::string_view what, long long lo, long long hi) {
  long long v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end)
    return Error{std::string(what) + " expects a whole number, got \"" + std::string(text) + "\""};
  if (v < lo || v > hi)
    return Error{std::string(what) + " must be between " + std::to_string(lo) + " and " +
                 std::to_string(hi) + ", got " + std::to_string(v)};
  return v;
}

Result<std::pair<int, int>> parse_pair(std::string_view text, std::string_view what, char separator, long long lo, long long hi,
                                       std::string_view example) {
  const auto cut = separator == 'x' ? text.find_first_of("xX") : text.find(separator);
  const std::string form = separator == 'x' ? "WxH" : "X,Y";
  if (cut == std::string_view::npos)
    return Error{std::string(what) + " expects " + form + ", e.g. " + std::string(example) + ", got \"" + std::string(text) + "\""};
  auto first = parse_integer(text.substr(0, cut), what, lo, hi);
  if (!first) return Error{first.error()};
  auto second = parse_integer(text.substr(cut + 1), what, lo, hi);
  if (!second) return Error{second.error()};
  return std::pair{static_cast<int>(*first), static_cast<int>(*second)};
}

namespace {

// Maps a name to an enum value using the enum's to_string, so the names live in one place.
template <typename Enum, std::size_t N>
Status parse_enum(std::string_view text, std::string_view what, const Enum (&values)[N], Enum& out) {
  std::string choices;
  for (Enum v : values) {
    if (to_string(v) == text) {
      out = v;
      return Ok{};
    }
    choices += (choices.empty() ? "" : "|") + std::string(to_string(v));
  }
  return Error{std::string(what) + " expects one of " + choices + ", got \"" + std::string(text) + "\""};
}

constexpr EncodingKind kEncodings[] = {EncodingKind::None,       EncodingKind::Integer,
                                       EncodingKind::Normalized, EncodingKind::Binary,
                                       EncodingKind::Sinusoidal, EncodingKind::Learned,
                                       EncodingKind::Rope};
constexpr BinaryValues kBinaryValues[] = {BinaryValues::ZeroOne, BinaryValues::PlusMinusOne};
constexpr RopeScalingType kScalings[] = {RopeScalingType::None, RopeScalingType::Linear, RopeScalingType::Ntk,
                                         RopeScalingType::Dynamic, RopeScalingType::Yarn, RopeScalingType::Llama3};
constexpr Rope2d kRope2d[] = {Rope2d::Axial, Rope2d::Mixed};
constexpr BiasKind kBiases[] = {BiasKind::None, BiasKind::Alibi, BiasKind::T5, BiasKind::Shaw};

Status parse_grid(std::string_view text, ModelSettings& m) {
  auto grid = parse_pair(text, "--grid", 'x', 0, 256, "14x14");
  if (!grid) return Error{grid.error()};
  const auto [w, h] = *grid;
  if (w < 1 || h < 1) return Error{"--grid sides must be at least 1"};
  m.grid_width = w;
  m.grid_height = h;
  return Ok{};
}
constexpr RopeStyle kRopeStyles[] = {RopeStyle::Interleaved, RopeStyle::Half};
constexpr LongRopeSet kRopeFactorSets[] = {LongRopeSet::ByLength, LongRopeSet::Short, LongRopeSet::Long};
constexpr ProjectionKind kProjections[] = {ProjectionKind::Random, ProjectionKind::Identity};
constexpr Backend kBackends[] = {Backend::Auto, Backend::Gpu, Backend::Cpu};
constexpr Precision kPrecisions[] = {Precision::F32, Precision::BF16};
constexpr HeatmapValue kValues[] = {HeatmapValue::Weights, HeatmapValue::Scores};
constexpr TrajectoryPlane kPlanes[] = {TrajectoryPlane::Pca, TrajectoryPlane::Dims};

template <typename T>
Status assign(Result<T> parsed, auto& field) {
  if (!parsed) return Error{parsed.error()};
  field = static_cast<std::remove_reference_t<decltype(field)>>(*parsed);
  return Ok{};
}

// Both numbers of a pair into their fields, or the parser's error.
Status assign_pair(Result<std::pair<int, int>> parsed, int& first, int& second) {
  if (!parsed) return Error{parsed.error()};
  std::tie(first, second) = *parsed;
  return Ok{};
}

// A width in tokens a model folder has its own of (--window, --chunk): N, none (0) or model (−1).
Status parse_tokens_none_or_model(std::string_view v, const char* flag, int& field) {
  if (v == "none" || v == "model") {
    field = v == "none" ? 0 : -1;
    return Ok{};
  }
  return assign(parse_integer(v, flag, 1, 1 << 24), field);
}

// --model DIR: a Hugging Face model folder (or a cache folder): its embeddings, and the RoPE and
// heads of its config.json. --model ORG/NAME[@REVISION]: that model's snapshot in Hugging Face's
// cache, through the resolver the front end installed (core/model_resolver.hpp); the state keeps the folder.
Status apply_model_folder(State& s, std::string_view v) {
  auto given = resolve_model_argument(v);
  if (!given) return Error{"--model " + given.error()};
  auto folder = resolve_model_folder(*given);  // a Hugging Face cache folder too
  if (!folder) return Error{"--model " + folder.error()};
  std::error_code ec;
  const auto config = *folder / "config.json";
  if (std::filesystem::exists(config, ec)) {
    if (auto applied = load_checkpoint_config(s.model, config); !applied) return applied;
  }
  s.embeddings_path = given->string();
  return Ok{};
}

// What is read: the embeddings, a model folder, the sentence.
std::vector<StateOption> input_options() {
  return {
    {"--embeddings", "FILE", "embeddings: GloVe/word2vec text, word2vec .bin, .npy, .safetensors, a model folder; default: the shipped set",
     [](State& s, std::string_view v) -> Status { s.embeddings_path = std::string(v); return Ok{}; }},
    {"--vocab", "FILE", "vocabulary of a .npy or .safetensors, one token per line (default NAME.vocab.txt, else ids)",
     [](State& s, std::string_view v) -> Status { s.vocab_path = std::string(v); return Ok{}; }},
    {"--tensor", "NAME", "the .safetensors tensor to use (default: model.embed_tokens.weight, else the only 2-D one)",
     [](State& s, std::string_view v) -> Status { s.tensor_name = std::string(v); return Ok{}; }},
    {"--model", "DIR|ORG/NAME[@REV]", "a Hugging Face model folder, or a model on the Hub by name (downloaded into its cache): embeddings, tokenizer.json and config.json's RoPE and heads", apply_model_folder},
    {"--sentence", "TEXT", "the sentence to encode",
     [](State& s, std::string_view v) -> Status { s.model.sentence = std::string(v); return Ok{}; }},
  };
}

// The positional encoding, RoPE and its scaling, 2-D RoPE.
std::vector<StateOption> encoding_options() {
  return {
    {"--encoding", "none|integer|normalized|binary|sinusoidal|learned|rope", "positional encoding (rope)",
     [](State& s, std::string_view v) { return parse_enum(v, "--encoding", kEncodings, s.model.encoding); }},
    {"--binary-values", "01|pm1", "binary encoding values: {0,1} or {-1,+1} (01)",
     [](State& s, std::string_view v) { return parse_enum(v, "--binary-values", kBinaryValues, s.model.binary_values); }},
    {"--learned-max", "N", "T_max of the seeded learned table (512)",
     [](State& s, std::string_view v) { return assign(parse_integer(v, "--learned-max", 1, 65536), s.model.learned_max); }},
    {"--learned-file", "F.npy", "a T_max x d learned table from a NumPy file",
     [](State& s, std::string_view v) -> Status { s.model.learned_file = std::string(v); return Ok{}; }},
    {"--rope-style", "interleaved|half", "RoPE pairing: interleaved (RoFormer) or rotate-half (NeoX, HF)",
     [](State& s, std::string_view v) { return parse_enum(v, "--rope-style", kRopeStyles, s.model.rope_style); }},
    {"--base", "B", "frequency base of the sinusoid and RoPE (10000)",
     [](State& s, std::string_view v) -> Status {
       // θᵢ = base^(−2i/d): a base of 1 or less gives no frequencies to tell positions apart.
       auto base = parse_number(v, "--base");
       if (base && !(*base > 1.0)) return Error{"--base must be greater than 1, not " + std::string(v)};
       return assign(base, s.model.base);
     }},
    {"--rotary-dim", "N", "RoPE: rotated dimensions of each head, even (0 = all)",
     [](State& s, std::string_view v) { return assign(parse_integer(v, "--rotary-dim", 0, 65536), s.model.rotary_dim); }},
    {"--rope-fraction", "P", "p-RoPE: fraction of pairs, highest frequencies first, that rotate (1)",
     [](State& s, std::string_view v) { return assign(parse_number(v, "--rope-fraction"), s.model.rope_fraction); }},
    {"--rope-scaling", "none|linear|ntk|dynamic|yarn|llama3", "RoPE context scaling (none)",
     [](State& s, std::string_view v) { return parse_enum(v, "--rope-scaling", kScalings, s.model.scaling.type); }},
    {"--factor", "S", "scaling factor s = new length / original length (1)",
     [](State& s, std::string_view v) { return assign(parse_number(v, "--factor"), s.model.scaling.factor); }},
    {"--original-max-position", "L", "original context length L (2048; Llama 3.2: 8192)",
     [](State& s, std::string_view v) {
       return assign(parse_integer(v, "--original-max-position", 1, 1 << 24), s.model.scaling.original_max_position);
     }},
    {"--low-freq-factor", "X", "Llama 3 low_freq_factor (1)",
     [](State& s, std::string_view v) { return assign(parse_number(v, "--low-freq-factor"), s.model.scaling.low_freq_factor); }},
    {"--high-freq-factor", "X", "Llama 3 high_freq_factor (4)",
     [](State& s, std::string_view v) { return assign(parse_number(v, "--high-freq-factor"), s.model.scaling.high_freq_factor); }},
    {"--beta-fast", "X", "YaRN beta_fast (32)",
     [](State& s, std::string_view v) { return assign(parse_number(v, "--beta-fast"), s.model.scaling.beta_fast); }},
    {"--beta-slow", "X", "YaRN beta_slow (1)",
     [](State& s, std::string_view v) { return assign(parse_number(v, "--beta-slow"), s.model.scaling.beta_slow); }},
    {"--grid", "WxH", "2-D RoPE: lay the tokens on a W x H grid, row by row",
     [](State& s, std::string_view v) { return parse_grid(v, s.model); }},
    {"--rope-2d", "axial|mixed", "2-D RoPE kind (axial)",
     [](State& s, std::string_view v) { return parse_enum(v, "--rope-2d", kRope2d, s.model.rope_2d); }},
    {"--cls", "", "the first token is a CLS token and is not rotated",
     [](State& s, std::string_view) -> Status { s.model.cls = true; return Ok{}; }},
  };
}

// Biases, the heads and projections, masks and padding.
std::vector<StateOption> attention_options() {
  return {
    {"--bias", "none|alibi|t5|shaw", "attention bias (none)",
     [](State& s, std::string_view v) { return parse_enum(v, "--bias", kBiases, s.model.bias); }},
    // One switch whatever the mechanism: a model's RoPE, learned or sinusoidal table, ALiBi slopes
    // or T5 buckets are all what --encoding none and --bias none turn off (core/model/model_run).
    {"--no-positions", "", "no positional information at all: --encoding none --bias none (a model's RoPE, table, ALiBi or T5 buckets)",
     [](State& s, std::string_view) -> Status {
       s.model.encoding = EncodingKind::None;
       s.model.bias = BiasKind::None;
       return Ok{};
     }},
    {"--buckets", "N", "T5 num_buckets (32)",
     [](State& s, std::string_view v) { return assign(parse_integer(v, "--buckets", 2, 1024), s.model.buckets); }},
    {"--max-distance", "N", "T5 max_distance (128)",
     [](State& s, std::string_view v) { return assign(parse_integer(v, "--max-distance", 1, 1 << 20), s.model.max_distance); }},
    {"--clip", "K", "Shaw et al. clip distance (4)",
     [](State& s, std::string_view v) { return assign(parse_integer(v, "--clip", 0, 4096), s.model.clip); }},
    {"--model-config", "config.json", "rope_theta, rope_scaling and the heads of a Hugging Face config.json",
     [](State& s, std::string_view v) { return load_model_config(s.model, std::string(v)); }},
    {"--cross-sentence", "TEXT", "cross-attention: keys and values from this sentence",
     [](State& s, std::string_view v) -> Status { s.model.cross_sentence = std::string(v); return Ok{}; }},
    {"--heads", "H", "number of attention heads (must divide the embedding width)",
     [](State& s, std::string_view v) { return assign(parse_integer(v, "--heads", 1, 4096), s.model.heads); }},
    {"--kv-heads", "G", "grouped-query attention: G key/value heads shared by groups of query heads (0 = one per head)",
     [](State& s, std::string_view v) { return assign(parse_integer(v, "--kv-heads", 0, 4096), s.model.kv_heads); }},
    {"--projection", "random|identity", "W_q, W_k, W_v, W_o: seeded Gaussian or identity",
     [](State& s, std::string_view v) { return parse_enum(v, "--projection", kProjections, s.model.projection); }},
    {"--sigma", "X", "standard deviation of the random projections (0.1)",
     [](State& s, std::string_view v) { return assign(parse_number(v, "--sigma"), s.model.sigma); }},
    {"--seed", "N", "seed of the random projections (0)",
     [](State& s, std::string_view v) { return assign(parse_integer(v, "--seed", 0, 1LL << 53), s.model.seed); }},
    {"--causal", "", "apply the causal mask",
     [](State& s, std::string_view) -> Status { s.model.causal = true; return Ok{}; }},
    {"--pad-to", "N", "append padding tokens (masked keys) up to N tokens",
     [](State& s, std::string_view v) { return assign(parse_integer(v, "--pad-to", 0, 16384), s.model.pad_to); }},
  };
}

// What the views show: the head, a model's layer, each view's own settings.
std::vector<StateOption> view_options() {
  return {
    {"--head", "N|mean", "head shown in the heatmap (0-based), or the mean of the heads",
     [](State& s, std::string_view v) -> Status {
       if (v == "mean") {
         s.view.mean_heads = true;
         return Ok{};
       }
       s.view.mean_heads = false;
       return assign(parse_integer(v, "--head", 0, 4095), s.view.head);
     }},
    {"--permute", "N", "dog view: shuffle the tokens with seed N and compare the outputs (0: no shuffle)",
     [](State& s, std::string_view v) { return assign(parse_integer(v, "--permute", 0, 1 << 30), s.view.permutation); }},
    {"--layout", "SEQ", "mrope view: a sequence of text runs and image grids in patches (text:5,image:4x6,text:3)",
     [](State& s, std::string_view v) -> Status {
       if (v.empty()) return Error{"--layout needs runs like text:5,image:4x6,text:3"};
       s.view.mrope_layout = std::string(v);
       return Ok{};
     }},
    {"--text", "FILE", "position-probe view: the sentences probed, one a line (at least 4; empty: PosLab's own)",
     [](State& s, std::string_view v) -> Status {
       s.view.probe_text = std::string(v);
       return Ok{};
     }},
    {"--query", "I|all", "pair-scores view: the query (0-based token) whose scores are split by rotary pair (all: every query, by distance)",
     [](State& s, std::string_view v) -> Status {
       if (v == "all") {
         s.view.query = -1;
         return Ok{};
       }
       return assign(parse_integer(v, "--query", 0, 1 << 24), s.view.query);
     }},
    {"--layer", "L", "a model folder's layer (0-based) whose own attention is shown (-1: none)",
     [](State& s, std::string_view v) { return assign(parse_integer(v, "--layer", -1, 4095), s.view.layer); }},
    {"--position-shift", "K", "a model folder: token t sits at position t + K (GPT-2: row t + K of its table) (0)",
     [](State& s, std::string_view v) { return assign(parse_integer(v, "--position-shift", 0, 1 << 20), s.model.position_shift); }},
    {"--window", "none|N|model", "a model folder: every local layer's sliding window, N tokens or none (model: its own)",
     [](State& s, std::string_view v) { return parse_tokens_none_or_model(v, "--window", s.model.window); }},
    {"--chunk", "none|N|model", "a model folder: the chunk its chunked layers attend within, N tokens or none (Llama 4; model: its own)",
     [](State& s, std::string_view v) { return parse_tokens_none_or_model(v, "--chunk", s.model.chunk); }},
    {"--streaming", "K,W|none", "a model folder: every layer sees the first K tokens and the last W only (StreamingLLM) (none)",
     [](State& s, std::string_view v) { return assign(parse_streaming(v), s.model.streaming); }},
    {"--sinks", "on|off", "a model folder: its learned attention sinks kept or removed (GPT-OSS) (on)",
     [](State& s, std::string_view v) -> Status {
       if (v != "on" && v != "off") return Error{"--sinks must be on or off, not \"" + std::string(v) + "\""};
       s.model.sinks = v == "on";
       return Ok{};
     }},
    {"--local-base", "B|model", "a model folder: the local layers' RoPE base (Gemma 3)",
     [](State& s, std::string_view v) -> Status {
       if (v == "model") return s.model.local_base = 0.0, Status(Ok{});
       auto base = parse_number(v, "--local-base");
       if (base && !(*base > 1.0)) return Error{"--local-base must be greater than 1, not " + std::string(v)};
       return assign(base, s.model.local_base);
     }},
    {"--rope-factors", "short|long|model", "a model folder: LongRoPE's factor set whatever the length (Phi-3)",
     [](State& s, std::string_view v) { return parse_enum(v, "--rope-factors", kRopeFactorSets, s.model.rope_factors); }},
    {"--drop-pairs", "low:F|high:F|none", "a model folder: the lowest or highest fraction F of RoPE's pairs stop rotating (p-RoPE at inference)",
     [](State& s, std::string_view v) { return assign(parse_drop_pairs(v), s.model.drop_pairs); }},
    {"--alibi-scale", "X", "a model folder: ALiBi's slopes × X (1)",
     [](State& s, std::string_view v) -> Status {
       auto x = parse_number(v, "--alibi-scale");
       if (x && !(*x >= 0.0)) return Error{"--alibi-scale must be 0 or more, not " + std::string(v)};
       return assign(x, s.model.alibi_scale);
     }},
    {"--stack", "encoder|decoder|cross", "an encoder–decoder model (T5): whose attention is shown (encoder)",
     [](State& s, std::string_view v) -> Status {
       const auto stack = parse_model_stack(v);
       if (!stack) return Error{"--stack must be encoder, decoder or cross, not " + std::string(v)};
       s.model.stack = *stack;
       return Ok{};
     }},
    {"--target", "TEXT", "an encoder–decoder model (T5): the decoder's text, after its start token",
     [](State& s, std::string_view v) -> Status { s.model.target = std::string(v); return Ok{}; }},
    {"--shift-k", "N", "offset k of the shift view (3)",
     [](State& s, std::string_view v) { return assign(parse_integer(v, "--shift-k", 0, 100000), s.view.shift_k); }},
    {"--rope-m", "N", "rope2d view: position m of q (3)",
     [](State& s, std::string_view v) { return assign(parse_integer(v, "--rope-m", 0, 1 << 20), s.view.rope_m); }},
    {"--rope-n", "N", "rope2d view: position n of k (7)",
     [](State& s, std::string_view v) { return assign(parse_integer(v, "--rope-n", 0, 1 << 20), s.view.rope_n); }},
    {"--rope-pair", "N", "rope2d view: the pair i drawn on the plane (0)",
     [](State& s, std::string_view v) { return assign(parse_integer(v, "--rope-pair", 0, 4096), s.view.rope_pair); }},
    {"--image-grid", "WxH", "rope-image view: the patch grid (14x14)",
     [](State& s, std::string_view v) -> Status {
       auto grid = parse_pair(v, "--image-grid", 'x', 0, 64, "14x14");
       if (!grid) return Error{grid.error()};
       const auto [w, h] = *grid;
       if (w < 1 || h < 1) return Error{"--image-grid sides must be at least 1"};
       s.view.image_width = w;
       s.view.image_height = h;
       return Ok{};
     }},
    {"--patch", "X,Y", "rope-image view: the patch whose scores are shown (7,7)",
     [](State& s, std::string_view v) { return assign_pair(parse_pair(v, "--patch", ',', 0, 63, "7,7"), s.view.patch_x, s.view.patch_y); }},
    // One coordinate at a time, so that an animation can sweep the patch along a row or a column.
    {"--patch-x", "X", "rope-image view: the patch's column alone (7)",
     [](State& s, std::string_view v) { return assign(parse_integer(v, "--patch-x", 0, 63), s.view.patch_x); }},
    {"--patch-y", "Y", "rope-image view: the patch's row alone (7)",
     [](State& s, std::string_view v) { return assign(parse_integer(v, "--patch-y", 0, 63), s.view.patch_y); }},
    {"--token", "I", "trajectory view: the sentence's token whose path is drawn (1)",
     [](State& s, std::string_view v) { return assign(parse_integer(v, "--token", 0, 4095), s.view.trajectory_token); }},
    {"--positions", "N", "trajectory view: positions 0 … N − 1 (64)",
     [](State& s, std::string_view v) { return assign(parse_integer(v, "--positions", 2, 4096), s.view.trajectory_positions); }},
    {"--plane", "pca|dims", "trajectory view: the PCA plane or two dimensions (pca)",
     [](State& s, std::string_view v) { return parse_enum(v, "--plane", kPlanes, s.view.trajectory_plane); }},
    {"--dims", "I,J", "trajectory view: the two dimensions of --plane dims (0,1)",
     [](State& s, std::string_view v) {
       return assign_pair(parse_pair(v, "--dims", ',', 0, 1 << 16, "0,1"), s.view.trajectory_dim_x, s.view.trajectory_dim_y);
     }},
    {"--value", "weights|scores", "what the heatmap shows",
     [](State& s, std::string_view v) { return parse_enum(v, "--value", kValues, s.view.value); }},
  };
}

// Where attention is computed.
std::vector<StateOption> backend_options() {
  return {
    {"--backend", "auto|gpu|cpu", "where attention is computed: auto takes the GPU on hardware, the CPU on a software renderer (auto)",
     [](State& s, std::string_view v) { return parse_enum(v, "--backend", kBackends, s.backend); }},
    {"--no-check", "", "do not compare the GPU result with the CPU reference",
     [](State& s, std::string_view) -> Status { s.check_against_cpu = false; return Ok{}; }},
    {"--precision", "f32|bf16", "a model's activations: f32, exact, or bf16, rounded as Hugging Face rounds a model loaded in BF16 (f32)",
     [](State& s, std::string_view v) { return parse_enum(v, "--precision", kPrecisions, s.precision); }},
  };
}

}  // namespace

// The groups in the order the help lists them.
const std::vector<StateOption>& state_options() {
  static const std::vector<StateOption> options = [] {
    std::vector<StateOption> all;
    for (auto group : {input_options, encoding_options, attention_options, view_options, backend_options})
      for (StateOption& o : group()) all.push_back(std::move(o));
    return all;
  }();
  return options;
}

const StateOption* find_state_option(std::string_view name) {
  for (const auto& o : state_options())
    if (o.name == name) return &o;
  return nullptr;
}

bool has_model_folder(const State& state) {
  std::error_code ec;
  return !state.embeddings_path.empty() && std::filesystem::is_directory(state.embeddings_path, ec);
}

Status check_given_state_options(const std::function<bool(std::string_view)>& given, const State& state) {
  // A model folder's own design, changed: nothing else has windows, LongRoPE factors, ALiBi
  // slopes to scale, a learned table to shift, or a second stack; nor a forward pass whose
  // activations could be BF16 (the explorer's attention is float, from embeddings).
  static constexpr std::string_view model_only[] = {"--window", "--chunk", "--streaming", "--sinks", "--local-base", "--rope-factors", "--alibi-scale",
                                                    "--drop-pairs", "--position-shift", "--stack", "--target", "--precision"};
  if (!has_model_folder(state))
    for (std::string_view name : model_only)
      if (given(name))
        return Error{std::string(name) + (name == "--precision" ? " sets a model folder's forward pass" : " changes a model folder's own positions") +
                     " and needs one: give --model DIR (or ORG/NAME)" + (name == "--stack" || name == "--target" ? " of an encoder–decoder (T5)" : "")};
  // What --no-positions turns off cannot also be tuned: one of the two would be ignored.
  static constexpr std::string_view tuning[] = {
      "--base", "--rope-style", "--rotary-dim", "--rope-fraction", "--rope-scaling", "--factor", "--original-max-position",
      "--low-freq-factor", "--high-freq-factor", "--beta-fast", "--beta-slow", "--grid", "--rope-2d", "--cls", "--local-base",
      "--rope-factors", "--alibi-scale", "--drop-pairs", "--position-shift", "--buckets", "--max-distance", "--clip", "--learned-max",
      "--learned-file", "--binary-values"};
  if (given("--no-positions")) {
    for (std::string_view name : tuning)
      if (given(name))
        return Error{"--no-positions turns every position off, and " + std::string(name) +
                     " tunes positions: give one or the other"};
    if (given("--encoding") && state.model.encoding != EncodingKind::None)
      return Error{"--no-positions turns every position off, and --encoding " + std::string(to_string(state.model.encoding)) +
                   " gives some: give one or the other"};
    if (given("--bias") && state.model.bias != BiasKind::None)
      return Error{"--no-positions turns every position off, and --bias " + std::string(to_string(state.model.bias)) +
                   " gives some: give one or the other"};
  }
  return Ok{};
}

std::string state_options_help() {
  std::string out;
  for (const auto& o : state_options()) {
    std::string left = "  " + std::string(o.name) + (o.value.empty() ? "" : " " + std::string(o.value));
    if (left.size() < 34) left.resize(34, ' ');
    else left += "  ";
    out += left + std::string(o.help) + "\n";
  }
  return out;
}

}  // namespace poslab
