#include "figures/rope2d.hpp"

#include "plot/wrap.hpp"


#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <sstream>

#include "core/encodings/encodings.hpp"
#include "base/random.hpp"
#include "core/encodings/rope_plane.hpp"
#include "plot/lines.hpp"
#include "figures/fit.hpp"

namespace poslab {

namespace {

constexpr int kDistance = 64;    // score curve: n − m from −64 to 64
constexpr int kDecayTo = 256;    // decay bound: distances 0 … 256

// Seeded q and k of the demonstration head.
std::pair<std::vector<double>, std::vector<double>> demo_vectors(std::uint64_t seed) {
  Rng rng(mix_seed(seed, 11));
  std::vector<double> q(kRope2dHeadDim), k(kRope2dHeadDim);
  for (auto& x : q) x = rng.normal();
  for (auto& x : k) x = rng.normal();
  return {q, k};
}

void arrow(plot::Figure& f, plot::Point from, plot::Point to, plot::Color c, float width) {
  f.line(from, to, c, width);
  const float dx = to.x - from.x, dy = to.y - from.y, len = std::max(1e-3f, std::hypot(dx, dy));
  const float ux = dx / len, uy = dy / len, head = 10.0f;
  f.line(to, {to.x - head * (ux * 0.87f - uy * 0.5f), to.y - head * (uy * 0.87f + ux * 0.5f)}, c, width);
  f.line(to, {to.x - head * (ux * 0.87f + uy * 0.5f), to.y - head * (uy * 0.87f - ux * 0.5f)}, c, width);
}

// The exported layout: the plane 380 points square, each plot's area 420 × 150.
constexpr float kPlaneSide = 380.0f, kPlotWidth = 420.0f, kPlotHeight = 150.0f;

// Pair i of q and k on the plane (screen y points down, so the plane's y is flipped), `side`
// points wide below a 60-point header.
plot::Figure plane(const State& state, const std::vector<double>& q, const std::vector<double>& k,
                   const std::vector<double>& thetas, float side) {
  const int i = std::clamp(state.view.rope_pair, 0, static_cast<int>(thetas.size()) - 1);
  const int m = state.view.rope_m, n = state.view.rope_n;
  const std::array<double, 2> qi{q[2 * static_cast<std::size_t>(i)], q[2 * static_cast<std::size_t>(i) + 1]};
  const std::array<double, 2> ki{k[2 * static_cast<std::size_t>(i)], k[2 * static_cast<std::size_t>(i) + 1]};
  const double theta = thetas[static_cast<std::size_t>(i)];
  const auto qr = rotate2(qi, m * theta), kr = rotate2(ki, n * theta);
  const double radius = std::max({std::hypot(qi[0], qi[1]), std::hypot(ki[0], ki[1]), 1e-9});
  plot::Figure f;
  const float grow = side / kPlaneSide;  // 1 for the exported figure
  const plot::Color ink{0.1f, 0.1f, 0.12f, 1}, muted{0.55f, 0.55f, 0.6f, 1};
  // The words wrap to the panel's width: a small panel must not run them into its neighbour.
  const auto& measure = plot::figure_text_measure();
  const float text_width = std::max(60.0f, side - 28.0f);
  char text[128];
  std::snprintf(text, sizeof text, "Pair %d on the plane · θ = %.4g", i, theta);
  const auto title = plot::wrap_text(text, text_width, 16.0f, measure);
  std::snprintf(text, sizeof text, "q at m = %d turns by mθ = %.3f rad; k at n = %d by nθ = %.3f", m, m * theta, n,
                n * theta);
  const auto subtitle = plot::wrap_text(text, text_width, 12.0f, measure);
  const double pair_score = qr[0] * kr[0] + qr[1] * kr[1];
  std::snprintf(text, sizeof text, "this pair's q·k = %.4f; it depends on (n − m)θ = %.3f only", pair_score,
                (n - m) * theta);
  const auto caption = plot::wrap_text(text, text_width, 12.0f, measure);
  const float extra_title = 20.0f * static_cast<float>(std::max<std::size_t>(title.size(), 1) - 1);
  const float extra_top = extra_title + 16.0f * static_cast<float>(std::max<std::size_t>(subtitle.size(), 1) - 1);
  const float extra_bottom = 16.0f * static_cast<float>(std::max<std::size_t>(caption.size(), 1) - 1);
  f.width = side;
  f.height = 60.0f + extra_top + side + extra_bottom;
  const plot::Point c{side * 0.5f, 60.0f + extra_top + side * 0.5f - 10.0f};
  const float scale = 150.0f * grow / static_cast<float>(radius);
  const float axis = 165.0f * grow;
  auto at = [&](std::array<double, 2> v) {
    return plot::Point{c.x + static_cast<float>(v[0]) * scale, c.y - static_cast<float>(v[1]) * scale};
  };
  for (std::size_t line = 0; line < title.size(); ++line)
    f.text({14, 14.0f + 20.0f * static_cast<float>(line)}, title[line], 16.0f, ink).role = "title";
  for (std::size_t line = 0; line < subtitle.size(); ++line)
    f.text({14, 38.0f + extra_title + 16.0f * static_cast<float>(line)}, subtitle[line], 12.0f,
           plot::Color{0.38f, 0.38f, 0.42f, 1})
        .role = "subtitle";
  std::vector<plot::Point> circle;
  for (int s = 0; s <= 96; ++s) {
    const double a = 2 * std::numbers::pi * s / 96;
    circle.push_back(at({radius * std::cos(a), radius * std::sin(a)}));
  }
  f.areas.push_back({c.x - axis, c.y - axis, c.x + axis, c.y + axis});  // the plane's axes
  f.polyline(circle, plot::Color{0.85f, 0.85f, 0.88f, 1}, 1.0f);
  f.line({c.x - axis, c.y}, {c.x + axis, c.y}, plot::Color{0.9f, 0.9f, 0.92f, 1});
  f.line({c.x, c.y - axis}, {c.x, c.y + axis}, plot::Color{0.9f, 0.9f, 0.92f, 1});
  arrow(f, c, at(qi), plot::Color{0.6f, 0.75f, 0.9f, 1}, 1.5f);  // before turning: faint
  arrow(f, c, at(ki), plot::Color{0.95f, 0.75f, 0.55f, 1}, 1.5f);
  arrow(f, c, at(qr), plot::series_color(0), 2.5f);
  arrow(f, c, at(kr), plot::series_color(1), 2.5f);
  f.text(at(qr), " R_m q", 13.0f, plot::series_color(0), plot::HAlign::Left, plot::VAlign::Bottom);
  f.text(at(kr), " R_n k", 13.0f, plot::series_color(1), plot::HAlign::Left, plot::VAlign::Bottom);
  const float caption_top = f.height - 20.0f - extra_bottom;
  for (std::size_t line = 0; line < caption.size(); ++line)
    f.text({14, caption_top + 16.0f * static_cast<float>(line)}, caption[line], 12.0f, muted).role = "caption";
  return f;
}

// The plane, and the score and decay plots stacked on its right.
plot::Figure rope2d_layout(const State& state, float plane_side, float plot_width, float plot_height) {
  const auto thetas = rope_thetas(kRope2dHeadDim, state.model.base);
  const auto [q, k] = demo_vectors(state.model.seed);
  plot::Figure left = plane(state, q, k, thetas, plane_side);

  plot::LinePlotSpec scores;
  scores.title = "Score (R_m q)·(R_n k) against n − m";
  char subtitle[160];
  std::snprintf(subtitle, sizeof subtitle,
                "d_h = %d, base %g: the same curve for every m (three curves drawn on one another: line, dashes, dots)",
                kRope2dHeadDim, state.model.base);
  scores.subtitle = subtitle;
  scores.x_label = "n − m";
  scores.y_label = "score";
  scores.width = plot_width;
  scores.height = plot_height;
  // The three curves coincide exactly, so each is drawn differently for all three to be seen:
  // a solid line under dashes under dots at every fourth n − m.
  int color = 0;
  const plot::Stroke strokes[] = {plot::Stroke::Solid, plot::Stroke::Dashed, plot::Stroke::None};
  for (int m : {0, 25, state.view.rope_m}) {
    const plot::Stroke stroke = strokes[color];
    plot::Series s{"m = " + std::to_string(m), {}, {}, plot::series_color(color++), stroke == plot::Stroke::None, stroke};
    for (int delta = -kDistance; delta <= kDistance; ++delta) {
      if (stroke == plot::Stroke::None && delta % 4 != 0) continue;
      s.x.push_back(delta);
      s.y.push_back(rope_score(q, k, thetas, m, m + delta));
    }
    scores.series.push_back(std::move(s));
  }
  const plot::Figure top = plot::build_line_plot(scores, plot::figure_text_measure()).figure;

  plot::LinePlotSpec decay;
  decay.title = "Long-term decay (RoFormer): bound on |Σ| against distance";
  decay.subtitle = "(1/(d/2)) · sum over j of |Σ_{i<j} exp(i·r·θᵢ)|";
  decay.x_label = "relative distance r";
  decay.y_label = "relative upper bound";
  decay.width = plot_width;
  decay.height = plot_height;
  plot::Series bound{"bound", {}, {}, plot::series_color(3), false};
  for (int r = 0; r <= kDecayTo; ++r) {
    bound.x.push_back(r);
    bound.y.push_back(rope_decay_bound(thetas, r));
  }
  decay.series.push_back(std::move(bound));
  const plot::Figure bottom = plot::build_line_plot(decay, plot::figure_text_measure()).figure;

  plot::Figure figure;
  figure.place(left, {0, 0});
  figure.place(top, {left.width, 0});
  figure.place(bottom, {left.width, top.height});
  figure.width = left.width + std::max(top.width, bottom.width);
  figure.height = std::max(left.height, top.height + bottom.height);
  return figure;
}

}  // namespace

plot::Figure rope2d_figure(const State& state) { return rope2d_layout(state, kPlaneSide, kPlotWidth, kPlotHeight); }

plot::Figure rope2d_figure_to_fill(const State& state, plot::Point room, Overflow overflow) {
  // Everything but the text grows by one factor, so the plane stays as tall as the two plots.
  auto layout = [&](float grow) {
    return rope2d_layout(state, kPlaneSide * grow, kPlotWidth * grow, kPlotHeight * grow);
  };
  const float grow = fit_size(
      room, 50.0f, 400.0f, [&](float percent) { return size_of(layout(percent / 100.0f)); }, overflow);
  return layout(grow / 100.0f);
}

std::string rope2d_csv(const State& state) {
  const auto thetas = rope_thetas(kRope2dHeadDim, state.model.base);
  const auto [q, k] = demo_vectors(state.model.seed);
  std::ostringstream csv;
  csv << "m,delta,score\n";
  char line[96];
  for (int m : {0, 25, state.view.rope_m})
    for (int delta = -kDistance; delta <= kDistance; ++delta) {
      std::snprintf(line, sizeof line, "%d,%d,%.17g\n", m, delta, rope_score(q, k, thetas, m, m + delta));
      csv << line;
    }
  return csv.str();
}

}  // namespace poslab
