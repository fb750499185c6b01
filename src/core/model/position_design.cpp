#include "core/model/position_design.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "base/number_text.hpp"

namespace poslab {

namespace {

std::string rope_words(double base, const RopeScaling& scaling) {
  std::string s = "RoPE base " + number_text(base);
  if (scaling.type == RopeScalingType::LongRope)
    s += ", LongRoPE (short factors up to " + std::to_string(scaling.original_max_position) + " tokens, long beyond; attention ×" +
         number_text(scaling.attention_factor) + ")";
  else if (scaling.type != RopeScalingType::None)
    s += ", " + std::string(to_string(scaling.type)) + " ×" + number_text(scaling.factor);
  if (scaling.type == RopeScalingType::Yarn) s += " over " + std::to_string(scaling.original_max_position);
  return s;
}

// Gemma 4: the layer's proportional RoPE (how many of its heads' pairs turn), its heads where they
// differ from the model's, values that are the keys, and the layer whose keys and values it reads.
std::string layer_shape_words(const TransformerConfig& c, int layer) {
  const TransformerConfig::LayerShape shape = c.shape(layer);
  std::string s;
  if (c.proportional_rope && !c.is_local(layer) && c.positions == PositionKind::Rope)
    s += ", proportional: " + std::to_string(static_cast<int>(std::lround(shape.rope_fraction * (shape.head_dim / 2)))) + " of " +
         std::to_string(shape.head_dim / 2) + " pairs turn";
  if (shape.head_dim != c.head_dim) s += ", heads of " + std::to_string(shape.head_dim);
  if (shape.kv_heads != c.kv_heads) s += ", " + std::to_string(shape.kv_heads) + " key/value head" + (shape.kv_heads == 1 ? "" : "s");
  if (c.keys_as_values && !c.is_local(layer)) s += ", values = keys";
  if (const int source = c.kv_source(layer); source >= 0) s += ", keys and values of layer " + std::to_string(source);
  return s;
}

}  // namespace

std::string describe_layer_positions(const TransformerConfig& c, int layer) {
  std::string s;
  switch (c.positions) {
    case PositionKind::Rope:
      if (!c.rotates(layer))
        s = "no positions (NoPE)" + (c.temperature_tuning ? ", queries × (1 + " + number_text(c.attn_scale) + "·ln(floor((p + 1) / " +
                                                               number_text(c.floor_scale) + ") + 1))" : std::string());
      else if (c.unscaled_rope(layer)) s = rope_words(c.rope_local_theta.value_or(c.rope_theta), RopeScaling{});
      else s = rope_words(c.rope_theta, c.scaling);
      break;
    case PositionKind::Learned:
      s = "a learned table of " + std::to_string(c.max_positions) + " positions added to the embeddings" +
          (c.arch->position_offset ? " (rows offset by " + std::to_string(c.arch->position_offset) + ")" : "");
      break;
    case PositionKind::Sinusoidal: s = "the sinusoid added to the embeddings"; break;
    case PositionKind::None: s = "no positions (NoPE)"; break;
    case PositionKind::Alibi: s = "ALiBi (a slope per head)"; break;
    case PositionKind::T5:
      s = "T5's relative buckets (" + std::to_string(c.t5_buckets) + ", to distance " + std::to_string(c.t5_max_distance) +
          (c.bidirectional() ? ", both directions)" : ")");
      break;
  }
  if (c.arch->layer_shapes) s += layer_shape_words(c, layer);
  if (c.is_local(layer))
    s += c.bidirectional() ? ", window ±" + std::to_string(c.sliding_window / 2) : ", window " + std::to_string(c.sliding_window);
  if (c.is_chunked(layer)) s += ", chunks of " + std::to_string(c.chunk_size);
  if (c.qk_l2_norm && c.rotates(layer) && c.positions == PositionKind::Rope) s += ", q and k L2-normed";
  return s;
}

std::string layer_ranges(const std::vector<bool>& in) {
  std::string out;
  for (std::size_t l = 0; l < in.size();) {
    if (!in[l]) {
      ++l;
      continue;
    }
    std::size_t last = l;
    while (last + 1 < in.size() && in[last + 1]) ++last;
    out += (out.empty() ? "" : ", ") + std::to_string(l) + (last > l ? "–" + std::to_string(last) : "");
    l = last + 1;
  }
  return out;
}

std::string describe_positions(const TransformerConfig& c) {
  // Layers grouped by what they have, in the order each kind first appears.
  std::vector<std::string> kinds;
  std::map<std::string, std::vector<bool>> layers;
  for (int l = 0; l < c.layers; ++l) {
    const std::string k = describe_layer_positions(c, l);
    if (!layers.count(k)) kinds.push_back(k), layers[k].assign(static_cast<std::size_t>(c.layers), false);
    layers[k][static_cast<std::size_t>(l)] = true;
  }
  std::string s = c.arch->title + ": ";
  if (kinds.size() == 1) {
    s += kinds.front() + " in every layer";
  } else {
    for (std::size_t i = 0; i < kinds.size(); ++i) {
      const std::vector<bool>& in = layers[kinds[i]];
      const bool one = std::count(in.begin(), in.end(), true) == 1;
      const int first = static_cast<int>(std::find(in.begin(), in.end(), true) - in.begin());
      const std::string role = c.is_local(first) ? " local" : c.has_local_layers() ? " global" : "";
      s += (i ? "; " : "") + std::string(one ? "layer " : "layers ") + layer_ranges(in) + role + ": " + kinds[i];
    }
  }
  if (c.encoder_decoder())
    s += " in the encoder; the decoder's " + std::to_string(c.decoder_layers) + " layers: causal buckets of their own, cross-attention without positions";
  else if (c.bidirectional())
    s += " · bidirectional (an encoder)";
  if (c.positions == PositionKind::Rope) {
    s += std::string(" · ") + (c.rope_style == RopeStyle::Half ? "rotate-half" : "interleaved") + " pairs";
    if (c.rotary_dim < c.head_dim) s += " on " + std::to_string(c.rotary_dim) + " of " + std::to_string(c.head_dim) + " dimensions";
    if (c.mrope_section.size() == 3)
      s += " · M-RoPE: t, h, w on " + std::to_string(c.mrope_section[0]) + ", " + std::to_string(c.mrope_section[1]) + ", " +
           std::to_string(c.mrope_section[2]) + " pairs" + (c.mrope_interleaved ? " interleaved" : "") +
           " (on text the three ids are equal: 1-D RoPE)";
  }
  if (c.learned_sinks) s += " · a learned sink per head";
  if (c.latent()) {
    const double mscale2 = c.query_scale * std::sqrt(static_cast<double>(c.head_dim));
    s += " · latent attention: positions only on that slice, whose key is one for every head (decoupled RoPE); kv rank " +
         std::to_string(c.kv_lora_rank) + (c.q_lora_rank > 0 ? ", q rank " + std::to_string(c.q_lora_rank) : std::string()) +
         (std::abs(mscale2 - 1.0) > 1e-12 ? "; softmax scale × " + number_text(mscale2) + " (YaRN's mscale²)" : std::string());
  }
  if (c.per_layer_input > 0) s += " · per-layer inputs, " + std::to_string(c.per_layer_input) + " wide, added after each layer's MLP";
  if (!c.arch->wrapper_note.empty()) s += " · " + c.arch->wrapper_note;
  if (c.experts > 0) {
    std::vector<bool> sparse(static_cast<std::size_t>(c.layers));
    for (int l = 0; l < c.layers; ++l) sparse[static_cast<std::size_t>(l)] = c.is_sparse(l);
    const bool all = std::all_of(sparse.begin(), sparse.end(), [](bool b) { return b; });
    const std::string weights =
        c.arch->moe == MoeKind::GptOss       ? " (weights: the softmax of the chosen)"
        : c.arch->moe == MoeKind::Llama4     ? " (weights: a sigmoid each; a shared expert beside them)"
        : c.arch->moe == MoeKind::DeepSeekV3 ? " (sigmoid scores, the best " + std::to_string(c.groups_kept) + " of " + std::to_string(c.expert_groups) +
                                                   " groups, × " + number_text(c.routed_scaling) + "; " + std::to_string(c.shared_experts) + " shared)"
        : c.arch->moe == MoeKind::DeepSeekV2 ? " (softmax × " + number_text(c.routed_scaling) + "; " + std::to_string(c.shared_experts) + " shared)"
        : c.arch->moe == MoeKind::Gemma4     ? " (weights renormalized, × each expert's scale; beside the dense MLP)"
        : c.norm_topk                        ? " (weights renormalized)"
                                             : "";
    s += " · a mixture of " + std::to_string(c.experts) + " experts, each token routed to " + std::to_string(c.experts_per_token) + weights +
         (all ? " in every layer" : " in layers " + layer_ranges(sparse));
  }
  return s;
}

std::string describe_rope_sources(const TransformerConfig& c) {
  if (c.positions != PositionKind::Rope) return "";
  const auto from = [](const std::string& key) { return key.empty() ? std::string("the family's default") : key; };
  std::string s = "base " + number_text(c.rope_theta) + " from " + from(c.sources.theta);
  s += "; scaling " + (c.scaling.type == RopeScalingType::None ? std::string("none") : std::string(to_string(c.scaling.type))) +
       (c.sources.scaling.empty() ? "" : " from " + c.sources.scaling);
  s += "; rotated share " + number_text(c.partial_rotary) + " from " + from(c.sources.partial);
  if (c.rope_local_theta) s += "; local base " + number_text(*c.rope_local_theta) + " from " + from(c.sources.local_theta);
  return s;
}

}  // namespace poslab
