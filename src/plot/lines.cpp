#include "plot/lines.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "plot/axis.hpp"

namespace poslab::plot {

namespace {

constexpr Color kInk{0.10f, 0.10f, 0.12f, 1.0f};
constexpr Color kMuted{0.38f, 0.38f, 0.42f, 1.0f};
constexpr Color kGrid{0.90f, 0.90f, 0.92f, 1.0f};
constexpr float kMargin = 14.0f, kTitleSize = 16.0f, kLabelSize = 13.0f, kTickSize = 12.0f, kGap = 6.0f;

// "10³", "10⁻²": powers of ten with superscript exponents.
std::string power_of_ten(int k) {
  static const char* digits[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  std::string out = "10";
  if (k < 0) out += "⁻";
  const std::string n = std::to_string(std::abs(k));
  for (char c : n) out += digits[c - '0'];
  return out;
}

}  // namespace

Color series_color(int index) {
  static const Color colors[] = {{0.000f, 0.447f, 0.698f, 1}, {0.835f, 0.369f, 0.000f, 1}, {0.000f, 0.620f, 0.451f, 1},
                                 {0.800f, 0.475f, 0.655f, 1}, {0.337f, 0.706f, 0.914f, 1}, {0.902f, 0.624f, 0.000f, 1},
                                 {0.941f, 0.894f, 0.259f, 1}};
  return colors[static_cast<std::size_t>(index) % std::size(colors)];
}

LinePlotFigure build_line_plot(const LinePlotSpec& s, const TextMeasure& measure) {
  LinePlotFigure out;
  Figure& fig = out.figure;
  auto ty = [&](double y) { return s.log_y ? std::log10(std::max(y, 1e-300)) : y; };

  double x_min = std::numeric_limits<double>::infinity(), x_max = -x_min, y_min = x_min, y_max = -x_min;
  for (const Series& series : s.series)
    for (std::size_t i = 0; i < series.x.size() && i < series.y.size(); ++i) {
      if (!std::isfinite(series.x[i]) || !std::isfinite(series.y[i]) || (s.log_y && series.y[i] <= 0)) continue;
      x_min = std::min(x_min, series.x[i]);
      x_max = std::max(x_max, series.x[i]);
      y_min = std::min(y_min, ty(series.y[i]));
      y_max = std::max(y_max, ty(series.y[i]));
    }
  for (const ReferenceLine& r : s.references) {
    y_min = std::min(y_min, ty(r.y));
    y_max = std::max(y_max, ty(r.y));
  }
  if (!std::isfinite(x_min)) x_min = 0, x_max = 1, y_min = 0, y_max = 1;
  if (x_max - x_min < 1e-12) x_max = x_min + 1;
  if (y_max - y_min < 1e-12) y_max = y_min + 1;
  if (s.log_y) {
    y_min = std::floor(y_min);
    y_max = std::ceil(y_max);
  } else {
    const double pad = 0.05 * (y_max - y_min);
    y_min -= pad;
    y_max += pad;
  }
  out.x_min = x_min, out.x_max = x_max, out.y_min = y_min, out.y_max = y_max;

  // Tick labels decide the left margin.
  std::vector<std::pair<double, std::string>> y_ticks;
  if (s.log_y) {
    const int step = std::max(1, static_cast<int>(std::ceil((y_max - y_min) / 8.0)));
    for (int k = static_cast<int>(y_min); k <= static_cast<int>(y_max); k += step) y_ticks.emplace_back(k, power_of_ten(k));
  } else {
    const auto ticks = nice_ticks(y_min, y_max, 7);
    const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1.0;
    for (double t : ticks) y_ticks.emplace_back(t, tick_label(t, step));
  }
  float y_tick_w = 0;
  for (const auto& [v, label] : y_ticks) y_tick_w = std::max(y_tick_w, measure.width(label, kTickSize));

  const float top = kMargin + kTitleSize + kGap + (s.subtitle.empty() ? 0.0f : kTickSize + kGap) + 10.0f;
  const float left = kMargin + kLabelSize + kGap + y_tick_w + kGap + 4.0f;
  out.area = {left, top, left + s.width, top + s.height};
  const Box& a = out.area;
  // Series without a label stay out of the legend; with no entries at all there is no legend.
  float legend_w = 0;
  bool any_entry = !s.references.empty();
  for (const Series& series : s.series) {
    legend_w = std::max(legend_w, measure.width(series.label, kTickSize));
    any_entry = any_entry || !series.label.empty();
  }
  for (const ReferenceLine& r : s.references) legend_w = std::max(legend_w, measure.width(r.label, kTickSize));
  const float legend_space = any_entry ? kGap * 3 + 22.0f + legend_w : 0.0f;
  fig.width = std::max({a.x1 + legend_space + kMargin, kMargin * 2 + measure.width(s.title, kTitleSize),
                        kMargin * 2 + measure.width(s.subtitle, kTickSize)});
  fig.height = a.y1 + 4.0f + kGap + kTickSize + kGap + kLabelSize + kMargin;

  auto px = [&](double x) { return a.x0 + static_cast<float>((x - x_min) / (x_max - x_min)) * a.width(); };
  auto py = [&](double yt) { return a.y1 - static_cast<float>((yt - y_min) / (y_max - y_min)) * a.height(); };

  fig.text({kMargin, kMargin}, s.title, kTitleSize, kInk);
  if (!s.subtitle.empty()) fig.text({kMargin, kMargin + kTitleSize + kGap}, s.subtitle, kTickSize, kMuted);

  // Grid and ticks.
  for (const auto& [v, label] : y_ticks) {
    const float y = py(v);
    fig.line({a.x0, y}, {a.x1, y}, kGrid);
    fig.line({a.x0 - 4.0f, y}, {a.x0, y}, kMuted);
    fig.text({a.x0 - 4.0f - kGap, y}, label, kTickSize, kInk, HAlign::Right, VAlign::Middle);
  }
  const auto x_ticks = nice_ticks(x_min, x_max, 9);
  const double x_step = x_ticks.size() > 1 ? x_ticks[1] - x_ticks[0] : 1.0;
  for (double t : x_ticks) {
    const float x = px(t);
    fig.line({x, a.y0}, {x, a.y1}, kGrid);
    fig.line({x, a.y1}, {x, a.y1 + 4.0f}, kMuted);
    fig.text({x, a.y1 + 4.0f + kGap}, tick_label(t, x_step), kTickSize, kInk, HAlign::Center, VAlign::Top);
  }
  fig.rect(a, {0, 0, 0, 0}, kMuted);
  fig.text({(a.x0 + a.x1) * 0.5f, fig.height - kMargin}, s.x_label, kLabelSize, kMuted, HAlign::Center, VAlign::Bottom);
  fig.text({kMargin + kLabelSize * 0.5f, (a.y0 + a.y1) * 0.5f}, s.y_label, kLabelSize, kMuted, HAlign::Center,
           VAlign::Middle, true);

  // Reference lines, dashed, then the series.
  for (const ReferenceLine& r : s.references) {
    const float y = py(ty(r.y));
    for (float x = a.x0; x < a.x1; x += 10.0f) fig.line({x, y}, {std::min(x + 6.0f, a.x1), y}, r.color, 1.5f);
  }
  for (const Series& series : s.series) {
    std::vector<Point> points;
    for (std::size_t i = 0; i < series.x.size() && i < series.y.size(); ++i)
      if (std::isfinite(series.x[i]) && std::isfinite(series.y[i]) && (!s.log_y || series.y[i] > 0))
        points.push_back({px(series.x[i]), py(ty(series.y[i]))});
    if (points.size() > 1) fig.polyline(points, series.color, 2.0f);
    if (series.markers && points.size() <= 128)
      for (const Point& p : points) fig.rect({p.x - 2.5f, p.y - 2.5f, p.x + 2.5f, p.y + 2.5f}, series.color);
  }

  // Legend at the right of the plotting area.
  float ly = a.y0 + 4.0f;
  const float lx = a.x1 + kGap * 2;
  for (const Series& series : s.series) {
    if (series.label.empty()) continue;
    fig.line({lx, ly + 6.0f}, {lx + 18.0f, ly + 6.0f}, series.color, 2.5f);
    fig.text({lx + 22.0f, ly + 6.0f}, series.label, kTickSize, kInk, HAlign::Left, VAlign::Middle);
    ly += kTickSize + 8.0f;
  }
  for (const ReferenceLine& r : s.references) {
    fig.line({lx, ly + 6.0f}, {lx + 7.0f, ly + 6.0f}, r.color, 1.5f);
    fig.line({lx + 11.0f, ly + 6.0f}, {lx + 18.0f, ly + 6.0f}, r.color, 1.5f);
    fig.text({lx + 22.0f, ly + 6.0f}, r.label, kTickSize, kInk, HAlign::Left, VAlign::Middle);
    ly += kTickSize + 8.0f;
  }
  return out;
}

}  // namespace poslab::plot
