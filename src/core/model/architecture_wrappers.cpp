// OLMo 2, and the language models inside the multimodal wrappers people download (Gemma 3 4B and
// up, Mistral Small 3.1, Qwen2.5-VL, Qwen3-VL): rows of the architecture table like the others.
// A wrapper's row is its text family's row with the wrapper's class, its text config's defaults
// (transformers' configuration_*.py, for the keys real files leave out) and its tensor names
// (older files `language_model.model.layers.N…`, files saved by transformers 5
// `model.language_model.layers.N…`). Images are never run: the vision tower is never read.
#include <algorithm>

#include "core/model/architecture.hpp"

namespace poslab {

namespace {

using R = TensorRole;

// Both namings of a wrapped language model's tensors, mapped onto the text model's own.
const std::vector<std::pair<std::string, std::string>> kWrapperNames = {
    {"language_model.model.", "model."},   // transformers 4 (before 4.52)
    {"language_model.lm_head.", "lm_head."},
    {"model.language_model.", "model."},   // transformers 4.52 and later, and 5
};

// OLMo 2: Llama's names without the norms before each half; a norm after the attention and after
// the MLP instead (post_attention_layernorm, post_feedforward_layernorm, added to x after the
// norm), and RMSNorms over the whole q and k projections (not per head) before RoPE.
Architecture olmo2(const Architecture& llama) {
  Architecture a = llama;
  a.name = "olmo2";
  a.title = "OLMo 2";
  a.classes = {"Olmo2ForCausalLM", "Olmo2Model"};
  a.model_types = {"olmo2"};
  std::erase_if(a.tensors, [](const TensorSlot& s) { return s.role == R::AttnNorm || s.role == R::MlpNorm; });
  const auto at = [&a](TensorRole r) {
    return std::find_if(a.tensors.begin(), a.tensors.end(), [r](const TensorSlot& s) { return s.role == r; });
  };
  a.tensors.insert(at(R::QBias), {{R::QNorm, "model.layers.{L}.self_attn.q_norm.weight", Dim::QueryWidth, Dim::None},
                                  {R::KNorm, "model.layers.{L}.self_attn.k_norm.weight", Dim::KvWidth, Dim::None}});
  a.tensors.insert(at(R::Gate), {R::PostAttnNorm, "model.layers.{L}.post_attention_layernorm.weight", Dim::Hidden, Dim::None});
  a.tensors.insert(at(R::FinalNorm), {R::PostMlpNorm, "model.layers.{L}.post_feedforward_layernorm.weight", Dim::Hidden, Dim::None});
  return a;
}

// OLMo 3: OLMo 2 with a sliding window on three layers of four (layer_types; when absent, every
// fourth layer is full) whose RoPE is never scaled: the config's scaling (YaRN in the long-context
// models) acts on the full-attention layers only, as OLMo-core trained them and as transformers'
// Olmo3RotaryEmbedding gives the sliding layers a default RoPE.
Architecture olmo3(const Architecture& olmo2_row) {
  Architecture a = olmo2_row;
  a.name = "olmo3";
  a.title = "OLMo 3";
  a.classes = {"Olmo3ForCausalLM", "Olmo3Model"};
  a.model_types = {"olmo3"};
  a.windows = WindowRule::Pattern;
  a.keys.window_pattern = {};  // no key: configuration_olmo3.py fixes the pattern
  a.defaults.window_pattern = 4;
  a.defaults.sliding_window = 4096;  // configuration_olmo3.py's default
  a.unscaled_sliding_rope = true;
  return a;
}

}  // namespace

Architecture wrapped_language_model(const Architecture& text, std::string name, std::string title, std::vector<std::string> classes,
                                    std::vector<std::string> model_types, std::string defaults) {
  Architecture a = text;
  a.name = std::move(name);
  a.title = std::move(title);
  a.classes = std::move(classes);
  a.model_types = std::move(model_types);
  a.in_text_config = true;
  a.text_defaults = std::move(defaults);
  a.renames = kWrapperNames;
  a.wrapper_note = "its language model; images are not run";
  return a;
}

std::vector<Architecture> wrapper_architectures(const Architecture& gemma3, const Architecture& mistral, const Architecture& qwen2,
                                                const Architecture& qwen3, const Architecture& llama) {
  // configuration_gemma3.py's Gemma3TextConfig defaults (Gemma 3 4B's text_config gives only a few keys).
  const char* gemma3_text = R"({"vocab_size": 262208, "hidden_size": 2304, "intermediate_size": 9216, "num_hidden_layers": 26,
    "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256, "hidden_activation": "gelu_pytorch_tanh",
    "max_position_embeddings": 131072, "rms_norm_eps": 1e-6, "tie_word_embeddings": true, "rope_theta": 1000000.0,
    "query_pre_attn_scalar": 256, "sliding_window": 4096, "rope_local_base_freq": 10000.0, "sliding_window_pattern": 6})";
  // configuration_mistral.py's MistralConfig defaults.
  const char* mistral_text = R"({"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 131072, "rms_norm_eps": 1e-6,
    "rope_theta": 10000.0, "sliding_window": 4096, "tie_word_embeddings": false, "hidden_act": "silu"})";
  // Qwen2_5_VLTextConfig's and Qwen3VLTextConfig's defaults.
  const char* qwen25_text = R"({"vocab_size": 152064, "hidden_size": 8192, "intermediate_size": 29568, "num_hidden_layers": 80,
    "num_attention_heads": 64, "num_key_value_heads": 8, "max_position_embeddings": 32768, "rms_norm_eps": 1e-5,
    "rope_theta": 1000000.0, "use_sliding_window": false, "sliding_window": 4096, "max_window_layers": 80,
    "tie_word_embeddings": false, "hidden_act": "silu"})";
  const char* qwen3_text = R"({"vocab_size": 151936, "hidden_size": 4096, "intermediate_size": 22016, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": 32, "head_dim": 128, "max_position_embeddings": 128000,
    "rms_norm_eps": 1e-6, "rope_theta": 5000000.0, "tie_word_embeddings": false, "hidden_act": "silu"})";
  return {
      olmo2(llama),
      olmo3(olmo2(llama)),
      wrapped_language_model(gemma3, "gemma3_multimodal", "Gemma 3", {"Gemma3ForConditionalGeneration"}, {"gemma3"}, gemma3_text),
      wrapped_language_model(mistral, "mistral3", "Mistral 3", {"Mistral3ForConditionalGeneration"}, {"mistral3"}, mistral_text),
      wrapped_language_model(qwen2, "qwen2_5_vl", "Qwen2.5-VL", {"Qwen2_5_VLForConditionalGeneration", "Qwen2VLForConditionalGeneration"},
              {"qwen2_5_vl", "qwen2_vl"}, qwen25_text),
      wrapped_language_model(qwen3, "qwen3_vl", "Qwen3-VL", {"Qwen3VLForConditionalGeneration"}, {"qwen3_vl"}, qwen3_text),
  };
}

}  // namespace poslab
