#include "core/options.hpp"

#include <charconv>
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

constexpr EncodingKind kEncodings[] = {EncodingKind::None, EncodingKind::Sinusoidal, EncodingKind::Rope};
constexpr RopeStyle kRopeStyles[] = {RopeStyle::Interleaved, RopeStyle::Half};
constexpr ProjectionKind kProjections[] = {ProjectionKind::Random, ProjectionKind::Identity};
constexpr Backend kBackends[] = {Backend::Gpu, Backend::Cpu};
constexpr HeatmapValue kValues[] = {HeatmapValue::Weights, HeatmapValue::Scores};

template <typename T>
Status assign(Result<T> parsed, auto& field) {
  if (!parsed) return Error{parsed.error()};
  field = static_cast<std::remove_reference_t<decltype(field)>>(*parsed);
  return Ok{};
}

}  // namespace

const std::vector<StateOption>& state_options() {
  static const std::vector<StateOption> options = {
      {"--embeddings", "FILE", "embeddings file (GloVe or word2vec text); default: the shipped set",
       [](State& s, std::string_view v) -> Status { s.embeddings_path = std::string(v); return Ok{}; }},
      {"--sentence", "TEXT", "the sentence to encode",
       [](State& s, std::string_view v) -> Status { s.model.sentence = std::string(v); return Ok{}; }},
      {"--encoding", "none|sinusoidal|rope", "positional encoding",
       [](State& s, std::string_view v) { return parse_enum(v, "--encoding", kEncodings, s.model.encoding); }},
      {"--rope-style", "interleaved|half", "RoPE pairing: interleaved (RoFormer) or rotate-half (NeoX, HF)",
       [](State& s, std::string_view v) { return parse_enum(v, "--rope-style", kRopeStyles, s.model.rope_style); }},
      {"--base", "B", "frequency base of the sinusoid and RoPE (10000)",
       [](State& s, std::string_view v) { return assign(parse_number(v, "--base"), s.model.base); }},
      {"--heads", "H", "number of attention heads (must divide the embedding width)",
       [](State& s, std::string_view v) { return assign(parse_integer(v, "--heads", 1, 4096), s.model.heads); }},
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
      {"--head", "N", "head shown in the heatmap (0-based)",
       [](State& s, std::string_view v) { return assign(parse_integer(v, "--head", 0, 4095), s.view.head); }},
      {"--value", "weights|scores", "what the heatmap shows",
       [](State& s, std::string_view v) { return parse_enum(v, "--value", kValues, s.view.value); }},
      {"--backend", "gpu|cpu", "where attention is computed (gpu)",
       [](State& s, std::string_view v) { return parse_enum(v, "--backend", kBackends, s.backend); }},
      {"--no-check", "", "do not compare the GPU result with the CPU reference",
       [](State& s, std::string_view) -> Status { s.check_against_cpu = false; return Ok{}; }},
  };
  return options;
}

const StateOption* find_state_option(std::string_view name) {
  for (const auto& o : state_options())
    if (o.name == name) return &o;
  return nullptr;
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
