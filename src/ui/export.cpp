#include "ui/export.hpp"

#include <sstream>

#include "core/export_data.hpp"
#include "plot/render.hpp"
#include "plot/svg.hpp"
#include "ui/attention_view.hpp"

namespace poslab {

Status export_attention(const State& state, const Results& results, const ExportRequest& request,
                        std::vector<std::string>& written) {
  if (!request.png.empty()) {
    const auto figure = attention_figure(state, results, kExportSide);
    auto image = plot::render_figure(figure.figure, request.scale);
    if (!image) return Error{request.png + ": " + image.error()};
    if (auto s = write_file_atomic(request.png, plot::encode_png(*image)); !s) return s;
    written.push_back(request.png + " (" + std::to_string(image->width) + "×" + std::to_string(image->height) + " PNG)");
  }
  if (!request.svg.empty()) {
    const auto figure = attention_figure(state, results, kExportSide);
    if (auto s = write_file_atomic(request.svg, plot::render_svg(figure.figure)); !s) return s;
    written.push_back(request.svg + " (SVG)");
  }
  if (!request.csv.empty()) {
    std::ostringstream csv;
    write_attention_csv(csv, results);
    if (auto s = write_file_atomic(request.csv, csv.str()); !s) return s;
    written.push_back(request.csv + " (" + std::to_string(results.attention.weights.size()) + " heads × " +
                      std::to_string(results.tokens.size()) + " × " + std::to_string(results.key_tokens.size()) +
                      " cells CSV)");
  }
  return Ok{};
}

}  // namespace poslab
