#pragma once
// Context-length scaling of RoPE frequencies (docs/FORMULAS.md), with the names of
// Hugging Face's `rope_scaling` config. s = factor, L = original_max_position, d = rotary_dim.
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace poslab {

enum class RopeScalingType { None, Linear, Ntk, Dynamic, Yarn, Llama3, LongRope };

// LongRoPE's factor sets (Phi-3): one divisor per pair, the short set up to L tokens, the long one
// beyond; a forced choice is an intervention.
enum class LongRopeSet { ByLength, Short, Long };

struct RopeScaling {
  RopeScalingType type = RopeScalingType::None;
  double factor = 1.0;                                   // s (HF: factor)
  int original_max_position = 2048;                      // L (HF: original_max_position_embeddings)
  double low_freq_factor = 1.0, high_freq_factor = 4.0;  // Llama 3
  double beta_fast = 32.0, beta_slow = 1.0;              // YaRN
  std::vector<double> short_factor, long_factor;          // LongRoPE, one per pair
  double attention_factor = 1.0;                          // LongRoPE: multiplies rotated q and k
  bool attention_given = false;  // YaRN: config.json's attention_factor (or mscale ratio) replaces 0.1·ln s + 1
  bool yarn_truncate = true;     // YaRN: the correction range rounded outward (HF's truncate; GPT-OSS: false)
  LongRopeSet longrope_set = LongRopeSet::ByLength;
  bool operator==(const RopeScaling&) const = default;
};

struct RopeFrequencies {
  std::vector<double> thetas;    // θ'ᵢ per pair, i = 0 … rotary_dim/2 − 1
  double attention_scale = 1.0;  // YaRN: 0.1·ln(s) + 1, multiplies both q and k; 1 otherwise
};

// Rotary pairs stopped at inference (Barbero et al. 2024's p-RoPE, tried on a trained model): the
// lowest-frequency fraction of the pairs (the last ones) or the highest (the first ones) get θ = 0
// and carry no position. fraction 0: none.
struct DropPairs {
  bool highest = false;
  double fraction = 0.0;
  bool operator==(const DropPairs&) const = default;
};
// "low:0.25", "high:0.5", "none".
Result<DropPairs> parse_drop_pairs(std::string_view text);
std::string to_string(const DropPairs& d);
// θ set to 0 for the pairs `d` stops: round(fraction × pairs) of them.
void drop_pairs(std::vector<double>& thetas, const DropPairs& d);

// The scaled frequencies θ'ᵢ for a rotary width d and base; sequence_length (T) matters only to
// Dynamic NTK. Expects a scaling that passed validate().
RopeFrequencies rope_frequencies(int rotary_dim, double base, const RopeScaling& scaling,
                                 int sequence_length);

// LongRoPE's default attention factor √(1 + ln s / ln L) for s = max positions / L (1 when s ≤ 1).
double longrope_attention_factor(double s, int original_max_position);

// Whether LongRoPE uses its long factors for `sequence_length` tokens.
bool longrope_uses_long(const RopeScaling& scaling, int sequence_length);

// The Hugging Face `rope_type` spelling: "none", "linear", "ntk", "dynamic", "yarn", "llama3",
// "longrope".
std::string_view to_string(RopeScalingType type);

// Rejects settings the formulas cannot use: s < 1 for a scaled type, L < 1, Llama 3's factors
// out of order, YaRN's betas out of order; the message says which value and why.
Status validate(const RopeScaling& scaling);

}  // namespace poslab
