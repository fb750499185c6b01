// The position-probe lens (`poslab export position-probe`): how well a linear probe reads each
// token's position off the residual stream, layer by layer (Haviv et al. 2022).
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "base/csv.hpp"
#include "base/files.hpp"
#include "core/model/model_run.hpp"
#include "core/model/position_probe.hpp"
#include "figures/model.hpp"
#include "plot/draw.hpp"
#include "plot/lines.hpp"

namespace poslab {

namespace {

// The sentences to probe: the file's non-empty lines, or PosLab's own.
Result<std::vector<std::string>> probed_sentences(const std::string& file) {
  if (file.empty()) return probe_sentences();
  auto text = read_whole_file(file, kTableFile);
  if (!text) return Error{"--text " + text.error()};
  std::vector<std::string> lines;
  std::istringstream in(*text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") != std::string::npos) lines.push_back(line);
  }
  if (lines.size() < 4) return Error{"--text " + file + ": " + std::to_string(lines.size()) + " sentences; the probe needs at least 4, one a line"};
  return lines;
}

// "0.973": a score with `digits` decimals.
std::string fixed(double v, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

plot::Series probe_series(const std::string& label, const PositionProbe& p, int colour) {
  plot::Series s{label, {}, {}, plot::series_color(colour)};
  for (std::size_t l = 0; l < p.layers.size(); ++l) s.x.push_back(static_cast<double>(l)), s.y.push_back(p.layers[l].r2);
  return s;
}

}  // namespace

Result<ModelViewOutput> position_probe_output(const State& state, const Checkpoint& model, const std::atomic<bool>* cancel,
                                              const std::function<void(double)>& progress) {
  const TransformerConfig& c = model.config();
  auto sentences = probed_sentences(state.view.probe_text);
  if (!sentences) return Error{sentences.error()};
  const PositionIntervention changed = model_request(state, c).intervention;
  const bool two = changed.any();
  const auto part = [&](double from, double to) {
    return [&, from, to](double f) {
      if (progress) progress(from + (to - from) * f);
    };
  };
  auto unchanged = position_probe(model, *sentences, {}, cancel, part(0.0, two ? 0.5 : 1.0));
  if (!unchanged) return Error{unchanged.error()};
  std::optional<PositionProbe> other;
  if (two) {
    auto probed = position_probe(model, *sentences, changed, cancel, part(0.5, 1.0));
    if (!probed) return Error{probed.error()};
    other = std::move(*probed);
  }
  const PositionProbe& shown = other ? *other : *unchanged;
  std::ostringstream csv;
  csv << "layer,r2,mean_abs_error\n";
  for (std::size_t l = 0; l < shown.layers.size(); ++l)
    csv << l << ',' << format_float(static_cast<float>(shown.layers[l].r2)) << ',' << format_float(static_cast<float>(shown.layers[l].mean_abs_error)) << '\n';
  plot::LinePlotSpec spec;
  spec.title = "Position probe: a linear read of each token's position from the residual stream";
  std::size_t best = 0;
  for (std::size_t l = 1; l < shown.layers.size(); ++l)
    if (shown.layers[l].r2 > shown.layers[best].r2) best = l;
  spec.subtitle = describe_model(c) + " · ridge probe fitted on " + std::to_string(shown.train_tokens) + " tokens, scored on " +
                  std::to_string(shown.test_tokens) + " of other sentences (Haviv et al. 2022) · best: layer " + std::to_string(best) + ", R² " +
                  fixed(shown.layers[best].r2, 3) + ", off by " + fixed(shown.layers[best].mean_abs_error, 2) + " positions on average";
  spec.x_label = "layer";
  spec.whole_x = true;
  spec.y_label = "R² on held-out sentences";
  spec.series.push_back(probe_series("unchanged", *unchanged, 0));
  if (other) spec.series.push_back(probe_series(describe(changed), *other, 1));
  spec.references.push_back({1.0, "perfect", plot::series_color(7)});
  spec.references.push_back({0.0, "the mean position", plot::series_color(4)});
  return ModelViewOutput{plot::build_line_plot(spec, plot::figure_text_measure()).figure, csv.str()};
}

}  // namespace poslab
