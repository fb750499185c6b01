#pragma once
// RoPE's settings in a config.json, in both of the forms Hugging Face writes them, read as one:
// - transformers 4.x: `rope_theta`, `rope_scaling` {rope_type | type, factor, …} and
//   `partial_rotary_factor` at the top level (and a family's own names for them: GPT-NeoX's
//   `rotary_emb_base` and `rotary_pct`, Gemma 3's `rope_local_base_freq`);
// - transformers 5: `rope_parameters` {rope_type, rope_theta, partial_rotary_factor, factor, …},
//   flat, or one entry per layer type ({"full_attention": {…}, "sliding_attention": {…}}).
// Every key of a RoPE dictionary is read or refused by name; where both forms give a value and
// they disagree, the message names both. Each value remembers where it came from, for
// `poslab info --model` ("rope_parameters.full_attention.rope_theta").
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/encodings/rope_scaling.hpp"
#include "base/result.hpp"

namespace poslab {

// The names a family gives its RoPE keys at the top level (the first present wins).
struct RopeKeyNames {
  std::vector<std::string> theta{"rope_theta"};
  std::vector<std::string> partial{"partial_rotary_factor"};
  std::vector<std::string> local_theta;  // the local (sliding) layers' base, where the family has one
};

// A value and the key path it was read from ("" while absent).
template <typename T>
struct Sourced {
  std::optional<T> value;
  std::string from;
  explicit operator bool() const { return value.has_value(); }
};

// One layer type's RoPE: its base, its scaling and the rotated share of a head.
struct RopeLayerSettings {
  Sourced<double> theta;
  Sourced<RopeScaling> scaling;
  Sourced<double> partial;
  // Qwen-VL's M-RoPE: how many rotary pairs carry t, h and w (sections in order, or interleaved).
  std::vector<int> mrope_section;
  bool mrope_interleaved = false;
  std::string mrope_from;
  // Gemma 4's rope_type "proportional": default RoPE over the whole head (÷ factor when given), of
  // which only the first partial_rotary_factor share of the pairs turn; the others carry nothing.
  bool proportional = false;
};

// The model's RoPE: the global (full-attention) layers', and the sliding layers' where they differ.
struct RopeParameters {
  RopeLayerSettings global;
  std::optional<RopeLayerSettings> local;
  bool v5 = false;  // read from rope_parameters
};

// Reads both forms from a parsed config.json; `name` (the file) starts every message.
Result<RopeParameters> read_rope_parameters(const nlohmann::json& config, const RopeKeyNames& keys, const std::string& name);

// The keys a RoPE dictionary may hold (rope_parameters or rope_scaling): what PosLab reads.
const std::vector<std::string>& rope_dictionary_keys();

}  // namespace poslab
