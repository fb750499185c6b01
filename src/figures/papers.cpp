#include "figures/papers.hpp"

#include "plot/draw.hpp"
#include "plot/lines.hpp"

namespace poslab {

namespace {

constexpr float kPanelWidth = 520.0f, kPanelHeight = 320.0f;
constexpr plot::Color kLineColor{0.45f, 0.45f, 0.50f, 1.0f};

plot::Series series_of(const PaperCurve& c, int index, bool categorical) {
  plot::Series s;
  s.label = c.label;
  s.x = c.x;
  s.y = c.y;
  s.color = plot::series_color(index);
  switch (c.kind) {
    case CurveKind::Computed:
      s.markers = c.x.size() <= 16 || categorical;
      if (categorical) s.stroke = plot::Stroke::None, s.marker_size = 6.0f;
      break;
    case CurveKind::Published:
      s.stroke = plot::Stroke::None;
      s.marker_size = 8.0f;
      break;
    case CurveKind::Fit:
      s.stroke = plot::Stroke::Dashed;
      s.markers = false;
      break;
  }
  return s;
}

}  // namespace

plot::Figure paper_figure(const PaperCheck& check, const std::vector<PaperPanel>& panels) {
  plot::Figure figure;
  bool first = true;
  for (const PaperPanel& p : panels) {
    plot::LinePlotSpec spec;
    spec.title = p.title;
    if (first) spec.subtitle = "poslab papers check " + std::string(check.id) + " — " + std::string(check.paper);
    spec.x_label = p.x_label;
    spec.y_label = p.y_label;
    spec.log_x = p.log_x;
    spec.log_y = p.log_y;
    spec.whole_x = p.whole_x || p.categorical;
    spec.width = kPanelWidth;
    spec.height = kPanelHeight;
    for (std::size_t k = 0; k < p.curves.size(); ++k) spec.series.push_back(series_of(p.curves[k], static_cast<int>(k), p.categorical));
    for (const auto& [y, label] : p.reference_y) spec.references.push_back({y, label, kLineColor});
    for (const auto& [x, label] : p.marks_x) spec.marks.push_back({x, label, kLineColor});
    figure.append_right(plot::build_line_plot(spec, plot::figure_text_measure()).figure);
    first = false;
  }
  return figure;
}

}  // namespace poslab
