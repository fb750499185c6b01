#include "figures/trajectory.hpp"


#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/encodings/trajectory.hpp"
#include "core/workspace.hpp"
#include "plot/lines.hpp"
#include "figures/fit.hpp"

namespace poslab {

namespace {

struct Path {
  std::string name;      // e.g. "binary {0, 1}"
  EncodingKind encoding;
  Trajectory trajectory;
};

// The token shown: the chosen one, kept inside the sentence's real (not padding) tokens.
int shown_token(const State& state, const Results& r) {
  int last = 0;
  for (int t = 0; t < r.problem.queries(); ++t)
    if (!r.tokens[static_cast<std::size_t>(t)].padding) last = t;
  return std::clamp(state.view.trajectory_token, 0, last);
}

// Row t of the embeddings as loaded: the problem's input minus the encoding it added.
Matrix token_embedding(const State& state, const Results& r, int t) {
  const int d = r.problem.width();
  auto added = additive_encoding(state.model, r.problem.queries(), d);
  Matrix e = r.problem.Xq.row(t);
  if (added) e -= added->row(t);
  return e;
}

std::string encoding_name(const ModelSettings& m) {
  switch (m.encoding) {
    case EncodingKind::Binary: return m.binary_values == BinaryValues::ZeroOne ? "binary {0, 1}" : "binary {−1, +1}";
    case EncodingKind::Sinusoidal: {
      char name[64];
      std::snprintf(name, sizeof name, "sinusoidal, base %g", m.base);
      return name;
    }
    default: return describe_encoding(m);
  }
}

// Binary and sinusoid always; the chosen additive encoding too when it is another one.
std::vector<Path> paths_for(const State& state, const Results& r) {
  std::vector<EncodingKind> kinds{EncodingKind::Binary, EncodingKind::Sinusoidal};
  const EncodingKind chosen = state.model.encoding;
  if (chosen == EncodingKind::Integer || chosen == EncodingKind::Normalized || chosen == EncodingKind::Learned)
    kinds.push_back(chosen);
  const int d = r.problem.width(), positions = state.view.trajectory_positions;
  const Matrix e = token_embedding(state, r, shown_token(state, r));
  const TrajectoryPlane plane = state.view.trajectory_plane;
  const int dx = std::clamp(state.view.trajectory_dim_x, 0, d - 1), dy = std::clamp(state.view.trajectory_dim_y, 0, d - 1);
  std::vector<Path> paths;
  for (EncodingKind kind : kinds) {
    ModelSettings m = state.model;
    m.encoding = kind;
    auto pe = additive_encoding(m, positions, d);
    if (!pe) continue;  // a learned table shorter than the range: nothing to draw
    auto t = trajectory(e, *pe, plane, dx, dy);
    if (t) paths.push_back({encoding_name(m), kind, std::move(*t)});
  }
  return paths;
}

std::string plane_axis(const State& state, int axis, int d) {
  if (state.view.trajectory_plane == TrajectoryPlane::Pca) return axis == 0 ? "principal component 1" : "principal component 2";
  const int dim = std::clamp(axis == 0 ? state.view.trajectory_dim_x : state.view.trajectory_dim_y, 0, d - 1);
  return "dimension " + std::to_string(dim);
}

// A label beside a point of the path ("p = 0" at its start, the largest jump's "31 → 32" at the
// jump's middle), at the corner of the four around it that the path crosses least (sampled along
// its segments) and that keeps the label inside the plot: put at a fixed corner, a label sat
// under the path wherever the path left that way. The segment the label names (`own`: its index,
// the segment from path[own] to path[own + 1]) must stay clear above all; a pale backing keeps it
// legible where the path is dense all around.
// Whether the segment a–b meets the box (Liang–Barsky: the part of the segment inside each pair
// of the box's edges, intersected).
bool segment_meets_box(plot::Point a, plot::Point b, const plot::Box& box) {
  float t0 = 0.0f, t1 = 1.0f;
  const float dx = b.x - a.x, dy = b.y - a.y;
  const float p[4] = {-dx, dx, -dy, dy}, q[4] = {a.x - box.x0, box.x1 - a.x, a.y - box.y0, box.y1 - a.y};
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0.0f) {
      if (q[i] < 0.0f) return false;  // parallel to this edge and outside it
      continue;
    }
    const float t = q[i] / p[i];
    if (p[i] < 0.0f) t0 = std::max(t0, t);
    else t1 = std::min(t1, t);
    if (t0 > t1) return false;
  }
  return true;
}

// A label beside `start`, in the corner where it crosses the fewest of the path's segments and
// stays inside the plot area. Segment `own` (the line the label names, drawn `own_width` wide)
// must stay clear of it by its half width and 2 px: any corner that does not is a last resort.
void place_label(plot::Figure& figure, const plot::Box& area, const std::vector<plot::Point>& path, plot::Point start,
                 const std::string& label, plot::Color ink, std::size_t own = static_cast<std::size_t>(-1), float own_width = 0.0f) {
  constexpr float size = 11.0f, gap = 7.0f;
  const float w = plot::figure_text_measure().width(label, size), h = size * 1.3f;
  const float clearance = own_width / 2.0f + 2.0f;
  float best_cost = 1e30f;
  plot::Box best;
  for (const bool right : {true, false})
    for (const bool below : {true, false}) {
      const float x0 = right ? start.x + gap : start.x - gap - w, y0 = below ? start.y + gap : start.y - gap - h;
      const plot::Box box{x0, y0, x0 + w, y0 + h};
      float cost = (box.x0 < area.x0 || box.x1 > area.x1 || box.y0 < area.y0 || box.y1 > area.y1) ? 1e6f : 0.0f;
      for (std::size_t k = 0; k + 1 < path.size(); ++k) {
        if (k == own) {
          const plot::Box clear{box.x0 - clearance, box.y0 - clearance, box.x1 + clearance, box.y1 + clearance};
          cost += segment_meets_box(path[k], path[k + 1], clear) ? 1000.0f : 0.0f;
          continue;
        }
        for (int i = 0; i < 8; ++i) {
          const float f = static_cast<float>(i) / 8.0f;
          cost += box.contains({path[k].x + f * (path[k + 1].x - path[k].x), path[k].y + f * (path[k + 1].y - path[k].y)}) ? 1.0f : 0.0f;
        }
      }
      if (cost < best_cost) best_cost = cost, best = box;
    }
  figure.rect({best.x0 - 2.0f, best.y0 - 1.0f, best.x1 + 2.0f, best.y1}, {1.0f, 1.0f, 1.0f, 0.85f});
  figure.text({best.x0, best.y0}, label, size, ink, plot::HAlign::Left, plot::VAlign::Top);
}

plot::Figure path_panel(const State& state, const Path& path, int d, const std::string& token, float side, int colour) {
  const Trajectory& t = path.trajectory;
  const auto [lo, hi] = std::minmax_element(t.steps.begin(), t.steps.end());
  plot::LinePlotSpec spec;
  spec.title = token + " + " + path.name;
  char subtitle[160];
  const double low = t.steps.empty() ? 0.0 : *lo, high = t.steps.empty() ? 0.0 : *hi;
  if (high - low <= 1e-6 * high)
    std::snprintf(subtitle, sizeof subtitle, "every step %.3g · plane: %.0f%% of variance", high, 100.0 * t.explained);
  else
    std::snprintf(subtitle, sizeof subtitle, "steps %.3g to %.3g · plane: %.0f%% of variance", low, high, 100.0 * t.explained);
  spec.subtitle = subtitle;
  spec.x_label = plane_axis(state, 0, d);
  spec.y_label = plane_axis(state, 1, d);
  spec.width = side;
  spec.height = side;
  plot::Series series{"", {}, {}, plot::series_color(colour), true};  // one path: the title names it
  for (Eigen::Index p = 0; p < t.points.rows(); ++p) {
    series.x.push_back(t.points(p, 0));
    series.y.push_back(t.points(p, 1));
  }
  spec.series.push_back(series);
  plot::LinePlotFigure built = plot::build_line_plot(spec, plot::figure_text_measure());
  // Label the start and the largest jump, so a reader sees where the path goes.
  auto at = [&](Eigen::Index p) {
    const plot::Box& a = built.area;
    return plot::Point{a.x0 + static_cast<float>((t.points(p, 0) - built.x_min) / (built.x_max - built.x_min)) * a.width(),
                       a.y1 - static_cast<float>((t.points(p, 1) - built.y_min) / (built.y_max - built.y_min)) * a.height()};
  };
  const plot::Color ink{0.1f, 0.1f, 0.12f, 1};
  const plot::Point start = at(0);
  built.figure.rect({start.x - 5, start.y - 5, start.x + 5, start.y + 5}, {0, 0, 0, 0}, ink, 1.5f);
  std::vector<plot::Point> drawn;
  for (Eigen::Index p = 0; p < t.points.rows(); ++p) drawn.push_back(at(p));
  if (!drawn.empty()) place_label(built.figure, built.area, drawn, drawn.front(), "p = 0", ink);
  if (!t.steps.empty() && *hi > *lo * 1.01) {
    const auto jump = static_cast<Eigen::Index>(hi - t.steps.begin()) + 1;
    const plot::Point a = at(jump - 1), b = at(jump);
    constexpr float jump_width = 2.5f;
    built.figure.line(a, b, plot::Color{0.8f, 0.1f, 0.1f, 1}, jump_width);
    char label[48];
    std::snprintf(label, sizeof label, "%lld → %lld", static_cast<long long>(jump - 1), static_cast<long long>(jump));
    // Beside the jump's middle where the path is not (it was drawn across its own red line).
    place_label(built.figure, built.area, drawn, {(a.x + b.x) / 2, (a.y + b.y) / 2}, label, plot::Color{0.7f, 0.05f, 0.05f, 1},
                static_cast<std::size_t>(jump - 1), jump_width);
  }
  return built.figure;
}

plot::Figure steps_panel(const std::vector<Path>& paths, float width) {
  plot::LinePlotSpec spec;
  spec.title = "Step length ‖x(p) − x(p − 1)‖ in all dimensions";
  spec.subtitle = "the binary code jumps when many bits flip (√k for k bits); the sinusoid's step is one constant";
  spec.x_label = "position p";
  spec.y_label = "step";
  spec.width = width;
  spec.height = 170.0f;
  int k = 0;
  for (const Path& path : paths) {
    plot::Series s{path.name, {}, {}, plot::series_color(k++), true};
    for (std::size_t p = 0; p < path.trajectory.steps.size(); ++p) {
      s.x.push_back(static_cast<double>(p + 1));
      s.y.push_back(path.trajectory.steps[p]);
    }
    spec.series.push_back(std::move(s));
  }
  return plot::build_line_plot(spec, plot::figure_text_measure()).figure;
}

}  // namespace

namespace {

// The paths' squares side by side, `side` points each.
plot::Figure paths_row(const State& state, const Results& results, const std::vector<Path>& paths, float side) {
  const int d = results.problem.width();
  const std::string token = "“" + results.tokens[static_cast<std::size_t>(shown_token(state, results))].text + "”";
  plot::Figure row;
  int k = 0;
  for (const Path& path : paths) row.append_right(path_panel(state, path, d, token, side, k++));
  return row;
}

}  // namespace

plot::Figure trajectory_figure(const State& state, const Results& results, float side) {
  const std::vector<Path> paths = paths_for(state, results);
  plot::Figure figure;
  figure.append_below(paths_row(state, results, paths, side));
  figure.append_below(steps_panel(paths, std::max(300.0f, figure.width - 260.0f)));
  return figure;
}

std::string trajectory_csv(const State& state, const Results& results) {
  std::ostringstream csv;
  csv << "encoding,position,x,y,step\n";
  char line[160];
  for (const Path& path : paths_for(state, results)) {
    const Trajectory& t = path.trajectory;
    for (Eigen::Index p = 0; p < t.points.rows(); ++p) {
      std::snprintf(line, sizeof line, "%s,%lld,%.9g,%.9g,", std::string(to_string(path.encoding)).c_str(),
                    static_cast<long long>(p), t.points(p, 0), t.points(p, 1));
      csv << line;
      if (p > 0) {
        std::snprintf(line, sizeof line, "%.9g", t.steps[static_cast<std::size_t>(p - 1)]);
        csv << line;
      }
      csv << '\n';
    }
  }
  return csv.str();
}

plot::Figure trajectory_figure_to_fill(const State& state, const Results& results, plot::Point room,
                                       Overflow overflow) {
  if (overflow == Overflow::ScrollDown) {
    // A slide (the tour) scrolls down: the paths' squares fill the room seen at once, the step
    // lengths below them are scrolled to. Fitted with the step lengths into what the slide's
    // words leave, the squares were the smallest side, 100 points, their labels crowded.
    const std::vector<Path> paths = paths_for(state, results);
    const float side = std::floor(
        fit_size(room, kMinSide, kMaxSide, [&](float s) { return size_of(paths_row(state, results, paths, s)); }, overflow));
    return trajectory_figure(state, results, side);
  }
  const float side = std::floor(fit_size(
      room, kMinSide, kMaxSide, [&](float s) { return size_of(trajectory_figure(state, results, s)); }, overflow));
  return trajectory_figure(state, results, side);
}

}  // namespace poslab
