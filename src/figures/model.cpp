#include "figures/model.hpp"

#include "figures/mrope.hpp"


#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/export_data.hpp"
#include "core/model/position_design.hpp"
#include "figures/attention.hpp"
#include "figures/buckets.hpp"
#include "figures/cross_lines.hpp"
#include "figures/fit.hpp"
#include "base/csv.hpp"
#include "plot/lines.hpp"

namespace poslab {

namespace {

constexpr plot::Color kInk{0.10f, 0.10f, 0.12f, 1.0f}, kMuted{0.38f, 0.38f, 0.42f, 1.0f}, kWhite{1, 1, 1, 1};
constexpr plot::Color kSinkColor{0.80f, 0.30f, 0.15f, 1.0f};
constexpr plot::Color kInductionColor{0.00f, 0.55f, 0.40f, 1.0f};
constexpr float kMargin = 16.0f, kTitle = 16.0f, kSmall = 11.0f;

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// One head's thumbnail of `values` (a layer's T × T matrix) with the layer's masks, its frame and
// its "head h" label above; returns the heatmap's box.
plot::Box add_thumbnail(plot::Figure& fig, const LayerAttention& a, const Matrix& values, int h, float x0, float y0, float side,
                        plot::Colormap colormap, float vmin, float vmax) {
  plot::HeatmapSpec spec;
  spec.values = &values;
  spec.masked = [&a](int i, int j) { return a.masked(i, j); };
  spec.colormap = colormap;
  spec.vmin = vmin;
  spec.vmax = vmax;
  // No more texels than the thumbnail has pixels at the largest export scale (8): a 32-head layer
  // at 8,192 tokens would otherwise draw 8.6 GB of images for thumbnails of a few hundred pixels.
  spec.max_texels = static_cast<int>(std::ceil(side * 8.0f));
  const plot::Box box{x0, y0 + 14.0f, x0 + side, y0 + 14.0f + side};
  fig.image(box, fig.add_image(plot::heatmap_cells(spec)));
  fig.rect(box, {0, 0, 0, 0}, kMuted, 1.0f);
  fig.text({x0, y0}, "head " + std::to_string(h), kSmall, kInk);
  return box;
}

// One grid of thumbnails for a kept layer's attention (none: only the title), starting at y;
// each thumbnail's place is added to `thumbs` as `stack`'s, of the changed model when `changed`.
float add_heads_grid(plot::Figure& fig, const LayerAttention* a, float y, float side, const std::string& title,
                     std::vector<HeadThumb>& thumbs, bool changed) {
  fig.text({kMargin, y}, title, 13.0f, kInk);
  // A long caption (the changed model's interventions) widens the figure rather than run past it.
  fig.width = std::max(fig.width, 2.0f * kMargin + plot::figure_text_measure().width(title, 13.0f));
  y += 22.0f;
  if (!a) return y;
  const int heads = static_cast<int>(a->weights.size());
  const int per_row = std::min(8, heads);
  const float cell_w = side + 14.0f, cell_h = side + 48.0f;
  for (int h = 0; h < heads; ++h) {
    const float x0 = kMargin + static_cast<float>(h % per_row) * cell_w;
    const float y0 = y + static_cast<float>(h / per_row) * cell_h;
    const Matrix& A = a->weights[static_cast<std::size_t>(h)];
    const plot::Box box = add_thumbnail(fig, *a, A, h, x0, y0, side, plot::Colormap::Viridis, 0.0f, std::max(A.maxCoeff(), 1e-6f));
    thumbs.push_back({box, h, a->stack, changed});
    if (a->heads.size() <= static_cast<std::size_t>(h)) continue;
    const HeadSummary& s = a->heads[static_cast<std::size_t>(h)];
    if (a->cross) {  // two texts: no distance, no previous token, no induction between them
      fig.text({x0, box.y1 + 3.0f}, "sink " + fmt("%.2f", s.sink), kSmall, s.sink > 0.5 ? kSinkColor : kMuted);
      continue;
    }
    fig.text({x0, box.y1 + 3.0f}, "sink " + fmt("%.2f", s.sink) + " · prev " + fmt("%.2f", s.previous_token), kSmall,
             s.sink > 0.5 ? kSinkColor : kMuted);
    // Whole tokens from 100 on: "distance 2048.4" of a long sentence ran into the next thumbnail.
    const char* distance = std::abs(s.mean_distance) >= 100.0 ? "%.0f" : "%.1f";
    fig.text({x0, box.y1 + 17.0f}, "distance " + fmt(distance, s.mean_distance) + " · induct " + fmt("%.2f", s.induction), kSmall,
             s.induction > 0.5 ? kInductionColor : kMuted);
    // A head that mostly looks where the repeated token went next: framed so it is found at a glance.
    if (s.induction > 0.5) fig.rect({box.x0 - 2.0f, box.y0 - 2.0f, box.x1 + 2.0f, box.y1 + 2.0f}, {0, 0, 0, 0}, kInductionColor, 2.0f);
  }
  const int rows = (heads + per_row - 1) / per_row;
  fig.width = std::max(fig.width, kMargin * 2 + static_cast<float>(per_row) * cell_w);
  return y + static_cast<float>(rows) * cell_h + 8.0f;
}

// What a stack's grid is called, with its mask: "encoder self-attention (every token sees every token)".
std::string stack_grid_title(ModelStack stack, const TransformerConfig& config) {
  if (stack == ModelStack::Cross) return "cross-attention (decoder rows, encoder columns)";
  if (stack == ModelStack::Decoder) return "decoder self-attention (causal)";
  return std::string(config.encoder_decoder() ? "encoder self-attention" : "attention weights") +
         (config.bidirectional() ? " (every token sees every token)" : " (causal)");
}

// The unchanged model's grid of `stack` and, with a change, the changed model's below it; the
// loss (of the whole model) in the first stack's titles only.
float add_stack_grids(HeadsFigure& out, const ModelRun& run, const TransformerConfig& config, ModelStack stack, float y, float side) {
  const int layer = run.request.layer;
  const bool t5 = config.encoder_decoder();
  const std::string of = t5 ? stack_grid_title(stack, config) : "";
  const auto loss = [&](const ForwardResult& f) { return t5 && stack != ModelStack::Encoder ? std::string() : loss_text(f); };
  const auto joined = [](std::vector<std::string> parts) {
    std::string s;
    for (const std::string& p : parts)
      if (!p.empty()) s += (s.empty() ? "" : " · ") + p;
    return s;
  };
  y = add_heads_grid(out.figure, run.unchanged.layer(layer, stack), y, side,
                     joined({of, run.changed ? "unchanged" : "", loss(run.unchanged)}), out.thumbs, false);
  if (run.changed)
    y = add_heads_grid(out.figure, run.changed->layer(layer, stack), y + 8.0f, side, joined({of, run.describe(), loss(*run.changed)}),
                       out.thumbs, true);
  return y;
}

// T5: the mean cross-attention as lines between the two texts, the changed model's beside.
plot::Figure cross_lines_panels(const ModelRun& run, int layer) {
  plot::Figure fig;
  const auto add = [&](const ForwardResult& f, const std::string& what) {
    if (const LayerAttention* a = f.layer(layer, ModelStack::Cross))
      fig.append_right(cross_lines_figure(*a, f.decoder_tokens, f.tokens, -1, "Which input tokens each output token reads · " + what));
  };
  add(run.unchanged, run.changed ? "unchanged" : "layer " + std::to_string(layer));
  if (run.changed) add(*run.changed, run.describe());
  return fig;
}

// DeepSeek: each head's position part of the scores, q_pe·k_pe (with the softmax scale), alone —
// the only place its positions enter — on a diverging scale symmetric about 0 for the layer.
float add_position_part_grid(plot::Figure& fig, const LayerAttention& a, float y, float side) {
  float extent = 1e-6f;
  for (const Matrix& m : a.score_position)
    for (Eigen::Index k = 0; k < m.size(); ++k)
      if (std::isfinite(m.data()[k])) extent = std::max(extent, std::abs(m.data()[k]));
  const std::string title = "The position part of each head's scores, q_pe·k_pe (RoPE's slice; the content part q_nope·k_nope is the rest) · "
                            "blue −" + fmt("%.3g", extent) + " to red +" + fmt("%.3g", extent);
  fig.text({kMargin, y}, title, 13.0f, kInk);
  fig.width = std::max(fig.width, 2.0f * kMargin + plot::figure_text_measure().width(title, 13.0f));
  y += 22.0f;
  const int heads = static_cast<int>(a.score_position.size()), per_row = std::min(8, heads);
  const float cell_w = side + 14.0f, cell_h = side + 22.0f;
  for (int h = 0; h < heads; ++h) {
    const float x0 = kMargin + static_cast<float>(h % per_row) * cell_w, y0 = y + static_cast<float>(h / per_row) * cell_h;
    add_thumbnail(fig, a, a.score_position[static_cast<std::size_t>(h)], h, x0, y0, side, plot::Colormap::Diverging, -extent, extent);
  }
  fig.width = std::max(fig.width, kMargin * 2 + static_cast<float>(per_row) * cell_w);
  return y + static_cast<float>((heads + per_row - 1) / per_row) * cell_h + 8.0f;
}

// Llama 4's NoPE layer: the factor on its queries against the position, from 0 to four times
// floor_scale (a sentence shorter than floor_scale sees 1 throughout), the sentence's span marked.
plot::Figure temperature_figure(const TransformerConfig& config, int layer, int tokens, float width) {
  plot::LinePlotSpec spec;
  spec.title = "Layer " + std::to_string(layer) + " has no RoPE: its queries are scaled by a temperature that grows with the position";
  spec.subtitle = "1 + " + fmt("%g", config.attn_scale) + "·ln(floor((p + 1) / " + fmt("%g", config.floor_scale) +
                  ") + 1) (Llama 4's attn_temperature_tuning) · the sentence's " + std::to_string(tokens) + " tokens dashed";
  spec.x_label = "position p";
  spec.y_label = "query × this";
  spec.width = width;
  spec.height = 200.0f;
  plot::Series s{"temperature", {}, {}, plot::series_color(0)};
  s.markers = false;
  // Every position up to 4·floor_scale (a step at each multiple), or 2,000 of them spread evenly.
  const long long last = std::max<long long>(tokens, static_cast<long long>(4.0 * config.floor_scale));
  const long long samples = std::min<long long>(last, 2000);
  for (long long k = 0; k <= samples; ++k) {
    const int p = static_cast<int>(last * k / samples);
    s.x.push_back(p), s.y.push_back(query_temperature(config, p));
  }
  spec.series.push_back(std::move(s));
  spec.marks.push_back({static_cast<double>(tokens - 1), "the sentence's last token", kMuted});
  return plot::build_line_plot(spec, plot::figure_text_measure()).figure;
}

// GPT-OSS: each head's learned sink share of every query's row against the query's position —
// the attention no key gets. With many heads: their mean, and the three that give the sink the
// most and the least.
plot::Figure learned_sinks_figure(const LayerAttention& a, const TransformerConfig& config, int layer, float width) {
  plot::LinePlotSpec spec;
  spec.title = "The learned sinks' share of each query's attention, layer " + std::to_string(layer);
  spec.subtitle = describe_model(config) + " · what the softmax gives the head's sink logit instead of a key (1 − the row's sum)";
  spec.x_label = "query position";
  spec.whole_x = true;
  spec.y_label = "sink share";
  spec.width = width;
  spec.height = 220.0f;
  const int heads = static_cast<int>(a.sink_share.size());
  std::vector<int> shown(static_cast<std::size_t>(heads));
  for (int h = 0; h < heads; ++h) shown[static_cast<std::size_t>(h)] = h;
  if (heads > 8) {
    std::sort(shown.begin(), shown.end(), [&a](int x, int y) {
      return a.sink_share[static_cast<std::size_t>(x)].mean() > a.sink_share[static_cast<std::size_t>(y)].mean();
    });
    shown.erase(shown.begin() + 3, shown.end() - 3);
    Eigen::VectorXf mean = Eigen::VectorXf::Zero(a.sink_share.front().size());
    for (const Eigen::VectorXf& s : a.sink_share) mean += s / static_cast<float>(heads);
    plot::Series m{"mean of " + std::to_string(heads) + " heads", {}, {}, kInk};
    m.stroke = plot::Stroke::Dashed;
    for (Eigen::Index t = 0; t < mean.size(); ++t) m.x.push_back(static_cast<double>(t)), m.y.push_back(mean(t));
    spec.series.push_back(std::move(m));
  }
  for (std::size_t k = 0; k < shown.size(); ++k) {
    const Eigen::VectorXf& share = a.sink_share[static_cast<std::size_t>(shown[k])];
    plot::Series s{"head " + std::to_string(shown[k]), {}, {}, plot::series_color(static_cast<int>(k))};
    for (Eigen::Index t = 0; t < share.size(); ++t) s.x.push_back(static_cast<double>(t)), s.y.push_back(share(t));
    spec.series.push_back(std::move(s));
  }
  return plot::build_line_plot(spec, plot::figure_text_measure()).figure;
}

}  // namespace

HeadsFigure heads_figure(const ModelRun& run, const TransformerConfig& config, float side) {
  HeadsFigure out;
  plot::Figure& fig = out.figure;
  const int layer = run.request.layer;
  fig.width = 640.0f;
  fig.rect({0, 0, 1, 1}, {0, 0, 0, 0});
  const bool t5 = config.encoder_decoder();
  std::string window = config.is_local(layer) ? ", local" : config.has_local_layers() ? ", global" : "";
  // Llama 4's kinds of layer: NoPE (with its query temperature) or chunked; GPT-OSS's sinks.
  const LayerAttention* shown = run.shown().layer(layer);
  if (config.positions == PositionKind::Rope && !config.rotates(layer)) window += ", NoPE";
  if (shown && shown->chunk > 0) window += ", chunks of " + std::to_string(shown->chunk);
  if (shown && shown->streaming.on())
    window += ", streaming: first " + std::to_string(shown->streaming.sink) + " + last " + std::to_string(shown->streaming.window);
  if (shown && !shown->sink_share.empty()) window += ", learned sinks";
  const std::string title = t5 ? "Every head of layer " + std::to_string(layer) + " in the encoder, the decoder and the cross-attention"
                               : "Every head of layer " + std::to_string(layer) + window + " · " + stack_grid_title(ModelStack::Encoder, config);
  fig.text({kMargin, kMargin}, title, kTitle, kInk);
  fig.width = std::max(fig.width, 2.0f * kMargin + plot::figure_text_measure().width(title, kTitle));
  // The legend's lines widen the figure rather than run past its edge.
  auto legend_line = [&](float y, const std::string& text) {
    fig.text({kMargin, y}, text, kSmall, kMuted);
    fig.width = std::max(fig.width, 2.0f * kMargin + plot::figure_text_measure().width(text, kSmall));
  };
  const std::string positions = t5 ? "T5 relative buckets in the encoder and the decoder (a table each); none in the cross-attention"
                                   : describe_layer_positions(config, layer);
  legend_line(kMargin + 22.0f, describe_model(config) + " · layer " + std::to_string(layer) + ": " + positions);
  legend_line(kMargin + 38.0f, "sink: on the first token · prev: on the previous token · distance: mean i − j");
  legend_line(kMargin + 52.0f, "induct: on the token after the query's token where it occurred before (framed above 0.5) · "
                               "scale 0 to each maximum");
  float y = kMargin + 76.0f;
  if (t5)
    for (ModelStack stack : {ModelStack::Encoder, ModelStack::Decoder, ModelStack::Cross}) y = add_stack_grids(out, run, config, stack, y, side) + 6.0f;
  else
    y = add_stack_grids(out, run, config, ModelStack::Encoder, y, side);
  if (const LayerAttention* a = run.shown().layer(layer); a && !a->score_position.empty()) {
    y = add_position_part_grid(fig, *a, y, side);
  }
  fig.height = y + kMargin;
  fig.rects.front() = {{0, 0, fig.width, fig.height}, kWhite};
  if (t5) fig.append_below(cross_lines_panels(run, layer));
  if (const LayerAttention* a = run.unchanged.layer(layer); a && a->temperature)
    fig.append_below(temperature_figure(config, layer, static_cast<int>(run.unchanged.tokens.size()), std::min(fig.width, 720.0f) - 120.0f));
  // The learned sinks' shares: the shown model's, or the unchanged one's when the change removed them.
  for (const ForwardResult* f : {&run.shown(), &run.unchanged})
    if (const LayerAttention* a = f->layer(layer); a && !a->sink_share.empty()) {
      fig.append_below(learned_sinks_figure(*a, config, layer, std::min(fig.width, 720.0f) - 120.0f));
      break;
    }
  // T5: below its heads, what each of them learned about distance, in each stack.
  const float plot_width = std::min(fig.width, 720.0f) - 120.0f;
  const ForwardResult& f = run.unchanged;
  for (const plot::Figure& buckets : {t5_buckets_figure(f.bucket_bias, config.bidirectional(), t5 ? "the encoder's " : "", config, plot_width),
                                      t5_buckets_figure(f.decoder_bucket_bias, false, "the decoder's ", config, plot_width)})
    if (buckets.width > 0.0f) fig.append_below(buckets);
  return out;
}

std::string heads_csv(const ModelRun& run) {
  std::ostringstream csv;
  const LayerAttention* a = run.shown().layer(run.request.layer);
  // GPT-OSS: learned_sink, each head's mean share of a row that went to its sink logit.
  const bool learned = a && !a->sink_share.empty();
  csv << "head,sink,mean_distance,previous_token,induction" << (learned ? ",learned_sink" : "") << "\n";
  if (a)
    for (std::size_t h = 0; h < a->heads.size(); ++h) {
      csv << h << ',' << format_float(static_cast<float>(a->heads[h].sink));
      // Cross-attention relates two texts: no distance, previous token or induction between them.
      if (a->cross) csv << ",,,\n";
      else
        csv << ',' << format_float(static_cast<float>(a->heads[h].mean_distance)) << ','
            << format_float(static_cast<float>(a->heads[h].previous_token)) << ','
            << format_float(static_cast<float>(a->heads[h].induction))
            << (learned ? "," + format_float(a->sink_share[h].mean()) : std::string()) << '\n';
    }
  return csv.str();
}

plot::HeatmapFigure frequency_usage_figure(const ModelRun& run, const TransformerConfig& config, float side) {
  static thread_local Matrix usage;  // the spec points at it while the figure is built
  const LayerAttention* a = run.shown().layer(run.request.layer);
  usage = a ? a->frequency_usage : Matrix();
  plot::HeatmapSpec spec;
  spec.title = "RoPE frequency usage · layer " + std::to_string(run.request.layer);
  const int layer = std::clamp(run.request.layer, 0, config.layers - 1);
  const std::string pairs = config.rope_style == RopeStyle::Half ? "(i, i + r/2)" : "(2i, 2i + 1)";
  const TransformerConfig::LayerShape shape = config.shape(layer);
  const std::string partial = shape.rotary_dim < shape.head_dim
                                  ? " · r = " + std::to_string(shape.rotary_dim) + " of " + std::to_string(shape.head_dim) +
                                        " dimensions rotate, the rest never do"
                                  : "";
  spec.subtitle = "mean over positions of ‖q_i‖·‖k_i‖ per rotary pair i " + pairs + ": pair 0 turns fastest" + partial +
                  " · layer " + std::to_string(layer) + ": " + describe_layer_positions(config, layer);
  spec.row_axis = "head";
  // The pairs this run holds still (θ = 0: proportional RoPE's, p-RoPE's, --drop-pairs'): marked
  // "·" below their column, and named in the axis, so that what a head uses there is not read as position.
  const RopeFrequencies turning = model_rope_frequencies(config, run.request.intervention, static_cast<int>(run.shown().ids.size()), layer);
  std::vector<bool> still(static_cast<std::size_t>(usage.cols()), false);
  for (Eigen::Index i = 0; i < usage.cols() && static_cast<std::size_t>(i) < turning.thetas.size(); ++i)
    still[static_cast<std::size_t>(i)] = turning.thetas[static_cast<std::size_t>(i)] == 0.0;
  const bool any_still = std::find(still.begin(), still.end(), true) != still.end() && config.rotates(layer) && !run.request.intervention.positions_off;
  spec.col_axis = "pair i (high → low frequency)" + (any_still ? "; · pairs " + layer_ranges(still) + " do not turn" : std::string());
  spec.index_rows = true;
  spec.index_cols = !any_still;
  for (Eigen::Index h = 0; h < usage.rows(); ++h) spec.row_labels.push_back(std::to_string(h));
  for (Eigen::Index i = 0; i < usage.cols(); ++i) spec.col_labels.push_back(std::to_string(i) + (any_still && still[static_cast<std::size_t>(i)] ? "·" : ""));
  spec.values = &usage;
  spec.colormap = plot::Colormap::Viridis;
  spec.vmin = 0.0f;
  spec.vmax = usage.size() ? std::max(usage.maxCoeff(), 1e-6f) : 1.0f;
  spec.value_label = "mean ‖q_i‖·‖k_i‖";
  spec.value_format = "%.2g";
  spec.side = side;
  if (usage.rows() > 0 && usage.cols() > 0)
    spec.row_height = std::max(4.0f, std::min(side / static_cast<float>(usage.cols()) * 2.0f, side / static_cast<float>(usage.rows())));
  return plot::build_heatmap(spec, plot::figure_text_measure());
}

namespace {

// Layers × heads: each head's mean weight on the first token, from every layer's summaries (the
// first stack's; the shown model's).
Matrix sink_matrix(const ModelRun& run) {
  const ForwardResult& f = run.shown();
  int layers = 0, heads = 0;
  for (const LayerAttention& a : f.layers)
    if (a.stack == ModelStack::Encoder) layers = std::max(layers, a.layer + 1), heads = std::max(heads, static_cast<int>(a.heads.size()));
  Matrix S = Matrix::Zero(layers, heads);
  for (const LayerAttention& a : f.layers)
    if (a.stack == ModelStack::Encoder)
      for (std::size_t h = 0; h < a.heads.size(); ++h) S(a.layer, static_cast<Eigen::Index>(h)) = static_cast<float>(a.heads[h].sink);
  return S;
}

}  // namespace

plot::HeatmapFigure sinks_figure(const ModelRun& run, const TransformerConfig& config, float side) {
  static thread_local Matrix sinks;  // the spec points at it while the figure is built
  sinks = sink_matrix(run);
  plot::HeatmapSpec spec;
  spec.title = "Attention sinks: the weight on the first token, layer by layer";
  spec.subtitle = describe_model(config) + " · each head's mean over the queries of its weight on token 0 (StreamingLLM, Xiao et al. "
                  "2023, Fig. 2) · " + std::to_string(run.shown().tokens.size()) + " tokens" +
                  (run.changed ? " · " + run.describe() : "");
  spec.row_axis = "layer";
  spec.col_axis = "head";
  spec.index_rows = spec.index_cols = true;
  for (Eigen::Index l = 0; l < sinks.rows(); ++l) spec.row_labels.push_back(std::to_string(l));
  for (Eigen::Index h = 0; h < sinks.cols(); ++h) spec.col_labels.push_back(std::to_string(h));
  spec.values = &sinks;
  spec.colormap = plot::Colormap::Viridis;
  spec.vmin = 0.0f;
  spec.vmax = 1.0f;
  spec.value_label = "weight on the first token";
  spec.value_format = "%.2f";
  spec.side = side;
  return plot::build_heatmap(spec, plot::figure_text_measure());
}

std::string sinks_csv(const ModelRun& run) {
  const Matrix S = sink_matrix(run);
  std::ostringstream csv;
  csv << "layer,head,sink\n";
  for (Eigen::Index l = 0; l < S.rows(); ++l)
    for (Eigen::Index h = 0; h < S.cols(); ++h) csv << l << ',' << h << ',' << format_float(S(l, h)) << '\n';
  return csv.str();
}

plot::Figure activations_figure(const ModelRun& run, const TransformerConfig& config) {
  const ForwardResult& f = run.shown();
  plot::LinePlotSpec spec;
  spec.title = "Massive activations: the residual stream's largest values, layer by layer";
  std::string where;
  if (!f.activations.empty() && !f.activations.back().top.empty()) {
    // The largest of all, named: Sun et al. find it on the first token and a few fixed dimensions.
    const ResidualPeaks* best = &f.activations.front();
    for (const ResidualPeaks& a : f.activations)
      if (!a.top.empty() && (best->top.empty() || std::abs(a.top.front().value) > std::abs(best->top.front().value))) best = &a;
    const auto& e = best->top.front();
    where = " · the largest, " + fmt("%.4g", e.value) + ", after layer " + std::to_string(best->layer) + " at token " +
            std::to_string(e.position) + " (" + visible_token(f.tokens[static_cast<std::size_t>(e.position)]) + "), dimension " +
            std::to_string(e.dim);
  }
  spec.subtitle = describe_model(config) + " · |x| after each layer (Sun et al. 2024, Fig. 1)" + where;
  spec.x_label = "layer";
  spec.whole_x = true;
  spec.y_label = "|activation|";
  spec.log_y = true;
  const char* names[] = {"largest", "2nd", "3rd"};
  for (int k = 0; k < 3; ++k) {
    plot::Series s{names[k], {}, {}, plot::series_color(k)};
    for (const ResidualPeaks& a : f.activations)
      if (static_cast<int>(a.top.size()) > k) s.x.push_back(a.layer), s.y.push_back(std::max(1e-12, static_cast<double>(std::abs(a.top[static_cast<std::size_t>(k)].value))));
    spec.series.push_back(std::move(s));
  }
  plot::Series median{"median", {}, {}, plot::series_color(3)};
  median.stroke = plot::Stroke::Dashed;
  for (const ResidualPeaks& a : f.activations) median.x.push_back(a.layer), median.y.push_back(std::max(1e-12, static_cast<double>(a.median_abs)));
  spec.series.push_back(std::move(median));
  return plot::build_line_plot(spec, plot::figure_text_measure()).figure;
}

std::string activations_csv(const ModelRun& run) {
  const ForwardResult& f = run.shown();
  std::ostringstream csv;
  csv << "layer,token,position,dim,value\n";
  for (const ResidualPeaks& a : f.activations)
    for (const auto& e : a.top)
      csv << a.layer << ',' << csv_field(f.tokens[static_cast<std::size_t>(e.position)]) << ',' << e.position << ',' << e.dim << ','
          << format_float(e.value) << '\n';
  return csv.str();
}

std::string frequency_usage_csv(const ModelRun& run) {
  std::ostringstream csv;
  csv << "head,pair,usage\n";
  if (const LayerAttention* a = run.shown().layer(run.request.layer))
    for (Eigen::Index h = 0; h < a->frequency_usage.rows(); ++h)
      for (Eigen::Index i = 0; i < a->frequency_usage.cols(); ++i)
        csv << h << ',' << i << ',' << format_float(a->frequency_usage(h, i)) << '\n';
  return csv.str();
}

namespace {

// One forward pass's attention heatmap of the run's layer; cross-attention has its lines between
// the two texts below it.
plot::Figure one_attention_figure(const State& state, const ForwardResult& f, int layer, const TransformerConfig& config,
                                  const std::string& what, float side) {
  plot::Figure fig = attention_figure(state, layer_results(f, layer, config, what), side).figure;
  if (const LayerAttention* a = f.layer(layer); a && a->cross) {
    plot::Figure lines = cross_lines_figure(*a, f.decoder_tokens, f.tokens, state.view.mean_heads ? -1 : state.view.head,
                                            "Which input tokens each output token reads · layer " + std::to_string(layer));
    lines.width = std::max(lines.width, fig.width);
    fig.append_below(lines);
  }
  return fig;
}

}  // namespace

plot::Figure model_attention_figure(const State& state, const ModelRun& run, const TransformerConfig& config, float side) {
  const int layer = run.request.layer;
  if (!run.changed) return one_attention_figure(state, run.unchanged, layer, config, loss_text(run.unchanged), side);
  plot::Figure fig = one_attention_figure(state, run.unchanged, layer, config, "unchanged · " + loss_text(run.unchanged), side);
  fig.append_right(one_attention_figure(state, *run.changed, layer, config, run.describe() + " · " + loss_text(*run.changed), side));
  return fig;
}

std::string predictions_json(const ForwardResult& f) {
  using Json = nlohmann::ordered_json;  // the keys in the documented order
  Json top = Json::array();
  for (const auto& position : f.top) {
    Json row = Json::array();
    for (const TokenProbability& t : position) row.push_back({{"id", t.id}, {"token", t.token}, {"p", t.p}});
    top.push_back(row);
  }
  Json out = {{"ids", f.ids}, {"tokens", f.tokens}};
  // T5: top[i] follows decoder position i, so its tokens are given too.
  if (!f.decoder_ids.empty()) {
    out["decoder_ids"] = f.decoder_ids;
    out["decoder_tokens"] = f.decoder_tokens;
  }
  out["loss"] = std::isfinite(f.loss) ? Json(f.loss) : Json(nullptr);
  out["perplexity"] = std::isfinite(f.perplexity) ? Json(f.perplexity) : Json(nullptr);
  if (f.precision == Precision::BF16) out["precision"] = "bf16";  // the numbers are BF16's, not the exact ones
  // A task model's loss counts what its task scores; say which predictions were averaged.
  if (!f.scored_description.empty()) out["loss_over"] = f.scored_description;
  out["top"] = top;
  // A mixture of experts: per layer and position, the routed experts and their weights.
  if (!f.experts.empty()) {
    Json layers = Json::array();
    for (const auto& layer : f.experts) {
      Json positions = Json::array();
      for (const ExpertChoice& choice : layer) {
        Json pairs = Json::array();
        for (const auto& [e, w] : choice) pairs.push_back(Json::array({e, w}));
        positions.push_back(pairs);
      }
      layers.push_back(positions);
    }
    out["experts"] = layers;
  }
  // A token's bytes need not be valid UTF-8 on their own (a piece of a character): replace them.
  return out.dump(-1, ' ', false, Json::error_handler_t::replace);
}

bool view_needs_model(ViewId view, const State& state) {
  return view_info(view).needs == ViewNeeds::Model || (view == ViewId::Attention && state.view.layer >= 0);
}

Status check_model_view(ViewId view, State& state, const TransformerConfig& c) {
  if (state.view.layer < 0) state.view.layer = 0;
  const int layers = c.encoder_decoder() && state.model.stack != ModelStack::Encoder ? c.decoder_layers : c.layers;
  if (state.view.layer >= layers)
    return Error{"--layer " + std::to_string(state.view.layer) + " is out of range: the model has " +
                 std::to_string(layers) + " layers (0 to " + std::to_string(layers - 1) + ")"};
  if (!state.view.mean_heads && state.view.head >= c.heads)
    return Error{"--head " + std::to_string(state.view.head) + " is out of range: the model has " +
                 std::to_string(c.heads) + " heads"};
  if ((view == ViewId::FrequencyUsage || view == ViewId::PairScores) && c.positions != PositionKind::Rope)
    return Error{std::string(view_info(view).name) + " needs a RoPE model; this one has " + std::string(to_string(c.positions)) + " positions"};
  if (view == ViewId::PairScores && state.view.mean_heads) return Error{"pair-scores splits one head's scores: give --head N, not mean"};
  if (view == ViewId::Mrope && c.mrope_section.empty())
    return Error{"mrope needs a model with M-RoPE (Qwen2-VL, Qwen2.5-VL, Qwen3-VL: mrope_section in its config.json); " + c.arch->title +
                 "'s positions are 1-D"};
  if (view == ViewId::Mrope)
    if (auto layout = parse_mrope_layout(state.view.mrope_layout, c.spatial_merge); !layout) return Error{layout.error()};
  return Ok{};
}

Result<ModelViewOutput> mrope_view_output(const State& state, const TransformerConfig& c) {
  auto layout = parse_mrope_layout(state.view.mrope_layout, c.spatial_merge);
  if (!layout) return Error{layout.error()};
  const std::vector<MropeToken> ids = mrope_position_ids(*layout, c.spatial_merge);
  return ModelViewOutput{mrope_figure(c, ids, state.view.mrope_layout, 720.0f), mrope_csv(ids)};
}

// --stack and --target on a model with one stack of layers: refused, as they would change nothing.
Status check_model_stack(const State& state, const TransformerConfig& c) {
  if (!c.encoder_decoder() && (state.model.stack != ModelStack::Encoder || !state.model.target.empty()))
    return Error{std::string(state.model.target.empty() ? "--stack " + std::string(to_string(state.model.stack)) : "--target") +
                 " is for an encoder–decoder model (T5); this one has one stack of layers"};
  return Ok{};
}

namespace {

std::string positions_name(PositionKind p) {
  switch (p) {
    case PositionKind::Rope: return "RoPE";
    case PositionKind::Learned: return "a learned position table";
    case PositionKind::Sinusoidal: return "the sinusoid added to the embeddings";
    case PositionKind::None: return "none (NoPE)";
    case PositionKind::Alibi: return "ALiBi's slopes";
    case PositionKind::T5: return "T5's relative buckets";
  }
  return "";
}

}  // namespace

// The options that change this model's positions, for messages about one that does not.
std::string applicable_options(const TransformerConfig& c) {
  std::vector<std::string> o;
  if (c.positions != PositionKind::None) o.push_back("--no-positions");
  if (c.positions == PositionKind::Rope) {
    o.insert(o.end(), {"--base", "--rope-scaling", "--rope-style", "--rotary-dim", "--drop-pairs"});
    if (c.rope_local_theta) o.push_back("--local-base");
    if (c.scaling.type == RopeScalingType::LongRope) o.push_back("--rope-factors");
  }
  if (c.positions == PositionKind::Alibi) o.push_back("--alibi-scale");
  if (c.has_local_layers()) o.push_back("--window");
  if (!c.chunked.empty()) o.push_back("--chunk");
  if (c.learned_sinks) o.push_back("--sinks");
  if (!c.bidirectional() && !c.encoder_decoder()) o.push_back("--streaming");
  if (c.positions == PositionKind::Rope || c.positions == PositionKind::Learned || c.positions == PositionKind::Sinusoidal)
    o.push_back("--position-shift");
  o.push_back("--permute");
  std::string s;
  for (std::size_t i = 0; i < o.size(); ++i) s += (i == 0 ? "" : i + 1 == o.size() ? " and " : ", ") + o[i];
  return s;
}

// An option that changes nothing on this model is refused, naming what does apply: RoPE's options
// on a model without RoPE, a shift on positions that are only relative, a window on a model
// without local layers, LongRoPE's factors without LongRoPE.
Status check_interventions_apply(const State& state, const TransformerConfig& c) {
  const ModelSettings defaults;
  const ModelSettings& m = state.model;
  const bool relative_only = c.positions == PositionKind::Alibi || c.positions == PositionKind::T5 || c.positions == PositionKind::None;
  const std::string why = "; this model's positions are " + positions_name(c.positions) + ": what applies is " + applicable_options(c);
  if (c.positions != PositionKind::Rope) {
    if (m.base != defaults.base) return Error{"--base changes RoPE's base" + why};
    if (m.scaling.type != RopeScalingType::None) return Error{"--rope-scaling scales RoPE's frequencies" + why};
    if (m.rope_style != c.rope_style) return Error{"--rope-style pairs RoPE's dimensions" + why};
    if (m.rotary_dim != 0) return Error{"--rotary-dim sets how many dimensions RoPE rotates" + why};
    if (m.drop_pairs.fraction > 0.0) return Error{"--drop-pairs stops some of RoPE's pairs" + why};
  }
  // The rotated width is a value of this model's heads: an even number from 2 to their width.
  const int limit = c.rotary_limit();
  if (c.positions == PositionKind::Rope && m.rotary_dim != 0 && (m.rotary_dim < 2 || m.rotary_dim > limit || m.rotary_dim % 2 != 0))
    return Error{"--rotary-dim " + std::to_string(m.rotary_dim) + " is out of range: this model's " + (c.proportional_rope ? "full layers' " : "") +
                 "heads have " + std::to_string(limit) + " dimensions, so it rotates an even number from 2 to " + std::to_string(limit - limit % 2)};
  if (m.local_base > 0.0 && !c.rope_local_theta) return Error{"--local-base sets the base of the local (sliding) layers of Gemma 3 and 4, which this model does not have" + why};
  if (m.rope_factors != LongRopeSet::ByLength && c.scaling.type != RopeScalingType::LongRope)
    return Error{"--rope-factors chooses LongRoPE's factors, which this model does not use" + why};
  if (m.alibi_scale != 1.0 && c.positions != PositionKind::Alibi) return Error{"--alibi-scale scales ALiBi's slopes" + why};
  if (m.window >= 0 && !c.has_local_layers()) return Error{"--window changes sliding windows, and no layer of this model has one" + why};
  if (m.chunk >= 0 && c.chunked.empty()) return Error{"--chunk changes chunked attention (Llama 4), and no layer of this model has it" + why};
  if (!m.sinks && !c.learned_sinks) return Error{"--sinks off removes learned attention sinks (GPT-OSS), which this model does not have" + why};
  if (m.streaming.on() && (c.bidirectional() || c.encoder_decoder()))
    return Error{"--streaming keeps a causal decoder's first and last tokens, and this model is an encoder" + why};
  if (relative_only && m.position_shift != 0)
    return Error{"--position-shift moves every position alike, which a relative bias cannot see" + why};
  // --encoding and --bias turn the model's own positions off (none) or keep them; another kind
  // would be a different model, which a checkpoint cannot become.
  const EncodingKind own_encoding = c.positions == PositionKind::Rope       ? EncodingKind::Rope
                                    : c.positions == PositionKind::Learned    ? EncodingKind::Learned
                                    : c.positions == PositionKind::Sinusoidal ? EncodingKind::Sinusoidal
                                                                              : EncodingKind::None;
  const BiasKind own_bias = c.positions == PositionKind::Alibi ? BiasKind::Alibi : c.positions == PositionKind::T5 ? BiasKind::T5 : BiasKind::None;
  if (m.encoding != EncodingKind::None && m.encoding != own_encoding && m.encoding != defaults.encoding)
    return Error{"--encoding cannot give a checkpoint another kind of positions" + why};
  if (m.bias != BiasKind::None && m.bias != own_bias) return Error{"--bias cannot give a checkpoint another kind of positions" + why};
  return Ok{};
}

Status check_model_settings(const State& state, const TransformerConfig& c) {
  if (auto s = check_model_stack(state, c); !s) return s;
  return check_interventions_apply(state, c);
}

Result<ModelViewOutput> model_view_output(ViewId view, const State& state, const ModelRun& run, const TransformerConfig& c, bool csv) {
  const ViewInfo& info = view_info(view);
  if (!info.model_output || !info.forward_pass)
    return Error{"the " + std::string(info.name) + " view is not drawn from one forward pass of a model"};
  return info.model_output({state, c, &run, nullptr, csv});
}

// A token as a table cell: control characters (a newline token, say) written as \n or \xNN.
std::string visible_token(const std::string& token) {
  std::string out;
  for (unsigned char ch : token) {
    if (ch == '\n') out += "\\n";
    else if (ch == '\t') out += "\\t";
    else if (ch < 0x20 || ch == 0x7F) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", ch);
      out += hex;
    }
    else out += static_cast<char>(ch);
  }
  return out;
}

std::string loss_text(const ForwardResult& f) {
  if (f.masked_lm) return f.top.empty() ? "no masked-LM head: no predictions" : "masked LM: each position's own token predicted, no loss";
  const std::string over = f.scored_description.empty() ? "" : " on " + f.scored_description;
  if (!std::isfinite(f.loss))
    return f.scored_description.empty() ? "one token: no loss" : "the task scores no prediction of this text: no loss";
  const std::string bf16 = f.precision == Precision::BF16 ? " · BF16 activations" : "";
  return "loss " + fmt("%.4f", f.loss) + " nats, perplexity " + fmt("%.4g", f.perplexity) + over + bf16;
}

}  // namespace poslab
