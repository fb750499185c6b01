#include "figures/tour.hpp"


#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/encodings/additive.hpp"
#include "core/encodings/encodings.hpp"
#include "core/export_data.hpp"
#include "core/workspace.hpp"
#include "plot/heatmap.hpp"
#include "plot/lines.hpp"
#include "plot/wrap.hpp"
#include "figures/attention.hpp"
#include "figures/bias.hpp"
#include "figures/dog.hpp"
#include "figures/export.hpp"
#include "figures/fit.hpp"
#include "figures/frequencies.hpp"
#include "figures/magnitude.hpp"
#include "figures/patterns.hpp"
#include "figures/rope2d.hpp"
#include "figures/rope_image.hpp"
#include "figures/shift.hpp"
#include "figures/trajectory.hpp"

namespace poslab {

namespace {

constexpr float kMargin = 18.0f, kMinWidth = 780.0f;
const plot::Color kInk{0.1f, 0.1f, 0.12f, 1}, kMuted{0.4f, 0.4f, 0.45f, 1};
const plot::Color kPass{0.12f, 0.55f, 0.25f, 1}, kFail{0.75f, 0.15f, 0.12f, 1};

const TourText& text_of(int step, Language language) {
  const auto& texts = tour_texts(language);
  return texts[static_cast<std::size_t>(std::clamp(step, 0, static_cast<int>(texts.size()) - 1))];
}

// Step 2: each property beside the step and view that test it.
plot::Figure properties_figure(Language language) {
  const auto& measure = plot::figure_text_measure();
  plot::Figure f;
  float y = 10.0f, width = 0.0f;
  for (int n = 0; n < 5; ++n) {
    const std::string& name = tour_property(language, n);
    f.text({kMargin, y}, name, 14.0f, kInk);
    const std::string& where = tour_property_test(language, n);
    f.text({kMargin + 16.0f, y + 20.0f}, where, 12.0f, kMuted);
    width = std::max({width, measure.width(name, 14.0f), measure.width(where, 12.0f) + 16.0f});
    y += 46.0f;
  }
  f.width = width + 2 * kMargin;
  f.height = y;
  return f;
}

// A figure word with the token put in for its "%s".
std::string with_token(const std::string& words, const std::string& token) {
  const auto at = words.find("%s");
  return at == std::string::npos ? words : words.substr(0, at) + token + words.substr(at + 2);
}

// Step 4: p/N for two sentence lengths; the plotting area `width` × `height` points.
plot::Figure normalized_figure(Language language, float width = 560.0f, float height = 260.0f) {
  const TourFigureWords& words = tour_figure_words(language);
  plot::LinePlotSpec spec;
  spec.title = words.normalized_title;
  spec.subtitle = words.normalized_subtitle;
  spec.x_label = words.position_axis;
  spec.y_label = "PE(p) = p/N";
  spec.width = width;
  spec.height = height;
  int k = 0;
  for (int N : {5, 10}) {
    plot::Series s{"N = " + std::to_string(N), {}, {}, plot::series_color(k++), true};
    const Matrix pe = normalized_encoding(N, 1, N);
    for (int p = 0; p < N; ++p) {
      s.x.push_back(p);
      s.y.push_back(pe(p, 0));
    }
    spec.series.push_back(std::move(s));
  }
  return plot::build_line_plot(spec, plot::figure_text_measure()).figure;
}

// Step 8: absolute positions and positions relative to the third token.
plot::Figure relative_figure(const Results& r, Language language) {
  const TourFigureWords& words = tour_figure_words(language);
  const auto& measure = plot::figure_text_measure();
  const int T = static_cast<int>(r.tokens.size());
  const int anchor = std::min(2, T - 1);
  std::vector<float> widths;
  for (const Token& t : r.tokens) widths.push_back(std::max(56.0f, measure.width(t.text, 15.0f) + 20.0f));
  const std::string relative_label = with_token(words.relative_to, r.tokens[static_cast<std::size_t>(anchor)].text);
  const float label_w = std::max(measure.width(words.absolute_position, 13.0f), measure.width(relative_label, 13.0f)) + 24.0f;
  plot::Figure f;
  auto row = [&](float y, const std::string& label, auto value_of, plot::Color color, float size) {
    f.text({kMargin, y}, label, 13.0f, kMuted, plot::HAlign::Left, plot::VAlign::Middle);
    float x = kMargin + label_w;
    for (int t = 0; t < T; ++t) {
      const float w = widths[static_cast<std::size_t>(t)];
      if (t == anchor) f.rect({x, y - 15.0f, x + w, y + 15.0f}, plot::Color{1.0f, 0.93f, 0.7f, 1});
      f.text({x + w / 2, y}, value_of(t), size, color, plot::HAlign::Center, plot::VAlign::Middle);
      x += w;
    }
    return x;
  };
  float right = row(22.0f, words.absolute_position, [](int t) { return std::to_string(t); }, kInk, 15.0f);
  row(56.0f, "", [&](int t) { return r.tokens[static_cast<std::size_t>(t)].text; }, kInk, 16.0f);
  row(90.0f, relative_label,
      [&](int t) {
        const int rel = t - anchor;
        return rel < 0 ? "−" + std::to_string(-rel) : std::to_string(rel);
      },
      plot::Color{0.1f, 0.3f, 0.7f, 1}, 15.0f);
  f.width = right + kMargin;
  f.height = 112.0f;
  return f;
}

// Step 9: the norm of the live "dog" vector with a position added, and rotated.
Result<plot::Figure> norms_figure(const State& state, const EmbeddingTable& table, Language language,
                                  float width = 560.0f, float height = 260.0f) {
  auto curves = added_and_rotated_norms(state.model, table, 64);
  if (!curves) return Error{curves.error()};
  const TourFigureWords& words = tour_figure_words(language);
  plot::LinePlotSpec spec;
  spec.title = with_token(words.norms_title, curves->token);
  spec.subtitle = words.norms_subtitle;
  spec.x_label = words.position_axis;
  spec.y_label = words.norm_axis;
  spec.width = width;
  spec.height = height;
  plot::Series add{words.added_legend, {}, curves->added, plot::series_color(1), false};
  plot::Series rot{words.rotated_legend, {}, curves->rotated, plot::series_color(0), false};
  for (std::size_t p = 0; p < curves->added.size(); ++p) {
    add.x.push_back(static_cast<double>(p));
    rot.x.push_back(static_cast<double>(p));
  }
  spec.series = {add, rot};
  return plot::build_line_plot(spec, plot::figure_text_measure()).figure;
}

Result<plot::Figure> plot_of(const TourStep& step, Language language, const State& state, const Results& results,
                             const EmbeddingTable& table) {
  if (step.plot == "properties") return properties_figure(language);
  if (step.plot == "normalized") return normalized_figure(language);
  if (step.plot == "relative") return relative_figure(results, language);
  if (step.plot == "norms") return norms_figure(state, table, language);
  const auto view = view_named(step.plot);
  if (!view) return Error{"the tour names an unknown view \"" + step.plot + "\""};
  ExportRequest request;
  if (*view == ViewId::Frequencies) request.head_dim = 64;  // Llama 3.2's head width, as in the step
  return view_figure(*view, state, results, table, request);
}

// The step's plot filling `room` (points) as the view's own tab draws it, but as tall as its
// smallest layout needs: a slide scrolls down rather than shrink its plot.
Result<plot::Figure> plot_to_fill(const TourStep& step, Language language, const State& state, const Results& results,
                                  const EmbeddingTable& table, plot::Point room) {
  constexpr Overflow kScroll = Overflow::ScrollDown;
  auto line_plot = [&](auto&& build) -> Result<plot::Figure> {
    const plot::Point area = fit_area(
        room, kMinArea, kMaxArea,
        [&](float w, float h) {
          auto f = build(w, h);
          return f ? size_of(*f) : plot::Point{};
        },
        kScroll);
    return build(area.x, area.y);
  };
  if (step.plot == "normalized")
    return line_plot([&](float w, float h) -> Result<plot::Figure> { return normalized_figure(language, w, h); });
  if (step.plot == "norms")
    return line_plot([&](float w, float h) { return norms_figure(state, table, language, w, h); });
  const auto view = view_named(step.plot);
  if (!view || !view_info(*view).figure_to_fill) return plot_of(step, language, state, results, table);
  ViewInputs in{state, results, table};
  if (*view == ViewId::Frequencies) in.head_dim = 64;  // Llama 3.2's head width, as in the step and its export
  return view_info(*view).figure_to_fill(in, room, kScroll);
}

// Lines of text, wrapped, from `y` down; returns the y below them.
float paragraph(plot::Figure& f, const std::string& text, float x, float y, float width, float size, plot::Color color) {
  for (const std::string& line : plot::wrap_text(text, width, size, plot::figure_text_measure())) {
    f.text({x, y}, line, size, color);
    y += size * 1.5f;
  }
  return y;
}

// The slide's words from the top: header, title, body, formulas and the live check with its mark,
// wrapped to `inner` points, then a rule; returns the y of the rule.
float slide_words(plot::Figure& f, int step, Language language, const TourCheck& check, float inner) {
  const TourText& text = text_of(step, language);
  char header[96];
  std::snprintf(header, sizeof header, "%s %d / %zu", tour_word(language, 2).c_str(), step + 1, tour_steps().size());
  f.text({kMargin, kMargin}, header, 12.0f, kMuted);
  float y = paragraph(f, text.title, kMargin, kMargin + 20.0f, inner, 22.0f, kInk) + 4.0f;
  y = paragraph(f, text.body, kMargin, y, inner, 14.0f, kInk) + 6.0f;
  if (!text.formulas.empty()) {
    // Wrap first, so that the grey box can be drawn under the lines.
    std::vector<std::string> lines;
    for (const std::string& formula : text.formulas)
      for (std::string& line : plot::wrap_text(formula, inner - 28.0f, 15.0f, plot::figure_text_measure()))
        lines.push_back(std::move(line));
    const float height = 20.0f + 15.0f * 1.5f * static_cast<float>(lines.size());
    f.rect({kMargin, y, kMargin + inner, y + height}, plot::Color{0.95f, 0.95f, 0.97f, 1});
    y += 10.0f;
    for (const std::string& line : lines) {
      f.text({kMargin + 14.0f, y}, line, 15.0f, kInk);
      y += 15.0f * 1.5f;
    }
    y += 20.0f;
  }
  // The live check: what it verifies, the numbers measured now, and the mark.
  const std::string& mark = tour_word(language, check.pass ? 4 : 5);
  const float badge_w = plot::figure_text_measure().width(mark, 13.0f) + 20.0f;
  f.rect({kMargin, y, kMargin + badge_w, y + 22.0f}, check.pass ? kPass : kFail);
  f.text({kMargin + badge_w / 2, y + 11.0f}, mark, 13.0f, plot::Color{1, 1, 1, 1}, plot::HAlign::Center, plot::VAlign::Middle);
  const float tx = kMargin + badge_w + 10.0f;
  y = paragraph(f, tour_word(language, 3) + ": " + text.check, tx, y + 3.0f, inner - badge_w - 10.0f, 13.0f, kInk);
  y = paragraph(f, check.measured, tx, y, inner - badge_w - 10.0f, 12.0f, check.pass ? kPass : kFail) + 10.0f;
  f.line({kMargin, y}, {kMargin + inner, y}, plot::Color{0.85f, 0.85f, 0.88f, 1});
  return y;
}

// The plot centred below the words.
plot::Figure with_plot(plot::Figure f, float y, const plot::Figure& plot) {
  f.width = std::max(f.width, plot.width);
  f.place(plot, {(f.width - plot.width) / 2, y + 6.0f});
  f.height = y + 6.0f + plot.height + 6.0f;
  return f;
}

Result<const TourStep*> step_at(int step) {
  const auto& steps = tour_steps();
  if (step < 0 || step >= static_cast<int>(steps.size()))
    return Error{"the tour has steps 1 to " + std::to_string(steps.size()) + "; there is no step " +
                 std::to_string(step + 1)};
  return &steps[static_cast<std::size_t>(step)];
}

}  // namespace

Result<plot::Figure> tour_figure(int step, Language language, const State& state, const Results& results,
                                 const EmbeddingTable& table) {
  const auto s = step_at(step);
  if (!s) return Error{s.error()};
  auto plot = plot_of(**s, language, state, results, table);
  if (!plot) return Error{plot.error()};
  // The export's slide is as wide as its plot (at least kMinWidth).
  plot::Figure f;
  f.width = std::max(kMinWidth, plot->width);
  const float y = slide_words(f, step, language, (*s)->check(state, table, language), f.width - 2 * kMargin);
  return with_plot(std::move(f), y, *plot);
}

Result<plot::Figure> tour_figure_to_fill(int step, Language language, const State& state, const Results& results,
                                         const EmbeddingTable& table, plot::Point room) {
  const auto s = step_at(step);
  if (!s) return Error{s.error()};
  // The words first, as wide as the room; the plot then fills what they leave.
  plot::Figure f;
  f.width = std::floor(std::max(kTourMinFillWidth, room.x));
  const float y = slide_words(f, step, language, (*s)->check(state, table, language), f.width - 2 * kMargin);
  const plot::Point plot_room{f.width - 2 * kMargin, std::max(kTourMinPlotHeight, room.y - y - 12.0f)};
  auto plot = plot_to_fill(**s, language, state, results, table, plot_room);
  if (!plot) return Error{plot.error()};
  return with_plot(std::move(f), y, *plot);
}

std::string tour_csv(Language language, const State& start, const EmbeddingTable& table) {
  std::ostringstream csv;
  csv << "step,title,pass,measured\n";
  const auto& steps = tour_steps();
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const State state = tour_state(static_cast<int>(k), start);
    const TourCheck check = steps[k].check(state, table, language);
    csv << k + 1 << ',' << csv_field(text_of(static_cast<int>(k), language).title) << ',' << (check.pass ? "pass" : "fail")
        << ',' << csv_field(check.measured) << '\n';
  }
  return csv.str();
}

}  // namespace poslab
