#include "figures/mrope.hpp"

#include <algorithm>
#include <sstream>

#include "plot/draw.hpp"
#include "plot/lines.hpp"

namespace poslab {

namespace {

constexpr float kTitle = 16.0f, kLabel = 13.0f;
const plot::Color kInk{0.1f, 0.1f, 0.1f, 1}, kGrey{0.4f, 0.4f, 0.4f, 1};

const char* axis_name(MropeAxis a) { return a == MropeAxis::T ? "t" : a == MropeAxis::H ? "h" : "w"; }

// One row of cells, a cell per rotary pair coloured by the id it turns by, with its label left.
float pair_strip(plot::Figure& fig, const std::vector<MropeAxis>& axes, const std::string& label, float y, float left, float width) {
  const float cell = std::min(18.0f, width / static_cast<float>(std::max<std::size_t>(axes.size(), 1)));
  fig.text({left - 8.0f, y + cell / 2}, label, kLabel, kInk, plot::HAlign::Right, plot::VAlign::Middle).role = "y tick";
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const float x = left + cell * static_cast<float>(i);
    fig.rect({x, y, x + cell, y + cell}, plot::series_color(static_cast<int>(axes[i])), {1, 1, 1, 1}, 1.0f);
  }
  fig.areas.push_back({left, y, left + cell * static_cast<float>(axes.size()), y + cell});
  return cell;
}

// The two arrangements of the model's sections, its own marked, with a legend and the pair axis.
plot::Figure pairs_figure(const TransformerConfig& c, float width) {
  plot::Figure fig;
  fig.width = width;
  const plot::TextMeasure& m = plot::figure_text_measure();
  fig.text({12, 10}, "M-RoPE: which rotary pairs turn by t, h and w", kTitle, kInk).role = "title";
  const std::string sections = std::to_string(c.mrope_section[0]) + ", " + std::to_string(c.mrope_section[1]) + ", " +
                               std::to_string(c.mrope_section[2]);
  fig.text({12, 32}, "mrope_section " + sections + " of " + std::to_string(c.rotary_dim / 2) +
                         " pairs; on text the three ids are equal, so every pair turns as in 1-D RoPE",
           kLabel, kGrey).role = "subtitle";
  const std::string own = c.mrope_interleaved ? "interleaved (this model)" : "sections (this model)";
  const std::string other = c.mrope_interleaved ? "sections" : "interleaved";
  const float left = 24.0f + std::max(m.width(own, kLabel), m.width(other, kLabel));
  const float room = width - left - 16.0f;
  float y = 58.0f;
  const float cell = pair_strip(fig, mrope_pair_axes(c.mrope_section, c.mrope_interleaved), own, y, left, room);
  y += cell + 8.0f;
  pair_strip(fig, mrope_pair_axes(c.mrope_section, !c.mrope_interleaved), other, y, left, room);
  y += cell + 6.0f;
  const int pairs = c.rotary_dim / 2;
  for (int i = 0; i < pairs; i += std::max(1, pairs / 8))
    fig.text({left + cell * (static_cast<float>(i) + 0.5f), y}, std::to_string(i), kLabel, kGrey, plot::HAlign::Center).role = "x tick";
  y += kLabel + 6.0f;
  fig.text({left, y}, "rotary pair (fastest first)", kLabel, kInk).role = "x label";
  float x = left + m.width("rotary pair (fastest first)", kLabel) + 24.0f;
  for (MropeAxis a : {MropeAxis::T, MropeAxis::H, MropeAxis::W}) {
    fig.rect({x, y + 1, x + 11, y + 12}, plot::series_color(static_cast<int>(a)));
    const std::string word = std::string(axis_name(a)) + (a == MropeAxis::T ? " (time)" : a == MropeAxis::H ? " (height)" : " (width)");
    fig.text({x + 15, y}, word, kLabel, kInk).role = "legend";
    x += 15 + m.width(word, kLabel) + 16;
  }
  fig.height = y + kLabel + 14.0f;
  return fig;
}

// The ids of each token, one series per axis.
plot::Figure ids_figure(const std::vector<MropeToken>& ids, const std::string& layout, float width) {
  plot::LinePlotSpec spec;
  spec.title = "Position ids of " + layout + ", as get_rope_index assigns them";
  spec.subtitle = "text: t = h = w counting on; an image: one t, h and w over its merged grid; the next text starts after the largest id";
  spec.x_label = "token";
  spec.y_label = "position id";
  spec.width = width - 90.0f;
  spec.height = 0.42f * width;
  const plot::Stroke strokes[] = {plot::Stroke::Solid, plot::Stroke::Dashed, plot::Stroke::None};
  for (MropeAxis a : {MropeAxis::T, MropeAxis::H, MropeAxis::W}) {
    plot::Series s;
    s.label = axis_name(a);
    s.color = plot::series_color(static_cast<int>(a));
    s.stroke = strokes[static_cast<int>(a)];
    for (std::size_t i = 0; i < ids.size(); ++i) {
      s.x.push_back(static_cast<double>(i));
      s.y.push_back(a == MropeAxis::T ? ids[i].t : a == MropeAxis::H ? ids[i].h : ids[i].w);
    }
    spec.series.push_back(std::move(s));
  }
  return plot::build_line_plot(spec, plot::figure_text_measure()).figure;
}

}  // namespace

plot::Figure mrope_figure(const TransformerConfig& c, const std::vector<MropeToken>& ids, const std::string& layout, float width) {
  plot::Figure fig = pairs_figure(c, width);
  fig.append_below(ids_figure(ids, layout, width));
  return fig;
}

std::string mrope_csv(const std::vector<MropeToken>& ids) {
  std::ostringstream out;
  out << "index,kind,t,h,w\n";
  for (std::size_t i = 0; i < ids.size(); ++i)
    out << i << ',' << (ids[i].image ? "image" : "text") << ',' << ids[i].t << ',' << ids[i].h << ',' << ids[i].w << '\n';
  return out.str();
}

}  // namespace poslab
