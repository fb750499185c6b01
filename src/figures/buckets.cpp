#include "figures/buckets.hpp"

#include "core/encodings/bias.hpp"
#include "plot/draw.hpp"
#include "plot/lines.hpp"

namespace poslab {

namespace {

// The relative positions drawn: every offset up to the largest distance the buckets tell apart.
std::vector<int> offsets(bool bidirectional, const TransformerConfig& c) {
  std::vector<int> o;
  for (int d = -c.t5_max_distance; d <= (bidirectional ? c.t5_max_distance : 0); ++d) o.push_back(d);
  return o;
}

}  // namespace

plot::Figure t5_buckets_figure(const Matrix& table, bool bidirectional, const std::string& whose, const TransformerConfig& c,
                               float width) {
  if (table.size() == 0) return {};
  plot::LinePlotSpec spec;
  spec.title = "What each head learned about distance: " + (whose.empty() ? std::string("the ") : whose) + "bias per relative position";
  spec.subtitle = std::to_string(c.t5_buckets) + " buckets: exact up to " + std::to_string(bidirectional ? c.t5_buckets / 4 : c.t5_buckets / 2) +
                  ", logarithmic to " + std::to_string(c.t5_max_distance) + ", then one bucket" +
                  (bidirectional ? "; keys before and after the query apart" : "; only the past is seen");
  spec.x_label = "key − query (j − i)";
  spec.y_label = "learned bias added to the score";
  spec.width = width;
  spec.height = 0.5f * width;
  for (int h = 0; h < c.heads && h < table.cols(); ++h) {
    plot::Series s;
    s.label = "head " + std::to_string(h);
    s.color = plot::series_color(h);
    s.markers = false;
    for (int d : offsets(bidirectional, c)) {
      s.x.push_back(d);
      s.y.push_back(table(t5_bucket(d, bidirectional, c.t5_buckets, c.t5_max_distance), h));
    }
    spec.series.push_back(std::move(s));
  }
  return plot::build_line_plot(spec, plot::figure_text_measure()).figure;
}

}  // namespace poslab
