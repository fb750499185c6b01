#pragma once
// The GUI part of the attention view (its figure: figures/attention.hpp).
#include "figures/attention.hpp"
#include "gui/figure_worker.hpp"
#include "gui/show_figure.hpp"

namespace poslab {

class Workspace;
namespace gpu {
class HeatmapPainter;
}

// The GUI panel: the heatmap filling the available space, with a hover tooltip. When the GPU
// computed the results, it also paints the cells straight into the texture drawn on screen.
class AttentionView {
 public:
  // Fills the available space less `reserve_below` ImGui units at the bottom. `gpu` may be null.
  void draw(const State& state, const Workspace& workspace, gpu::HeatmapPainter* gpu, const plot::FontSet& fonts,
            float reserve_below);
  // The same for results from elsewhere (a real model's layer); `version` changes with them.
  void draw(const State& state, const Results* results, std::uint64_t version, gpu::HeatmapPainter* gpu,
            const plot::FontSet& fonts, float reserve_below);
  // Where the cells on screen came from: "GPU texture", "CPU image", or why the GPU could not.
  const std::string& cell_source() const { return cell_source_; }

  // The cells shown: rows [row0, row0 + rows) and columns [col0, col0 + cols); rows = 0: all.
  // The wheel zooms about the cell under the mouse, a drag pans, a double click shows all again.
  struct Zoom {
    int row0 = 0, col0 = 0, rows = 0, cols = 0;
    bool operator==(const Zoom&) const = default;
  };
  const Zoom& zoom() const { return zoom_; }

 private:
  void navigate(const ShownFigure& shown, int rows, int cols);
  void draw_minimap(const State& state, const Results& r, const ShownFigure& shown);

  Zoom zoom_, built_zoom_;
  // The cells' image of the last build, kept while only the room changes (same results, view,
  // zoom and block size): laying a long sentence's heatmap out again then costs no repainting.
  struct CellsKey {
    std::uint64_t version = ~0ull;
    ViewSettings view;
    Zoom zoom;
    int block = 0;
    bool operator==(const CellsKey&) const = default;
  };
  CellsKey cells_key_;
  std::shared_ptr<const plot::Image> cells_;
  Zoom drag_start_;           // the window when the drag began
  Zoom reported_;             // the window last said on stderr
  plot::Image minimap_;       // the whole matrix, small, while zoomed
  plot::TextureCache minimap_textures_;
  std::uint64_t minimap_version_ = ~0ull;
  ViewSettings minimap_view_;
  std::string cell_source_;
  plot::HeatmapFigure figure_;
  plot::TextureCache textures_;
  // What figure_ was built from.
  std::uint64_t built_version_ = 0;
  ViewSettings built_view_;
  Refit refit_;           // when to lay the figure out again
  plot::Point smallest_;  // attention_smallest of what figure_ was built from
};

}  // namespace poslab
