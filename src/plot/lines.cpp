#include "plot/lines.hpp"

#include "plot/wrap.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

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

// Whether centred labels at these ticks, on an axis `width` points long from lo to hi, leave a
// gap between each two neighbours.
bool labels_apart(const std::vector<std::pair<double, std::string>>& ticks, double lo, double hi, float width,
                  const TextMeasure& measure) {
  for (std::size_t k = 1; k < ticks.size(); ++k) {
    const double room = (ticks[k].first - ticks[k - 1].first) / (hi - lo) * width;
    const float half_widths =
        (measure.width(ticks[k - 1].second, kTickSize) + measure.width(ticks[k].second, kTickSize)) * 0.5f;
    if (room < half_widths + kGap) return false;
  }
  return true;
}

// The x ticks as (position on the axis, label): nice linear ticks, as many as leave their labels
// apart on an axis `width` points long (a narrow plot gets fewer), or on a log axis the series'
// own x values when there are few of them (lengths 32, 64, …), else the powers of ten in range.
std::vector<std::pair<double, std::string>> x_axis_ticks(const LinePlotSpec& s, double lo, double hi, float width,
                                                         const TextMeasure& measure) {
  std::vector<std::pair<double, std::string>> out;
  if (!s.log_x) {
    for (int count = 9; count >= 2; --count) {
      const auto ticks = nice_ticks(lo, hi, count);
      const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1.0;
      out.clear();
      for (double t : ticks)
        if (!s.whole_x || t == std::round(t)) out.emplace_back(t, tick_label(t, std::max(step, s.whole_x ? 1.0 : 0.0)));
      if (labels_apart(out, lo, hi, width, measure)) break;
    }
    return out;
  }
  std::vector<double> xs;
  for (const Series& series : s.series)
    for (double x : series.x)
      if (x > 0 && std::isfinite(x)) xs.push_back(x);
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  if (!xs.empty() && xs.size() <= 12) {
    for (double x : xs) out.emplace_back(std::log10(x), tick_label(x, x >= 1 ? 1.0 : x));
    return out;
  }
  for (int k = static_cast<int>(std::ceil(lo)); k <= static_cast<int>(std::floor(hi)); ++k) out.emplace_back(k, power_of_ten(k));
  return out;
}

// A polyline drawn as 7-pixel dashes with 5-pixel gaps, the pattern running on across vertices.
void dashed_polyline(Figure& fig, const std::vector<Point>& points, Color color, float width) {
  constexpr float kDash = 7.0f, kPeriod = 12.0f;
  float phase = 0.0f;  // distance along the pattern at the segment's start
  for (std::size_t i = 1; i < points.size(); ++i) {
    const Point a = points[i - 1], b = points[i];
    const float length = std::hypot(b.x - a.x, b.y - a.y);
    if (length <= 0.0f) continue;
    for (float t = 0.0f; t < length;) {
      const float in_period = std::fmod(phase + t, kPeriod);
      const float step = in_period < kDash ? std::min(kDash - in_period, length - t) : std::min(kPeriod - in_period, length - t);
      if (in_period < kDash) {
        const float t0 = t / length, t1 = (t + step) / length;
        fig.line({a.x + (b.x - a.x) * t0, a.y + (b.y - a.y) * t0}, {a.x + (b.x - a.x) * t1, a.y + (b.y - a.y) * t1}, color, width);
      }
      t += std::max(step, 0.01f);  // always forward, even where float rounding makes a step vanish
    }
    phase = std::fmod(phase + length, kPeriod);
  }
}

}  // namespace

Color series_color(int index) {
  static const Color colors[] = {{0.000f, 0.447f, 0.698f, 1}, {0.835f, 0.369f, 0.000f, 1}, {0.000f, 0.620f, 0.451f, 1},
                                 {0.800f, 0.475f, 0.655f, 1}, {0.337f, 0.706f, 0.914f, 1}, {0.902f, 0.624f, 0.000f, 1},
                                 {0.941f, 0.894f, 0.259f, 1}};
  return colors[static_cast<std::size_t>(index) % std::size(colors)];
}

namespace {

// The room the legend takes at the right of the plotting area; series without a label stay out of
// it, and with no entries at all there is no legend.
float legend_width(const LinePlotSpec& s, const TextMeasure& measure) {
  float widest = 0;
  bool any_entry = !s.references.empty() || !s.marks.empty();
  for (const Series& series : s.series) {
    widest = std::max(widest, measure.width(series.label, kTickSize));
    any_entry = any_entry || !series.label.empty();
  }
  for (const ReferenceLine& r : s.references) widest = std::max(widest, measure.width(r.label, kTickSize));
  for (const VerticalMark& m : s.marks) widest = std::max(widest, measure.width(m.label, kTickSize));
  return any_entry ? kGap * 3 + 22.0f + widest : 0.0f;
}

// The y axis's ticks and their labels: powers of ten on a log axis (in log units), else nice steps.
std::vector<std::pair<double, std::string>> y_axis_ticks(bool log_y, double y_min, double y_max) {
  std::vector<std::pair<double, std::string>> ticks;
  if (log_y) {
    const int step = std::max(1, static_cast<int>(std::ceil((y_max - y_min) / 8.0)));
    for (int k = static_cast<int>(y_min); k <= static_cast<int>(y_max); k += step) ticks.emplace_back(k, power_of_ten(k));
  } else {
    const auto nice = nice_ticks(y_min, y_max, 7);
    const double step = nice.size() > 1 ? nice[1] - nice[0] : 1.0;
    for (double t : nice) ticks.emplace_back(t, tick_label(t, step));
  }
  return ticks;
}

// The legend from `at` down: a sample of each labelled series, then the reference lines and marks.
void draw_legend(Figure& fig, const LinePlotSpec& s, Point at) {
  float ly = at.y;
  const float lx = at.x;
  for (const Series& series : s.series) {
    if (series.label.empty()) continue;
    if (series.stroke == Stroke::Solid) fig.line({lx, ly + 6.0f}, {lx + 18.0f, ly + 6.0f}, series.color, 2.5f);
    if (series.stroke == Stroke::Dashed) {
      fig.line({lx, ly + 6.0f}, {lx + 7.0f, ly + 6.0f}, series.color, 2.5f);
      fig.line({lx + 11.0f, ly + 6.0f}, {lx + 18.0f, ly + 6.0f}, series.color, 2.5f);
    }
    if (series.stroke == Stroke::None) {
      const float half = series.marker_size * 0.5f;
      fig.rect({lx + 9.0f - half, ly + 6.0f - half, lx + 9.0f + half, ly + 6.0f + half}, series.color);
    }
    fig.text({lx + 22.0f, ly + 6.0f}, series.label, kTickSize, kInk, HAlign::Left, VAlign::Middle).role = "legend";
    ly += kTickSize + 8.0f;
  }
  for (const ReferenceLine& r : s.references) {
    fig.line({lx, ly + 6.0f}, {lx + 7.0f, ly + 6.0f}, r.color, 1.5f);
    fig.line({lx + 11.0f, ly + 6.0f}, {lx + 18.0f, ly + 6.0f}, r.color, 1.5f);
    fig.text({lx + 22.0f, ly + 6.0f}, r.label, kTickSize, kInk, HAlign::Left, VAlign::Middle).role = "legend";
    ly += kTickSize + 8.0f;
  }
  for (const VerticalMark& m : s.marks) {
    fig.line({lx + 9.0f, ly}, {lx + 9.0f, ly + 5.0f}, m.color, 1.5f);
    fig.line({lx + 9.0f, ly + 8.0f}, {lx + 9.0f, ly + 13.0f}, m.color, 1.5f);
    fig.text({lx + 22.0f, ly + 6.0f}, m.label, kTickSize, kInk, HAlign::Left, VAlign::Middle).role = "legend";
    ly += kTickSize + 8.0f;
  }
}

// The data range the axes show (in log10 units on a log axis), padded a little, into `out`.
void data_range(const LinePlotSpec& s, LinePlotFigure& out) {
  auto ty = [&](double y) { return s.log_y ? std::log10(std::max(y, 1e-300)) : y; };
  auto tx = [&](double x) { return s.log_x ? std::log10(std::max(x, 1e-300)) : x; };
  auto usable = [&](double x, double y) {
    return std::isfinite(x) && std::isfinite(y) && (!s.log_y || y > 0) && (!s.log_x || x > 0);
  };
  double x_min = std::numeric_limits<double>::infinity(), x_max = -x_min, y_min = x_min, y_max = -x_min;
  for (const Series& series : s.series)
    for (std::size_t i = 0; i < series.x.size() && i < series.y.size(); ++i) {
      if (!usable(series.x[i], series.y[i])) continue;
      x_min = std::min(x_min, tx(series.x[i]));
      x_max = std::max(x_max, tx(series.x[i]));
      y_min = std::min(y_min, ty(series.y[i]));
      y_max = std::max(y_max, ty(series.y[i]));
    }
  for (const ReferenceLine& r : s.references) {
    y_min = std::min(y_min, ty(r.y));
    y_max = std::max(y_max, ty(r.y));
  }
  for (const VerticalMark& m : s.marks)
    if (!s.log_x || m.x > 0) {
      x_min = std::min(x_min, tx(m.x));
      x_max = std::max(x_max, tx(m.x));
    }
  if (!std::isfinite(x_min)) x_min = 0, x_max = 1, y_min = 0, y_max = 1;
  if (x_max - x_min < 1e-12) x_max = x_min + 1;
  if (s.log_x) {  // room for the end markers
    const double pad = 0.04 * (x_max - x_min);
    x_min -= pad;
    x_max += pad;
  }
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
}

}  // namespace

LinePlotFigure build_line_plot(const LinePlotSpec& s, const TextMeasure& measure) {
  LinePlotFigure out;
  Figure& fig = out.figure;
  auto ty = [&](double y) { return s.log_y ? std::log10(std::max(y, 1e-300)) : y; };
  auto tx = [&](double x) { return s.log_x ? std::log10(std::max(x, 1e-300)) : x; };
  auto usable = [&](double x, double y) {
    return std::isfinite(x) && std::isfinite(y) && (!s.log_y || y > 0) && (!s.log_x || x > 0);
  };

  data_range(s, out);
  const double x_min = out.x_min, x_max = out.x_max, y_min = out.y_min, y_max = out.y_max;

  // Tick labels decide the left margin.
  const auto y_ticks = y_axis_ticks(s.log_y, y_min, y_max);
  float y_tick_w = 0;
  for (const auto& [v, label] : y_ticks) y_tick_w = std::max(y_tick_w, measure.width(label, kTickSize));

  // The y label reads upwards beside the plotting area; one longer than the area is tall wraps
  // into columns (the first on the left) instead of running up into the subtitle.
  std::vector<std::string> y_label = wrap_text(s.y_label, s.height, kLabelSize, measure);
  if (y_label.empty()) y_label.push_back(s.y_label);  // an empty label still takes its column
  const float y_label_w = static_cast<float>(y_label.size()) * (kLabelSize + 2.0f) - 2.0f;
  const float left = kMargin + y_label_w + kGap + y_tick_w + kGap + 4.0f;
  const float legend_space = legend_width(s, measure);
  // The subtitle wraps to the width the plot and its legend need, never widening the figure.
  const float width =
      std::max(left + s.width + legend_space + kMargin, kMargin * 2 + measure.width(s.title, kTitleSize));
  const std::vector<std::string> subtitle =
      s.subtitle.empty() ? std::vector<std::string>{} : wrap_text(s.subtitle, width - 2 * kMargin, kTickSize, measure);
  const float top = kMargin + kTitleSize + kGap + static_cast<float>(subtitle.size()) * (kTickSize + kGap) + 10.0f;
  out.area = {left, top, left + s.width, top + s.height};
  const Box& a = out.area;
  fig.width = width;
  fig.height = a.y1 + 4.0f + kGap + kTickSize + kGap + kLabelSize + kMargin;

  auto px = [&](double x) { return a.x0 + static_cast<float>((x - x_min) / (x_max - x_min)) * a.width(); };
  auto py = [&](double yt) { return a.y1 - static_cast<float>((yt - y_min) / (y_max - y_min)) * a.height(); };

  fig.areas.push_back(a);
  fig.text({kMargin, kMargin}, s.title, kTitleSize, kInk).role = "title";
  for (std::size_t line = 0; line < subtitle.size(); ++line)
    fig.text({kMargin, kMargin + kTitleSize + kGap + static_cast<float>(line) * (kTickSize + kGap)}, subtitle[line],
             kTickSize, kMuted)
        .role = "subtitle";

  // Grid and ticks.
  for (const auto& [v, label] : y_ticks) {
    const float y = py(v);
    fig.line({a.x0, y}, {a.x1, y}, kGrid);
    fig.line({a.x0 - 4.0f, y}, {a.x0, y}, kMuted);
    fig.text({a.x0 - 4.0f - kGap, y}, label, kTickSize, kInk, HAlign::Right, VAlign::Middle).role = "y tick";
  }
  for (const auto& [t, label] : x_axis_ticks(s, x_min, x_max, a.width(), measure)) {
    const float x = px(t);
    fig.line({x, a.y0}, {x, a.y1}, kGrid);
    fig.line({x, a.y1}, {x, a.y1 + 4.0f}, kMuted);
    fig.text({x, a.y1 + 4.0f + kGap}, label, kTickSize, kInk, HAlign::Center, VAlign::Top).role = "x tick";
  }
  fig.rect(a, {0, 0, 0, 0}, kMuted);
  fig.text({(a.x0 + a.x1) * 0.5f, fig.height - kMargin}, s.x_label, kLabelSize, kMuted, HAlign::Center, VAlign::Bottom)
      .role = "x label";
  for (std::size_t line = 0; line < y_label.size(); ++line)
    fig.text({kMargin + kLabelSize * 0.5f + static_cast<float>(line) * (kLabelSize + 2.0f), (a.y0 + a.y1) * 0.5f},
             y_label[line], kLabelSize, kMuted, HAlign::Center, VAlign::Middle, true)
        .role = "y label";

  // Reference lines, dashed, then the series.
  for (const ReferenceLine& r : s.references) {
    const float y = py(ty(r.y));
    for (float x = a.x0; x < a.x1; x += 10.0f) fig.line({x, y}, {std::min(x + 6.0f, a.x1), y}, r.color, 1.5f);
  }
  for (const VerticalMark& m : s.marks) {
    if (s.log_x && m.x <= 0) continue;
    const float x = px(tx(m.x));
    for (float y = a.y0; y < a.y1; y += 10.0f) fig.line({x, y}, {x, std::min(y + 6.0f, a.y1)}, m.color, 1.5f);
  }
  for (const Series& series : s.series) {
    std::vector<Point> points;
    for (std::size_t i = 0; i < series.x.size() && i < series.y.size(); ++i)
      if (usable(series.x[i], series.y[i])) points.push_back({px(tx(series.x[i])), py(ty(series.y[i]))});
    if (points.size() > 1 && series.stroke == Stroke::Solid) fig.polyline(points, series.color, 2.0f);
    if (points.size() > 1 && series.stroke == Stroke::Dashed) dashed_polyline(fig, points, series.color, 2.0f);
    const float half = series.marker_size * 0.5f;
    if (series.markers && points.size() <= 128)
      for (const Point& p : points) fig.rect({p.x - half, p.y - half, p.x + half, p.y + half}, series.color);
  }

  draw_legend(fig, s, {a.x1 + kGap * 2, a.y0 + 4.0f});
  return out;
}

}  // namespace poslab::plot
