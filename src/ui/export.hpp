#pragma once
// Writing a view to files: the single path used by the GUI's Export buttons and `poslab export`.
#include <string>
#include <vector>

#include "core/pipeline.hpp"
#include "core/state.hpp"

namespace poslab {

struct ExportRequest {
  std::string png;  // empty: no image
  std::string svg;  // empty: no vector image
  std::string csv;  // empty: no data
  float scale = 1.0f;
};

// Writes what the request asks for; needs a current OpenGL context for the PNG. Each file is
// written atomically. On success, `written` lists "path (details)" for each file.
Status export_attention(const State& state, const Results& results, const ExportRequest& request,
                        std::vector<std::string>& written);

}  // namespace poslab
