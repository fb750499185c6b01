#include "figures/buckets.hpp"

#include <sstream>

#include "core/encodings/bias.hpp"
#include "plot/draw.hpp"
#include "plot/lines.hpp"

namespace poslab {

namespace {

// The relative positions drawn: every offset up to the largest distance the buckets tell apart.
std::vector<int> offsets(const ForwardResult& run, const TransformerConfig& c) {
  std::vector<int> o;
  for (int d = -c.t5_max_distance; d <= (run.bidirectional ? c.t5_max_distance : 0); ++d) o.push_back(d);
  return o;
}

}  // namespace

plot::Figure t5_buckets_figure(const ForwardResult& run, const TransformerConfig& c, float width) {
  if (run.bucket_bias.size() == 0) return {};
  plot::LinePlotSpec spec;
  const std::string stack = c.encoder_decoder() ? std::string(to_string(run.stack)) + "'s " : "";
  spec.title = "What each head learned about distance: the " + stack + "bias per relative position";
  spec.subtitle = std::to_string(c.t5_buckets) + " buckets: exact up to " + std::to_string(run.bidirectional ? c.t5_buckets / 4 : c.t5_buckets / 2) +
                  ", logarithmic to " + std::to_string(c.t5_max_distance) + ", then one bucket" +
                  (run.bidirectional ? "; keys before and after the query apart" : "; the decoder sees only the past");
  spec.x_label = "key − query (j − i)";
  spec.y_label = "learned bias added to the score";
  spec.width = width;
  spec.height = 0.5f * width;
  const std::vector<int> o = offsets(run, c);
  for (int h = 0; h < c.heads; ++h) {
    plot::Series s;
    s.label = "head " + std::to_string(h);
    s.color = plot::series_color(h);
    s.markers = false;
    for (int d : o) {
      s.x.push_back(d);
      s.y.push_back(run.bucket_bias(t5_bucket(d, run.bidirectional, c.t5_buckets, c.t5_max_distance), h));
    }
    spec.series.push_back(std::move(s));
  }
  return plot::build_line_plot(spec, plot::figure_text_measure()).figure;
}

std::string t5_buckets_csv(const ForwardResult& run, const TransformerConfig& c) {
  std::ostringstream csv;
  csv << "head,relative_position,bucket,bias\n";
  if (run.bucket_bias.size() == 0) return csv.str();
  for (int h = 0; h < c.heads; ++h)
    for (int d : offsets(run, c)) {
      const int b = t5_bucket(d, run.bidirectional, c.t5_buckets, c.t5_max_distance);
      csv << h << ',' << d << ',' << b << ',' << run.bucket_bias(b, h) << '\n';
    }
  return csv.str();
}

}  // namespace poslab
