#pragma once
// Reads the positional settings of a Hugging Face config.json as they are: rope_theta and
// rope_scaling (rope_type or type, factor, original_max_position_embeddings, low_freq_factor,
// high_freq_factor, beta_fast, beta_slow), and the heads (num_attention_heads, checked against
// hidden_size and head_dim). Other keys are the model's business and ignored.
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/state.hpp"

namespace poslab {

// rope_theta and rope_scaling as a config.json states them (absent keys stay empty).
struct RopeConfig {
  std::optional<double> theta;
  std::optional<RopeScaling> scaling;
};
Result<RopeConfig> read_rope_config(std::string_view json_text, const std::string& name);
// The same from a config.json already parsed (the model reader parses it once).
Result<RopeConfig> read_rope_config(const nlohmann::json& config, const std::string& name);

// Applies the config to `settings` only when the whole config reads cleanly; on error the
// settings are unchanged and the message names the file and the key.
Status apply_model_config(ModelSettings& settings, std::string_view json_text, const std::string& name);
Status load_model_config(ModelSettings& settings, const std::filesystem::path& path);

// Whether reading a model's config also sets the encoding and bias to the model's positions (a
// relative bias: BLOOM's ALiBi, T5's buckets). --model does, since the state is the model's run;
// the window's Load keeps the explorer's, since the Model tab runs with settings of its own.
enum class ModelPositions { Apply, Keep };
// A model folder's config.json as --model and the GUI's Load read it: its RoPE and heads, and
// the pairing its architecture stores (rotate-half for Hugging Face's, interleaved for GPT-J).
Status load_checkpoint_config(ModelSettings& settings, const std::filesystem::path& path,
                              ModelPositions positions = ModelPositions::Apply);

}  // namespace poslab
