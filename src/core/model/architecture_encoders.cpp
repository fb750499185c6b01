// The encoder and encoder–decoder rows of the architecture table: BERT (learned absolute
// positions, post-LN), ModernBERT (RoPE with a global and a local base, local windows both ways)
// and T5 (relative buckets in each stack, an encoder and a decoder with cross-attention). Their
// names are those of Hugging Face's save_pretrained; docs/ARCHITECTURE.md says how a row is read.
#include "core/model/architecture.hpp"

namespace poslab {

namespace {

using R = TensorRole;

std::vector<TensorSlot> bert_tensors() {
  const std::string l = "encoder.layer.{L}.";
  return {
      {R::Embed, "embeddings.word_embeddings.weight", Dim::Vocab, Dim::Hidden},
      {R::Positions, "embeddings.position_embeddings.weight", Dim::Positions, Dim::Hidden, Need::IfLearnedPositions},
      {R::TokenTypes, "embeddings.token_type_embeddings.weight", Dim::TokenTypes, Dim::Hidden, Need::IfPresent},
      {R::EmbedNorm, "embeddings.LayerNorm.weight", Dim::Hidden, Dim::None},
      {R::EmbedNormBias, "embeddings.LayerNorm.bias", Dim::Hidden, Dim::None},
      {R::Q, l + "attention.self.query.weight", Dim::QueryWidth, Dim::Hidden},
      {R::QBias, l + "attention.self.query.bias", Dim::QueryWidth, Dim::None},
      {R::K, l + "attention.self.key.weight", Dim::KvWidth, Dim::Hidden},
      {R::KBias, l + "attention.self.key.bias", Dim::KvWidth, Dim::None},
      {R::V, l + "attention.self.value.weight", Dim::KvWidth, Dim::Hidden},
      {R::VBias, l + "attention.self.value.bias", Dim::KvWidth, Dim::None},
      {R::O, l + "attention.output.dense.weight", Dim::Hidden, Dim::QueryWidth},
      {R::OBias, l + "attention.output.dense.bias", Dim::Hidden, Dim::None},
      {R::AttnNorm, l + "attention.output.LayerNorm.weight", Dim::Hidden, Dim::None},
      {R::AttnNormBias, l + "attention.output.LayerNorm.bias", Dim::Hidden, Dim::None},
      {R::Up, l + "intermediate.dense.weight", Dim::Ffn, Dim::Hidden},
      {R::UpBias, l + "intermediate.dense.bias", Dim::Ffn, Dim::None},
      {R::Down, l + "output.dense.weight", Dim::Hidden, Dim::Ffn},
      {R::DownBias, l + "output.dense.bias", Dim::Hidden, Dim::None},
      {R::MlpNorm, l + "output.LayerNorm.weight", Dim::Hidden, Dim::None},
      {R::MlpNormBias, l + "output.LayerNorm.bias", Dim::Hidden, Dim::None},
      {R::HeadDense, "cls.predictions.transform.dense.weight", Dim::Hidden, Dim::Hidden, Need::IfPresent, true},
      {R::HeadDenseBias, "cls.predictions.transform.dense.bias", Dim::Hidden, Dim::None, Need::IfPresent, true},
      {R::HeadNorm, "cls.predictions.transform.LayerNorm.weight", Dim::Hidden, Dim::None, Need::IfPresent, true},
      {R::HeadNormBias, "cls.predictions.transform.LayerNorm.bias", Dim::Hidden, Dim::None, Need::IfPresent, true},
      {R::LmHeadBias, "cls.predictions.bias", Dim::Vocab, Dim::None, Need::IfPresent, true},
      {R::LmHead, "cls.predictions.decoder.weight", Dim::Vocab, Dim::Hidden, Need::IfUntied, true},
  };
}

// BERT: word + learned position + token-type (segment 0) embeddings and their LayerNorm; post-LN
// layers (x = LN(x + attn(x)); x = LN(x + MLP(x))); every token sees every other; the masked-LM
// head (dense, GELU, LayerNorm, the tied embeddings plus a bias). BertModel saves without "bert.".
Architecture bert() {
  Architecture a;
  a.name = "bert";
  a.title = "BERT";
  a.classes = {"BertForMaskedLM", "BertForPreTraining", "BertModel"};
  a.model_types = {"bert"};
  a.norm = NormKind::Layer;
  a.mlp = MlpKind::Plain;
  a.positions = PositionKind::Learned;
  a.norm_placement = NormPlacement::Post;
  a.head = OutputHead::MaskedLm;
  a.bidirectional = true;
  a.defaults.activation = "gelu";
  a.defaults.tie_embeddings = true;
  a.defaults.max_positions = 512;
  a.tensors = bert_tensors();
  a.prefixes = {"bert.", ""};
  return a;
}

std::vector<TensorSlot> modernbert_tensors() {
  const std::string l = "model.layers.{L}.";
  return {
      {R::Embed, "model.embeddings.tok_embeddings.weight", Dim::Vocab, Dim::Hidden},
      {R::EmbedNorm, "model.embeddings.norm.weight", Dim::Hidden, Dim::None},
      {R::EmbedNormBias, "model.embeddings.norm.bias", Dim::Hidden, Dim::None, Need::IfPresent},
      {R::AttnNorm, l + "attn_norm.weight", Dim::Hidden, Dim::None, Need::IfPresent},  // layer 0: none
      {R::AttnNormBias, l + "attn_norm.bias", Dim::Hidden, Dim::None, Need::IfPresent},
      {R::Qkv, l + "attn.Wqkv.weight", Dim::FusedQkv, Dim::Hidden},
      {R::QkvBias, l + "attn.Wqkv.bias", Dim::FusedQkv, Dim::None, Need::IfAttentionBias},
      {R::O, l + "attn.Wo.weight", Dim::Hidden, Dim::QueryWidth},
      {R::OBias, l + "attn.Wo.bias", Dim::Hidden, Dim::None, Need::IfAttentionBias},
      {R::MlpNorm, l + "mlp_norm.weight", Dim::Hidden, Dim::None},
      {R::MlpNormBias, l + "mlp_norm.bias", Dim::Hidden, Dim::None, Need::IfPresent},
      {R::GateUp, l + "mlp.Wi.weight", Dim::FusedFfn, Dim::Hidden},
      {R::Down, l + "mlp.Wo.weight", Dim::Hidden, Dim::Ffn},
      {R::FinalNorm, "model.final_norm.weight", Dim::Hidden, Dim::None, Need::Always, true},
      {R::FinalNormBias, "model.final_norm.bias", Dim::Hidden, Dim::None, Need::IfPresent, true},
      {R::HeadDense, "head.dense.weight", Dim::Hidden, Dim::Hidden, Need::IfPresent, true},
      {R::HeadDenseBias, "head.dense.bias", Dim::Hidden, Dim::None, Need::IfPresent, true},
      {R::HeadNorm, "head.norm.weight", Dim::Hidden, Dim::None, Need::IfPresent, true},
      {R::HeadNormBias, "head.norm.bias", Dim::Hidden, Dim::None, Need::IfPresent, true},
      {R::LmHeadBias, "decoder.bias", Dim::Vocab, Dim::None, Need::IfPresent, true},
      {R::LmHead, "decoder.weight", Dim::Vocab, Dim::Hidden, Need::IfUntied, true},
  };
}

// ModernBERT: pre-LN LayerNorms without biases (the first layer's attention norm is the
// identity), fused q/k/v, GeGLU (act(first half) ⊙ second half), rotate-half RoPE at
// global_rope_theta on layers 0, n, 2n … and at local_rope_theta on the others, whose window of
// local_attention tokens is centred on the query (|i − j| ≤ local_attention / 2).
Architecture modernbert() {
  Architecture a;
  a.name = "modernbert";
  a.title = "ModernBERT";
  a.classes = {"ModernBertForMaskedLM", "ModernBertModel"};
  a.model_types = {"modernbert"};
  a.norm = NormKind::Layer;
  a.mlp = MlpKind::Gated;
  a.positions = PositionKind::Rope;
  a.windows = WindowRule::GlobalEveryN;
  a.keys.window_pattern = {"global_attn_every_n_layers"};
  a.defaults.window_pattern = 3;
  a.head = OutputHead::MaskedLm;
  a.bidirectional = true;
  a.keys.norm_eps = {"norm_eps"};
  a.keys.rope_theta = {"global_rope_theta"};
  a.keys.local_rope_theta = {"local_rope_theta"};
  a.keys.window = {"local_attention"};
  a.keys.activation = "hidden_activation";
  a.keys.head_activation = "classifier_activation";
  a.defaults.activation = "gelu";
  a.defaults.tie_embeddings = true;
  a.defaults.max_positions = 8192;
  a.defaults.rope_theta = 160000.0;
  a.tensors = modernbert_tensors();
  return a;
}

// One T5 layer's tensors in `stack` ("encoder" or "decoder"); the decoder's has cross-attention
// (layer.1) before its MLP (layer.2).
std::vector<TensorSlot> t5_layer(const std::string& stack) {
  const bool dec = stack == "decoder";
  const std::string b = stack + ".block.{L}.layer.";
  const std::string mlp = b + (dec ? "2." : "1.");
  std::vector<TensorSlot> s = {
      {R::AttnNorm, b + "0.layer_norm.weight", Dim::Hidden, Dim::None},
      {R::Q, b + "0.SelfAttention.q.weight", Dim::QueryWidth, Dim::Hidden},
      {R::K, b + "0.SelfAttention.k.weight", Dim::KvWidth, Dim::Hidden},
      {R::V, b + "0.SelfAttention.v.weight", Dim::KvWidth, Dim::Hidden},
      {R::O, b + "0.SelfAttention.o.weight", Dim::Hidden, Dim::QueryWidth},
  };
  if (dec)
    s.insert(s.end(), {{R::CrossNorm, b + "1.layer_norm.weight", Dim::Hidden, Dim::None},
                       {R::CrossQ, b + "1.EncDecAttention.q.weight", Dim::QueryWidth, Dim::Hidden},
                       {R::CrossK, b + "1.EncDecAttention.k.weight", Dim::KvWidth, Dim::Hidden},
                       {R::CrossV, b + "1.EncDecAttention.v.weight", Dim::KvWidth, Dim::Hidden},
                       {R::CrossO, b + "1.EncDecAttention.o.weight", Dim::Hidden, Dim::QueryWidth}});
  s.insert(s.end(), {{R::MlpNorm, mlp + "layer_norm.weight", Dim::Hidden, Dim::None},
                     {R::Up, mlp + "DenseReluDense.wi.weight", Dim::Ffn, Dim::Hidden, Need::IfPlainMlp},
                     {R::Gate, mlp + "DenseReluDense.wi_0.weight", Dim::Ffn, Dim::Hidden, Need::IfGatedMlp},
                     {R::Up, mlp + "DenseReluDense.wi_1.weight", Dim::Ffn, Dim::Hidden, Need::IfGatedMlp},
                     {R::Down, mlp + "DenseReluDense.wo.weight", Dim::Hidden, Dim::Ffn}});
  for (TensorSlot& t : s) t.decoder = dec;
  return s;
}

// T5 and Flan-T5 (and mT5): an encoder and a decoder of RMS-normed (no mean, no bias) pre-LN
// layers with unscaled scores; each stack's learned bias per relative-position bucket is read in
// its first layer and shared by its layers (bidirectional buckets in the encoder, causal in the
// decoder); cross-attention has no positions. ReLU or gated GELU by feed_forward_proj; a tied
// LM head scales the decoder's output by d_model^−½.
Architecture t5() {
  Architecture a;
  a.name = "t5";
  a.title = "T5";
  a.classes = {"T5ForConditionalGeneration", "MT5ForConditionalGeneration"};
  a.model_types = {"t5", "mt5"};
  a.norm = NormKind::Rms;
  a.mlp = MlpKind::Plain;
  a.positions = PositionKind::T5;
  a.stacks = Stacks::EncoderDecoder;
  a.bidirectional = true;
  a.scaled_scores = false;
  a.keys.hidden = {"d_model"};
  a.keys.layers = {"num_layers"};
  a.keys.heads = {"num_heads"};
  a.keys.intermediate = {"d_ff"};
  a.keys.head_dim = {"d_kv"};
  a.keys.norm_eps = {"layer_norm_epsilon"};
  a.keys.decoder_layers = {"num_decoder_layers"};
  a.keys.buckets = {"relative_attention_num_buckets"};
  a.keys.max_distance = {"relative_attention_max_distance"};
  a.keys.activation = "feed_forward_proj";
  a.defaults.activation = "relu";
  a.defaults.tie_embeddings = true;
  a.defaults.max_positions = 512;
  a.tensors = {
      {R::Embed, "shared.weight", Dim::Vocab, Dim::Hidden},
      {R::RelativeBias, "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight", Dim::Buckets, Dim::Heads},
      {R::DecoderRelativeBias, "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight", Dim::Buckets, Dim::Heads},
  };
  for (const char* stack : {"encoder", "decoder"}) {
    const auto layer = t5_layer(stack);
    a.tensors.insert(a.tensors.end(), layer.begin(), layer.end());
  }
  a.tensors.insert(a.tensors.end(), {{R::FinalNorm, "encoder.final_layer_norm.weight", Dim::Hidden, Dim::None, Need::Always, true},
                                     {R::DecoderFinalNorm, "decoder.final_layer_norm.weight", Dim::Hidden, Dim::None, Need::Always, true},
                                     {R::LmHead, "lm_head.weight", Dim::Vocab, Dim::Hidden, Need::IfUntied, true}});
  return a;
}

}  // namespace

std::vector<Architecture> encoder_architectures() { return {bert(), modernbert(), t5()}; }

}  // namespace poslab
