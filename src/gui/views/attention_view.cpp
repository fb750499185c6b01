#include "gui/views/attention_view.hpp"

#include <imgui.h>
#include <imgui_internal.h>  // SetItemUsingMouseWheel: the wheel zooms the heatmap

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/workspace.hpp"
#include "gpu/attention_gpu.hpp"
#include "figures/fit.hpp"
#include "gui/probe.hpp"

namespace poslab {

namespace {

// Paints the spec's cells on the GPU from the last run's buffers; the texture, or why not.
Result<std::uint32_t> paint_on_gpu(gpu::HeatmapPainter& gpu, const plot::HeatmapSpec& spec, int head, bool scores,
                                   std::uint64_t run) {
  gpu::HeatmapPaint paint;
  paint.head = head;
  paint.scores = scores;
  paint.run = run;
  paint.vmin = spec.vmin;
  paint.vmax = spec.vmax;
  paint.texels_per_cell = plot::heatmap_texels_per_cell(static_cast<int>(std::max(spec.values->rows(), spec.values->cols())));
  paint.lut = plot::colormap_lut(spec.colormap);
  const plot::Color light = plot::kMaskLight, dark = plot::kMaskDark;
  std::copy_n(&light.r, 4, paint.mask_light);
  std::copy_n(&dark.r, 4, paint.mask_dark);
  auto texture = gpu.paint_heatmap(paint);
  if (!texture) return Error{texture.error()};
  return static_cast<std::uint32_t>(*texture);
}

// The cells shown, as stderr and the probe say it: "all R × C cells" or "queries A–B, keys C–D of R × C".
std::string zoom_text(const AttentionView::Zoom& z, int full_rows, int full_cols) {
  char text[128];
  if (z.rows == 0)
    std::snprintf(text, sizeof text, "all %d × %d cells", full_rows, full_cols);
  else
    std::snprintf(text, sizeof text, "queries %d–%d, keys %d–%d of %d × %d", z.row0, z.row0 + z.rows - 1, z.col0,
                  z.col0 + z.cols - 1, full_rows, full_cols);
  return text;
}

}  // namespace

void AttentionView::navigate(const ShownFigure& shown, int full_rows, int full_cols) {
  constexpr int kFewest = 4;  // cells a side at the deepest zoom
  const Zoom now = built_zoom_.rows > 0 ? built_zoom_ : Zoom{0, 0, full_rows, full_cols};
  const plot::Box& cells = figure_.cells;
  const ImGuiIO& io = ImGui::GetIO();
  if (shown.hovered) ImGui::SetItemUsingMouseWheel();  // the wheel zooms here instead of scrolling the panel
  if (shown.hovered && io.MouseWheel != 0.0f && cells.contains(shown.mouse) && cells.width() > 0 && cells.height() > 0) {
    // Zoom about the point under the mouse: it stays where it is.
    const double fx = (shown.mouse.x - cells.x0) / cells.width(), fy = (shown.mouse.y - cells.y0) / cells.height();
    const double factor = std::pow(0.8, static_cast<double>(io.MouseWheel));
    auto side = [&](int n, int full) {
      return std::clamp(static_cast<int>(std::lround(n * factor)), std::min(kFewest, full), full);
    };
    const int rows = side(now.rows, full_rows), cols = side(now.cols, full_cols);
    const int row0 = std::clamp(static_cast<int>(std::lround(now.row0 + fy * now.rows - fy * rows)), 0, full_rows - rows);
    const int col0 = std::clamp(static_cast<int>(std::lround(now.col0 + fx * now.cols - fx * cols)), 0, full_cols - cols);
    zoom_ = rows == full_rows && cols == full_cols ? Zoom{} : Zoom{row0, col0, rows, cols};
  }
  if (ImGui::IsItemActivated()) drag_start_ = now;
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left) && zoom_.rows > 0 && drag_start_.rows > 0) {
    // Pan: the cells follow the mouse.
    const ImVec2 d = ImGui::GetMouseDragDelta(ImGuiMouseButton_Left);
    const double cell_w = static_cast<double>(cells.width() * shown.scale) / drag_start_.cols;
    const double cell_h = static_cast<double>(cells.height() * shown.scale) / drag_start_.rows;
    zoom_.col0 = std::clamp(drag_start_.col0 - static_cast<int>(std::lround(d.x / cell_w)), 0, full_cols - zoom_.cols);
    zoom_.row0 = std::clamp(drag_start_.row0 - static_cast<int>(std::lround(d.y / cell_h)), 0, full_rows - zoom_.rows);
  }
  if (shown.hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) zoom_ = Zoom{};
  if (!(zoom_ == now) && !(zoom_.rows == 0 && built_zoom_.rows == 0)) {  // said once per change (scripts, tests)
    if (zoom_.rows == 0 || !(zoom_ == reported_))
      std::fprintf(stderr, "poslab: heatmap: %s\n", zoom_text(zoom_, full_rows, full_cols).c_str());
    reported_ = zoom_;
  }
}

void AttentionView::draw_minimap(const State& state, const Results& r, const ShownFigure& shown) {
  // The whole matrix in the cells' top-right corner, each texel a block's maximum, with the
  // window shown drawn on it.
  constexpr float kSide = 120.0f;  // points
  if (minimap_version_ != built_version_ || !(minimap_view_ == state.view)) {
    plot::HeatmapSpec spec = attention_spec(state, r, kSide);
    spec.max_texels = static_cast<int>(kSide);
    minimap_ = plot::heatmap_cells(spec);
    minimap_version_ = built_version_;
    minimap_view_ = state.view;
  }
  const plot::Box& cells = figure_.cells;
  const float s = shown.scale;
  const ImVec2 p1(shown.origin.x + cells.x1 * s - 6.0f * s, shown.origin.y + cells.y0 * s + 6.0f * s);
  const ImVec2 p0(p1.x - kSide * s, p1.y);
  const ImVec2 p2(p1.x, p1.y + kSide * s);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(ImVec2(p0.x - 2, p0.y - 2), ImVec2(p2.x + 2, p2.y + 2), IM_COL32(255, 255, 255, 255));
  dl->AddImage(minimap_textures_.texture_for(0, minimap_), p0, p2);
  const float fr = kSide * s / static_cast<float>(std::max(1, r.problem.queries()));
  const float fc = kSide * s / static_cast<float>(std::max(1, r.problem.keys()));
  const Zoom& z = built_zoom_;
  auto at = [&](int row, int col) { return ImVec2(p0.x + static_cast<float>(col) * fc, p0.y + static_cast<float>(row) * fr); };
  dl->AddRect(at(z.row0, z.col0), at(z.row0 + z.rows, z.col0 + z.cols), IM_COL32(255, 80, 40, 255), 0.0f, 0, 2.0f);
  dl->AddRect(ImVec2(p0.x - 2, p0.y - 2), ImVec2(p2.x + 2, p2.y + 2), IM_COL32(90, 90, 90, 255));
}

void AttentionView::draw(const State& state, const Workspace& workspace, gpu::HeatmapPainter* gpu,
                         const plot::FontSet& fonts, float reserve_below) {
  draw(state, workspace.results(), workspace.version(), gpu, fonts, reserve_below);
}

void AttentionView::draw(const State& state, const Results* r, std::uint64_t version, gpu::HeatmapPainter* gpu,
                         const plot::FontSet& fonts, float reserve_below) {
  if (!r) {
    ImGui::TextDisabled("No results yet.");
    return;
  }
  // The cells fill the room the text below leaves, but the heatmap keeps at least its smallest
  // layout's height: in a short window the text scrolls rather than the heatmap shrinking.
  if (built_version_ != version || !(built_view_ == state.view)) smallest_ = attention_smallest(state, *r);
  const plot::Point whole = figure_room(fonts);
  plot::Point room = figure_room(fonts, reserve_below);
  room.y = std::max(room.y, std::min(smallest_.y, whole.y));
  // Rebuild only when something changed.
  const int full_rows = r->problem.queries(), full_cols = r->problem.keys();
  if (zoom_.rows > 0 && (zoom_.row0 + zoom_.rows > full_rows || zoom_.col0 + zoom_.cols > full_cols)) zoom_ = Zoom{};
  if (refit_.now(built_version_ != version || !(built_view_ == state.view) || !(built_zoom_ == zoom_), room)) {
    plot::HeatmapSpec spec = attention_spec_to_fill(state, *r, room);
    const bool zoomed = zoom_.rows > 0;
    static thread_local Matrix window;  // the cells shown when zoomed; the spec points at it
    if (zoomed) {
      const float grid_height = spec.row_height * static_cast<float>(spec.values->rows());
      window = spec.values->block(zoom_.row0, zoom_.col0, zoom_.rows, zoom_.cols);
      spec.values = &window;
      spec.row_labels.assign(spec.row_labels.begin() + zoom_.row0, spec.row_labels.begin() + zoom_.row0 + zoom_.rows);
      spec.col_labels.assign(spec.col_labels.begin() + zoom_.col0, spec.col_labels.begin() + zoom_.col0 + zoom_.cols);
      spec.row_offset = zoom_.row0;
      spec.col_offset = zoom_.col0;
      spec.row_height = grid_height / static_cast<float>(zoom_.rows);
      spec.masked = [masked = spec.masked, z = zoom_](int i, int j) { return masked(i + z.row0, j + z.col0); };
      spec.any_masked.reset();  // the window may hold none
      char range[128];
      std::snprintf(range, sizeof range, " · zoomed: queries %d–%d, keys %d–%d", zoom_.row0, zoom_.row0 + zoom_.rows - 1,
                    zoom_.col0, zoom_.col0 + zoom_.cols - 1);
      spec.title += range;
    }
    spec.max_texels = static_cast<int>(std::ceil(spec.side * fonts.scale));  // the pixels the cells cover
    cell_source_ = heatmap_block(spec) > 1 ? "cells: CPU image, " + std::to_string(plot::heatmap_block(spec)) + "×" +
                                                 std::to_string(plot::heatmap_block(spec)) + " blocks by their maximum"
                                           : "cells: CPU image";
    // device_ms is set only when the GPU computed these results, so its buffers hold them.
    if (state.view.mean_heads) cell_source_ = "cells: CPU image (mean of heads)";
    const bool gpu_paints = gpu && r->device_ms && !zoomed && !state.view.mean_heads;
    if (!gpu_paints) {
      const CellsKey key{version, state.view, zoom_, plot::heatmap_block(spec)};
      if (!cells_ || !(key == cells_key_)) {
        cells_ = std::make_shared<const plot::Image>(plot::heatmap_cells(spec));
        cells_key_ = key;
      }
      spec.cells_image = cells_;
    } else {
      auto texture = paint_on_gpu(*gpu, spec, clamp_head(state, *r), state.view.value == HeatmapValue::Scores,
                                  r->device_run);
      if (texture) {
        spec.cell_texture = *texture;
        cell_source_ = "cells: painted by the GPU into the texture";
      } else {
        cell_source_ = "cells: CPU image (GPU paint failed: " + texture.error() + ")";
      }
    }
    figure_ = plot::build_heatmap(spec, plot::figure_text_measure());
    built_version_ = version;
    built_view_ = state.view;
    built_zoom_ = zoom_;
  }
  const ShownFigure shown = show_figure(figure_.figure, room, fonts, textures_, "heatmap");
  navigate(shown, full_rows, full_cols);
  probe_box("heatmap: cells", shown, figure_.cells);
  probe::value("heatmap", zoom_text(zoom_, full_rows, full_cols));
  if (built_zoom_.rows > 0) draw_minimap(state, *r, shown);
  if (!shown.hovered) return;

  auto [i, j] = figure_.cell_at(shown.mouse);
  if (i < 0) return;
  i += built_zoom_.row0;  // the cell of the whole matrix, at any zoom
  j += built_zoom_.col0;
  const int head = clamp_head(state, *r);
  const auto& tokens = r->tokens;
  ImGui::BeginTooltip();
  ImGui::Text("query %d  \"%s\"", i, tokens[static_cast<std::size_t>(i)].text.c_str());
  ImGui::Text("key   %d  \"%s\"", j, r->key_tokens[static_cast<std::size_t>(j)].text.c_str());
  if (r->problem.masked(i, j)) {
    ImGui::TextColored(ImVec4(0.8f, 0.5f, 0.2f, 1), "masked (%s): weight 0",
                       r->problem.key_valid[static_cast<std::size_t>(j)] == 0 ? "padding key" : "future key, causal");
  } else if (state.view.mean_heads) {
    double score = 0, weight = 0;
    for (int h = 0; h < r->problem.heads; ++h) {
      score += r->attention.scores[static_cast<std::size_t>(h)](i, j);
      weight += r->attention.weights[static_cast<std::size_t>(h)](i, j);
    }
    ImGui::Text("mean score  %.6g", score / r->problem.heads);
    ImGui::Text("mean weight %.6g", weight / r->problem.heads);
  } else {
    ImGui::Text("score  %.6g", static_cast<double>(r->attention.scores[static_cast<std::size_t>(head)](i, j)));
    ImGui::Text("weight %.6g", static_cast<double>(r->attention.weights[static_cast<std::size_t>(head)](i, j)));
  }
  // Where the reader's pointer already is: the heatmap's gestures (F1 lists every shortcut).
  ImGui::TextDisabled("wheel: zoom · drag: pan · double click: every cell");
  ImGui::EndTooltip();
}

}  // namespace poslab
