#include "core/model/model_run.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/model/tasks.hpp"

namespace poslab {

bool positions_off(const ModelSettings& m, PositionKind model_positions) {
  switch (model_positions) {
    case PositionKind::Alibi: return m.bias != BiasKind::Alibi;
    case PositionKind::T5: return m.bias != BiasKind::T5;
    case PositionKind::None: return false;
    default: return m.encoding == EncodingKind::None;
  }
}

void set_positions_off(ModelSettings& m, PositionKind model_positions, bool off) {
  switch (model_positions) {
    case PositionKind::Alibi: m.bias = off ? BiasKind::None : BiasKind::Alibi; break;
    case PositionKind::T5: m.bias = off ? BiasKind::None : BiasKind::T5; break;
    case PositionKind::None: break;
    case PositionKind::Learned: m.encoding = off ? EncodingKind::None : EncodingKind::Learned; break;
    case PositionKind::Sinusoidal: m.encoding = off ? EncodingKind::None : EncodingKind::Sinusoidal; break;
    case PositionKind::Rope: m.encoding = off ? EncodingKind::None : EncodingKind::Rope; break;
  }
}

void reset_model_interventions(State& state, const TransformerConfig& c) {
  ModelSettings& m = state.model;
  const ModelSettings defaults;
  m.base = c.rope_theta;
  m.scaling = c.scaling;
  m.rope_style = c.rope_style;
  set_positions_off(m, c.positions, false);
  m.position_shift = 0;
  m.rotary_dim = 0;
  m.window = defaults.window;
  m.local_base = defaults.local_base;
  m.rope_factors = defaults.rope_factors;
  m.alibi_scale = defaults.alibi_scale;
  m.drop_pairs = defaults.drop_pairs;
  m.sinks = defaults.sinks;
  m.chunk = defaults.chunk;
  m.streaming = defaults.streaming;
  state.view.permutation = 0;
}

void copy_model_interventions(const State& from, State& to) {
  const ModelSettings& f = from.model;
  ModelSettings& t = to.model;
  t.encoding = f.encoding;
  t.bias = f.bias;
  t.base = f.base;
  t.scaling = f.scaling;
  t.rope_style = f.rope_style;
  t.rotary_dim = f.rotary_dim;
  t.position_shift = f.position_shift;
  t.window = f.window;
  t.local_base = f.local_base;
  t.rope_factors = f.rope_factors;
  t.alibi_scale = f.alibi_scale;
  t.drop_pairs = f.drop_pairs;
  t.sinks = f.sinks;
  t.chunk = f.chunk;
  t.streaming = f.streaming;
  to.view.permutation = from.view.permutation;
}

ModelRequest model_request(const State& state, const TransformerConfig& config) {
  const ModelSettings& m = state.model;
  ModelRequest r;
  r.sentence = m.sentence;
  r.stack = config.encoder_decoder() ? m.stack : ModelStack::Encoder;
  r.target = config.encoder_decoder() ? m.target : std::string();
  const int layers = r.stack == ModelStack::Encoder ? config.layers : config.decoder_layers;
  r.layer = std::clamp(state.view.layer, 0, layers - 1);
  r.shuffle_seed = static_cast<std::uint64_t>(std::max(0, state.view.permutation));
  r.precision = state.precision;
  PositionIntervention& v = r.intervention;
  v.positions_off = positions_off(m, config.positions);
  if (config.positions == PositionKind::Rope) {
    if (m.base != config.rope_theta) v.rope_theta = m.base;
    if (!(m.scaling == config.scaling)) v.scaling = m.scaling;
    if (m.rope_style != config.rope_style) v.pairing = m.rope_style;
    if (m.rotary_dim != 0 && m.rotary_dim != config.own_rotary_dim()) v.rotary_dim = m.rotary_dim;
    if (m.local_base > 0.0) v.local_base = m.local_base;
    if (m.rope_factors != LongRopeSet::ByLength) v.rope_factors = m.rope_factors;
    if (m.drop_pairs.fraction > 0.0) v.drop_pairs = m.drop_pairs;
  }
  if (m.window >= 0) v.window = m.window;
  if (m.chunk >= 0) v.chunk = m.chunk;
  v.streaming = m.streaming;
  v.sinks_off = config.learned_sinks && !m.sinks;
  if (config.positions == PositionKind::Alibi && m.alibi_scale != 1.0) v.alibi_scale = m.alibi_scale;
  v.position_shift = m.position_shift;
  return r;
}

std::string ModelRun::describe() const {
  std::string s = poslab::describe(request.intervention);
  if (window_alone_loss && std::isfinite(*window_alone_loss)) {
    char loss[64];
    std::snprintf(loss, sizeof loss, " (the last %d alone: loss %.4f)", request.intervention.streaming.window, *window_alone_loss);
    s += loss;
  }
  if (request.shuffle_seed != 0) s = (s == "unchanged" ? "" : s + " · ") + "tokens shuffled (seed " + std::to_string(request.shuffle_seed) + ")";
  return s;
}

namespace {

std::vector<std::string> run_notes(const TransformerConfig& c, int tokens, int shift, const std::vector<std::string>& unknown) {
  std::vector<std::string> notes;
  if (!unknown.empty()) {
    std::string list;
    for (const std::string& u : unknown) list += (list.empty() ? "\"" : ", \"") + u + "\"";
    notes.push_back("the tokenizer has no token for " + list + ": left out of the sentence");
  }
  const int last = tokens + std::max(0, shift);
  // A task's length counts symbols (copy) or pairs (recall), not tokens: its sequences are
  // sequence_tokens long, plus the last token, which training only predicted.
  const auto kind = c.training ? parse_task_kind(c.training->task) : Result<TaskKind>(Error{""});
  const int trained = kind ? sequence_tokens(Task{*kind}, c.training->train_length) + 1 : 0;
  if (c.training) {  // its training length is what it knows, whatever max_position_embeddings says
    if (kind && last > trained)
      notes.push_back(std::to_string(last) + " positions, beyond the " + std::to_string(trained) + " the model was trained on (" +
                      c.training->task + " of length " + std::to_string(c.training->train_length) + ")");
  } else if (c.positions != PositionKind::Learned && last > c.max_positions)
    notes.push_back(std::to_string(last) + " positions, beyond the model's max_position_embeddings (" +
                    std::to_string(c.max_positions) + ")");
  return notes;
}

}  // namespace

Result<ModelRun> run_model(const Checkpoint& model, const ModelRequest& request, const RunControl& control) {
  std::vector<std::string> unknown;
  auto ids = model_tokens(model, request.sentence, &unknown);
  if (!ids) return Error{ids.error()};
  const bool two = request.changes();
  // A model PosLab trained is scored as its task scores it (a perfect copy model has no business
  // with the prompt's perplexity).
  std::vector<std::uint8_t> scored;
  std::string scored_what;
  if (const auto& record = model.config().training)
    if (auto kind = parse_task_kind(record->task)) {
      const Task task{*kind, model.config().vocab - 1};
      scored = scored_predictions(task, *ids);
      scored_what = scored_description(task);
    }
  // T5's decoder reads its start token, then the target's tokens (with the </s> its tokenizer adds).
  std::vector<int> decoder_ids;
  if (model.config().encoder_decoder()) {
    decoder_ids.push_back(model.config().decoder_start);
    if (!request.target.empty()) {
      auto target = model_tokens(model, request.target, &unknown);
      if (!target) return Error{"the target: " + target.error()};
      decoder_ids.insert(decoder_ids.end(), target->begin(), target->end());
    }
  }
  const auto options = [&](int pass) {
    ForwardOptions o;
    o.stack = request.stack;
    o.all_stacks = model.config().encoder_decoder();  // the heads figure shows T5's three together
    o.decoder_ids = decoder_ids;
    o.scored = scored;
    o.scored_description = scored_what;
    if (request.keep_layer) o.keep_layers = {request.layer};
    o.summarize_all_layers = request.all_layer_summaries;
    o.top_activations = request.top_activations;
    o.keep_qk = request.keep_qk;
    o.keep_scores = request.keep_scores;
    o.top_k = request.top_k;
    o.precision = request.precision;
    o.backend = control.backend;
    o.check_against_cpu = control.check_against_cpu;
    o.cancel = control.cancel;
    if (control.progress) o.progress = [&control, pass, two](double f) { control.progress(two ? (pass + f) / 2.0 : f); };
    return o;
  };
  ModelRun run;
  run.request = request;
  run.notes = run_notes(model.config(), static_cast<int>(ids->size()), request.intervention.position_shift, unknown);
  auto unchanged = run_forward(model, *ids, options(0));
  if (!unchanged) return Error{unchanged.error()};
  run.unchanged = std::move(*unchanged);
  if (two) {
    ForwardOptions o = options(1);
    o.intervention = request.intervention;
    const std::vector<int> changed_ids = request.shuffle_seed ? shuffle_tokens(model, *ids, request.shuffle_seed) : *ids;
    auto changed = run_forward(model, changed_ids, o);
    if (!changed) return Error{changed.error()};
    run.changed = std::move(*changed);
    if (request.intervention.streaming.on() && request.intervention.streaming.sink > 0) {
      o.intervention.streaming.sink = 0;
      o.keep_layers.clear();
      o.summarize_all_layers = false;
      o.top_activations = 0;
      o.progress = nullptr;
      auto window = run_forward(model, changed_ids, o);
      if (!window) return Error{window.error()};
      run.window_alone_loss = window->loss;
    }
  }
  return run;
}

std::string score_formula(const TransformerConfig& c, const LayerAttention& a) {
  char scale[48] = "/√d_h";  // the default: 1/√head_dim
  if (c.query_scale == 1.0) scale[0] = '\0';  // T5: unscaled
  else if (c.query_scale > 0.0) std::snprintf(scale, sizeof scale, "/√%g", 1.0 / (c.query_scale * c.query_scale));
  std::string s = std::string("q·k") + scale;
  if (a.position_bias) s += c.positions == PositionKind::Alibi ? " − m·(i − j)" : " + b(bucket)";
  if (c.attn_softcap > 0.0) {
    char cap[32];
    std::snprintf(cap, sizeof cap, "%g", c.attn_softcap);
    s = std::string(cap) + "·tanh((" + s + ") / " + cap + ")";
  }
  return s;
}

Results layer_results(const ForwardResult& f, int layer, const TransformerConfig& config, const std::string& what) {
  Results r;
  for (const std::string& t : f.query_tokens()) r.tokens.push_back(Token{t, -1, false, false});
  for (const std::string& t : f.key_tokens()) r.key_tokens.push_back(Token{t, -1, false, false});
  const int Tq = static_cast<int>(r.tokens.size()), Tk = static_cast<int>(r.key_tokens.size());
  const Eigen::Index width = static_cast<Eigen::Index>(config.heads) * config.shape(f.stack == ModelStack::Encoder ? layer : -1).head_dim;
  r.problem.Xq = Matrix::Zero(Tq, width);
  r.problem.Xkv = Matrix::Zero(Tk, width);
  r.problem.heads = config.heads;
  r.problem.causal = f.stack == ModelStack::Decoder || (f.stack == ModelStack::Encoder && !config.bidirectional());
  r.problem.key_valid.assign(static_cast<std::size_t>(Tk), 1);
  if (const LayerAttention* a = f.layer(layer)) {
    r.problem.causal = a->causal;
    r.problem.window = a->window;
    r.problem.chunk = a->chunk;
    r.problem.streaming = a->streaming;
    r.attention.scores = a->scores;
    r.attention.weights = a->weights;
    r.attention.sink_share = a->sink_share;
    r.attention.score_content = a->score_content;
    r.attention.score_position = a->score_position;
    r.score_formula = score_formula(config, *a);
  }
  r.backend = f.backend;
  r.attention_ms = f.milliseconds;
  r.max_diff_vs_cpu = f.max_diff_vs_cpu;
  const std::string stack = config.encoder_decoder() ? std::string(to_string(f.stack)) + " " : "";
  r.description = describe_model(config) + " · " + stack + "layer " + std::to_string(layer) + " · " + what;
  return r;
}

std::string describe_model(const TransformerConfig& c) {
  std::string s = c.arch->name + " · " + std::to_string(c.layers) + " layers · " + std::to_string(c.heads) + " heads";
  if (c.kv_heads != c.heads) s += " (" + std::to_string(c.kv_heads) + " key/value)";
  s += " · d_h " + std::to_string(c.head_dim);
  if (c.global_head_dim > 0 && c.global_head_dim != c.head_dim) s += " (full layers " + std::to_string(c.global_head_dim) + ")";
  if (c.positions == PositionKind::Learned) return s + " · learned absolute positions";
  if (c.positions == PositionKind::Sinusoidal) return s + " · sinusoidal positions added";
  if (c.positions == PositionKind::None) return s + " · no positions (NoPE)";
  if (c.positions == PositionKind::Alibi) return s + " · ALiBi";
  if (c.positions == PositionKind::T5) return s + " · T5 relative bias";
  char theta[64];
  std::snprintf(theta, sizeof theta, " · RoPE θ %g", c.rope_theta);
  s += theta;
  if (c.scaling.type != RopeScalingType::None) {
    char scaling[64];
    std::snprintf(scaling, sizeof scaling, ", %s ×%g", std::string(to_string(c.scaling.type)).c_str(), c.scaling.factor);
    s += scaling;
  }
  return s + (c.rope_style == RopeStyle::Half ? " (rotate-half pairs)" : " (interleaved pairs)");
}

}  // namespace poslab
