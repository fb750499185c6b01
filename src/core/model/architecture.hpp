#pragma once
// A transformer architecture as data (as llama.cpp's llama-arch.cpp does it): the config.json keys
// that give its sizes and their defaults, every tensor it reads with its name and its shape in
// those sizes, and a few flags for what its layers do differently. Llama, Qwen2 and GPT-2 differ
// in names, norms, biases, the MLP and where positions enter; one forward pass reads this table,
// and a new model family is one more row of it (docs/ARCHITECTURE.md).
#include <string>
#include <string_view>
#include <vector>

#include "core/encodings/encodings.hpp"
#include "base/result.hpp"

namespace poslab {

enum class NormKind { Rms, Layer };         // RMSNorm (weight) or LayerNorm (weight and bias)
enum class MlpKind { Gated, Plain };        // down(act(gate·x) ⊙ up·x), or proj(act(fc·x))
// Where positions enter: RoPE on q and k; a learned table or the sinusoid added to x; nothing
// (NoPE); or a bias on the scores (ALiBi's slopes, T5's learned buckets).
enum class PositionKind { Rope, Learned, Sinusoidal, None, Alibi, T5 };
enum class WeightLayout { OutIn, InOut };   // PyTorch Linear (out × in), or GPT-2's Conv1D (in × out)
// A fused q/k/v projection's output: all of q, then k, then v (GPT-2, Phi-3), or head by head,
// each head's q, k and v side by side (GPT-NeoX, BLOOM).
enum class QkvLayout { Blocks, PerHead };
// A block's two halves: one after the other (x += attn(n₁(x)); x += mlp(n₂(x))), or both read the
// same x (x += attn(n₁(x)) + mlp(n₂(x)); GPT-NeoX, GPT-J, whose MLP reads n₁'s output as well).
enum class Residual { Sequential, Parallel };
// Which layers attend through a sliding window when config.json has no layer_types list: none,
// every layer (Mistral), those from max_window_layers on when use_sliding_window (Qwen2), every
// other layer from the first (Gemma 2), all but every n-th (Pattern: Gemma 3's
// sliding_window_pattern, OLMo 3's fixed 4), all but layers 0, n, 2n … (GlobalEveryN: ModernBERT's
// global_attn_every_n_layers). n is read from ConfigKeys::window_pattern, else ConfigDefaults'.
enum class WindowRule { None, Every, FromMaxWindowLayers, Alternate, Pattern, GlobalEveryN };
// Where a layer's norms sit: before each half, whose output is added to x (pre-LN, every decoder
// here), or after the half's output is added to x, normalizing the sum (post-LN: BERT).
enum class NormPlacement { Pre, Post };
// What the output head predicts: the next token at each position (decoders, T5's decoder), or
// each position's own token through a masked-LM head (BERT, ModernBERT: fill-mask).
enum class OutputHead { NextToken, MaskedLm };
// The stacks of layers a model has: one (a decoder, or an encoder), or T5's encoder and decoder with
// the decoder's cross-attention to the encoder's output.
enum class Stacks { One, EncoderDecoder };

// What a tensor is for. The model's own tensors first, then a layer's. TokenTypes: BERT's segment
// table (row 0 is added); Head*: a masked-LM head's transform before the output projection;
// Decoder*: T5's decoder stack's own final norm and bucket table. Cross*: a T5 decoder layer's
// attention to the encoder's output.
enum class TensorRole {
  Embed, EmbedNorm, EmbedNormBias, Positions, RelativeBias, FinalNorm, FinalNormBias, LmHead, LmHeadBias,
  TokenTypes, HeadDense, HeadDenseBias, HeadNorm, HeadNormBias, DecoderFinalNorm, DecoderRelativeBias,
  // Gemma 4's per-layer inputs: a second embedding table (every layer's slice side by side), the
  // projection of the embeddings into the same slices, and that projection's norm.
  EmbedPerLayer, PerLayerProjection, PerLayerProjectionNorm,
  AttnNorm, AttnNormBias, Q, K, V, QBias, KBias, VBias, Qkv, QkvBias, QNorm, KNorm, O, OBias, PostAttnNorm,
  MlpNorm, MlpNormBias, Gate, Up, GateUp, UpBias, Down, DownBias, PostMlpNorm,
  CrossNorm, CrossQ, CrossK, CrossV, CrossO,
  // A mixture of experts' layer: the router, and each expert's gated MLP (one tensor per expert,
  // or all experts stacked in one 3-D tensor: transformers 5's gate_up_proj and down_proj).
  Router, ExpertGate, ExpertUp, ExpertDown, ExpertGateUp,
  // GPT-OSS: the router's bias, the experts' biases (stacked [experts × n]) and each head's
  // learned sink logit. Llama 4: the shared expert beside the routed ones (a gated MLP).
  RouterBias, ExpertGateUpBias, ExpertDownBias, Sinks, SharedGate, SharedUp, SharedDown,
  // DeepSeek's multi-head latent attention: q through a low-rank pair (q_a, its norm, q_b) or one
  // q_proj; kv_a gives the compressed key-value and the shared RoPE key, kv_b each head's key and
  // value; the router's correction bias (V3: for choosing only).
  QA, QANorm, QB, KvA, KvANorm, KvB, RouterCorrection,
  // Gemma 4: a layer's per-layer input (a gate from x, the input's slice, a projection back, its
  // norm), the scalar the layer's output is multiplied by, and its mixture beside the dense MLP:
  // the router's scale and per-expert scale, the experts' own pre- and post-norms and the dense
  // MLP's post-norm before the two are added.
  PerLayerGate, PerLayerUp, PostPerLayerNorm, LayerScalar, RouterScale, RouterExpertScale, PreExpertNorm, PostExpertNorm,
  PostDenseNorm
};
bool is_layer_role(TensorRole r);

// A size in config.json's terms; a tensor's shape is two of them, a vector's second is None.
// FusedFfn: gate and up stacked (Phi-3's gate_up_proj); HeadDim: a per-head norm's width.
// TokenTypes: BERT's type_vocab_size.
// Experts: a mixture's expert count; ExpertFfn: an expert's inner width (moe_intermediate_size, or
// Mixtral's intermediate_size), FusedExpertFfn twice that (gate and up stacked).
// SharedExpertFfn: the shared experts' width (n_shared_experts × the expert width; Llama 4: one).
// HeadDim, QueryWidth, KvWidth, Ffn and FusedFfn are the layer's own (Gemma 4's full-attention
// layers have wider heads and their own key/value heads; its KV-sharing layers a double-wide MLP).
// PerLayerInput: Gemma 4's per-layer input width; PerLayerAll: every layer's (layers × it);
// PerLayerVocab: its table's rows. One: a single number (a layer's scalar).
// QLoraRank, KvLoraRank, KvAWidth (the compressed kv and the RoPE key), KvBWidth (each head's key
// and value), ValueWidth (heads × v_head_dim): DeepSeek's latent attention.
enum class Dim { None, Hidden, QueryWidth, KvWidth, FusedQkv, Ffn, FusedFfn, HeadDim, Vocab, Positions, Heads, Buckets, TokenTypes,
                 Experts, ExpertFfn, FusedExpertFfn, SharedExpertFfn, QLoraRank, KvLoraRank, KvAWidth, KvBWidth, ValueWidth,
                 PerLayerInput, PerLayerAll, PerLayerVocab, One };

// When the tensor is read: always, or only when the config asks for it. IfPresent: read when the
// files have it (ModernBERT's first layer has no attention norm; BertModel has no masked-LM head).
// IfGatedMlp / IfPlainMlp: T5's wi_0 and wi_1, or wi, by config.json's feed_forward_proj.
// IfDenseLayer / IfSparseLayer: a mixture of experts' dense MLP layers (Qwen3-MoE's
// mlp_only_layers) and its expert layers.
// IfQLora / IfNoQLora: DeepSeek's q through q_a and q_b (q_lora_rank set) or one q_proj.
// IfOwnKeys: a layer that projects its own keys (Gemma 4's last num_kv_shared_layers reuse an
// earlier layer's); IfOwnValues: one that projects its values apart from its keys (not Gemma 4's
// attention_k_eq_v full layers). IfPerLayerInputs: Gemma 4 with hidden_size_per_layer_input.
enum class Need { Always, IfAttentionBias, IfUntied, IfLearnedPositions, IfT5Positions, IfPresent, IfGatedMlp, IfPlainMlp,
                  IfDenseLayer, IfSparseLayer, IfQLora, IfNoQLora, IfOwnKeys, IfOwnValues, IfPerLayerInputs };


struct TensorSlot {
  TensorRole role;
  std::string name;        // "{L}" stands for the layer's index
  Dim rows, cols;          // as stored in the file (GPT-2's Conv1D: in × out)
  Need need = Need::Always;
  bool after_layers = false;  // saved after the layers (the final norm), as Hugging Face orders them
  bool decoder = false;       // a layer tensor of T5's decoder stack ("{L}" counts its layers)
  // An expert's tensor: "{E}" in the name stands for the expert's index (one tensor each), or,
  // with `stacked`, one 3-D tensor [experts × rows × cols] holds them all.
  bool per_expert = false;
  bool stacked = false;
  // How a stacked expert tensor holds each expert's matrix: out × in (transformers 5's Qwen3-MoE,
  // MXFP4 blocks) or in × out (GPT-OSS's and Llama 4's gate_up_proj and down_proj).
  WeightLayout layout = WeightLayout::OutIn;
  // MXFP4 (GPT-OSS's published experts): the slot's tensor (…_blocks) is U8 [experts × rows ×
  // cols/32 × 16] and its scales, named with _scales for _blocks, [experts × rows × cols/32].
  bool mxfp4 = false;
};

// How a mixture of experts routes a token: none (a dense model); Qwen3-MoE's softmax over every
// expert then the top k, renormalized when norm_topk_prob; Mixtral's softmax, top k, renormalized.
// GPT-OSS's: the router has a bias, the top k logits are chosen first and their softmax weighs
// them; each expert's gate and up are interleaved, clamped, and carry biases. Llama 4's: the top k
// logits through a sigmoid scale the expert's input, and a shared expert runs on every token.
// DeepSeek-V3's: sigmoid scores, chosen with a correction bias among the best groups of experts,
// weighed by the uncorrected scores (renormalized when norm_topk_prob) × routed_scaling_factor;
// DeepSeek-V2's: softmax over every expert, the top k × routed_scaling_factor. Both add shared experts.
// Gemma 4's (26B-A4B): beside the dense MLP of every layer; the router reads the residual
// RMS-normed without weight × its scale × hidden^−½, softmax over every expert, the top k
// renormalized, each × its per_expert_scale.
enum class MoeKind { None, Qwen3, Mixtral, GptOss, Llama4, DeepSeekV2, DeepSeekV3, Gemma4 };

// The config.json keys that give a size (the first present wins; the first is named in messages).
struct ConfigKeys {
  std::vector<std::string> hidden{"hidden_size"}, layers{"num_hidden_layers"}, heads{"num_attention_heads"},
      intermediate{"intermediate_size"}, max_positions{"max_position_embeddings"},
      norm_eps{"rms_norm_eps", "layer_norm_epsilon", "layer_norm_eps"},
      rope_theta{"rope_theta"}, partial_rotary{"partial_rotary_factor"},
      rotary_dim{},  // the rotated dimensions of a head as a count (GPT-J's rotary_dim)
      head_dim{"head_dim"}, window{"sliding_window"},
      window_pattern{"sliding_window_pattern"},  // n of WindowRule::Pattern / GlobalEveryN; empty: the default only
      local_rope_theta{},   // the local layers' own base (Gemma 3, ModernBERT)
      decoder_layers{},     // T5's num_decoder_layers (the encoder's count when absent)
      buckets{"poslab_t5_buckets"}, max_distance{"poslab_t5_max_distance"};
  std::string activation = "hidden_act";
  std::string head_activation;  // the masked-LM head's activation key (ModernBERT); empty: the layers'
};

// What Hugging Face assumes when config.json leaves a key out.
struct ConfigDefaults {
  std::string activation = "silu";
  bool tie_embeddings = false;
  int intermediate_per_hidden = 0;  // intermediate size = this × hidden when absent; 0: required
  int max_positions = 2048;         // 0: required (it sizes GPT-2's position table)
  bool qkv_bias = false;            // q, k and v carry biases whatever config.json says (Qwen2)
  double rope_theta = 10000.0;      // the base when config.json names none
  double partial_rotary = 1.0;      // the rotated share of a head when config.json names none
  int nope_interval = 0;            // SmolLM3: every this-th layer has no RoPE (no_rope_layers absent)
  double attn_softcap = 0.0, final_softcap = 0.0;  // Gemma 2's soft-capping when config.json is silent
  int window_pattern = 6;           // n of WindowRule::Pattern / GlobalEveryN when config.json is silent
  int sliding_window = 0;           // the window when config.json names none (0: no window)
};

struct Architecture {
  std::string name;                        // "llama", "qwen2", "gpt2", "poslab"
  std::string title;                       // as people write it: "Llama", "Gemma 3"
  std::vector<std::string> classes;        // config.json "architectures" entries
  std::vector<std::string> model_types;    // config.json "model_type" values
  NormKind norm = NormKind::Rms;
  MlpKind mlp = MlpKind::Gated;
  PositionKind positions = PositionKind::Rope;  // the default; PosLab's own folders say which
  WeightLayout layout = WeightLayout::OutIn;
  QkvLayout qkv_layout = QkvLayout::Blocks;
  Residual residual = Residual::Sequential;
  RopeStyle rope_style = RopeStyle::Half;  // how the checkpoint pairs RoPE's dimensions
  double norm_offset = 0.0;          // Gemma's RMSNorm multiplies by (1 + w): 1
  bool scale_embeddings = false;     // Gemma: the embeddings × √hidden
  int position_offset = 0;           // OPT: the learned table's row of position p is p + 2
  WindowRule windows = WindowRule::None;
  // The sliding layers rotate by the global base without the config's scaling (OLMo 3: YaRN on the
  // full-attention layers only). Gemma 3's sliding layers have a base of their own and no scaling too.
  bool unscaled_sliding_rope = false;
  // Llama 4: layer_types may say "chunked_attention" (its rotating layers) beside "full_attention".
  bool chunked_attention = false;
  // DeepSeek: multi-head latent attention, positions on a qk_rope_head_dim slice of each head only.
  bool latent_attention = false;
  // Gemma 4: full-attention layers with heads of their own (global_head_dim, and with
  // attention_k_eq_v their own key/value heads whose values are the keys' projection), proportional
  // RoPE on them, the last layers reusing earlier layers' keys and values, per-layer inputs, a
  // scalar per layer; its last layer is always full (as transformers forces it).
  bool layer_shapes = false;
  NormPlacement norm_placement = NormPlacement::Pre;
  OutputHead head = OutputHead::NextToken;
  Stacks stacks = Stacks::One;
  bool bidirectional = false;  // the (first) stack's self-attention sees every token: an encoder
  bool scaled_scores = true;   // q·k/√d_h; T5 leaves the scores unscaled
  MoeKind moe = MoeKind::None;
  ConfigKeys keys;
  ConfigDefaults defaults;
  std::vector<TensorSlot> tensors;         // the model's own, then one layer's (in saving order)
  // Alternative prefixes of every name (GPT-2 saves with and without "transformer.").
  std::vector<std::string> prefixes{""};
  // A multimodal wrapper's language model (Gemma3ForConditionalGeneration …): config.json's
  // text_config (or, in older files, the top level) over the text config class's defaults
  // (`text_defaults`, JSON), and its tensors' names renamed from the wrapper's (`renames`: a
  // name holding `first` is also found with it replaced by `second`). The vision tower and the
  // projector are never read.
  bool in_text_config = false;
  std::string text_defaults = "{}";
  std::vector<std::pair<std::string, std::string>> renames;
  std::string wrapper_note;  // what the design line says of it ("images are not run")

  const TensorSlot* slot(TensorRole role) const;  // null: the architecture has no such tensor
};

// A multimodal wrapper's language model (…ForConditionalGeneration): `text`'s row with the
// wrapper's classes and model types, its config in text_config over the text config class's
// `defaults` (JSON), and both namings of the wrapped tensors (language_model.model.* and
// model.language_model.*); images are not run.
Architecture wrapped_language_model(const Architecture& text, std::string name, std::string title, std::vector<std::string> classes,
                                    std::vector<std::string> model_types, std::string defaults);

// The families PosLab runs, for messages and the README.
std::string supported_families();

// Every name the table knows an embedding table by (each row's Embed slot under each prefix),
// Llama's first: what a model folder's embeddings are looked up by.
std::vector<std::string> embedding_tensor_names();

// The encoder and encoder–decoder rows (BERT, ModernBERT, T5), kept in their own file.
std::vector<Architecture> encoder_architectures();

// OLMo 2 and the multimodal wrappers (Gemma 3, Mistral 3, Qwen2.5-VL, Qwen3-VL), kept in their own file.
std::vector<Architecture> wrapper_architectures(const Architecture& gemma3, const Architecture& mistral, const Architecture& qwen2,
                                                const Architecture& qwen3, const Architecture& llama);
// The mixtures of experts (Qwen3-MoE, Mixtral).
std::vector<Architecture> moe_architectures(const Architecture& qwen3, const Architecture& mistral);
// The positional designs of 2025–26: GPT-OSS (learned sinks), Llama 4 (NoPE layers, chunks,
// temperature tuning), text model and wrapper, DeepSeek-V2 / V3 (decoupled RoPE), and Gemma 4
// (proportional RoPE on wider full-attention heads), text model and wrapper.
std::vector<Architecture> design_architectures(const Architecture& llama);

// Every architecture PosLab runs.
const std::vector<Architecture>& architectures();
// The row named `name` ("poslab": the models PosLab trains); it must exist.
const Architecture& architecture_named(std::string_view name);

// The architecture named by config.json's "architectures" list or, failing that, "model_type".
// Anything else is an error naming what was asked for and what is supported.
Result<const Architecture*> find_architecture(const std::vector<std::string>& classes, const std::string& model_type);

// `pattern` with "{L}" replaced by the layer index (and "{E}" by the expert's).
std::string layer_tensor(const std::string& pattern, int layer, int expert = 0);

// "rope", "learned", "sinusoidal", "none", "alibi", "t5": as PosLab's config.json key
// poslab_positions spells them.
std::string_view to_string(PositionKind p);

}  // namespace poslab
