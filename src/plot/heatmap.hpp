#pragma once
// A labelled heatmap: title, row and column labels, cells as one image, a colorbar with ticks,
// and masked cells hatched so they never read as small values.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/matrix.hpp"
#include "plot/colormap.hpp"
#include "plot/figure.hpp"

namespace poslab::plot {

struct HeatmapSpec {
  std::string title;
  std::string subtitle;
  std::vector<std::string> row_labels;  // one per row (top to bottom)
  std::vector<std::string> col_labels;  // one per column (left to right)
  std::string row_axis;                 // e.g. "query"
  std::string col_axis;                 // e.g. "key"
  const Matrix* values = nullptr;       // rows × cols
  std::function<bool(int row, int col)> masked;  // may be empty: nothing masked
  Colormap colormap = Colormap::Viridis;
  float vmin = 0.0f, vmax = 1.0f;
  std::string value_label;  // colorbar title, e.g. "weight"
  const char* value_format = "%.2f";  // printf format of the values written in large cells
  bool index_rows = false;  // label rows by their index (a numeric axis)
  bool index_cols = false;  // label columns by their index
  float side = 560.0f;      // the longer side of the cell area, logical pixels
  float row_height = 0.0f;  // > 0: rows this tall and columns side/cols wide; 0: square cells
  // A GL texture already holding the cells (painted by the GPU with the same rule as
  // heatmap_cells); 0: build the cells on the CPU from `values`.
  std::uint32_t cell_texture = 0;
  // > 0: the cells' image is at most this many texels a side (the pixels it will cover). More
  // rows or columns than that are aggregated into square blocks, each texel the maximum of its
  // block's unmasked cells, so that a sharp head stays visible; a block with none is hatched.
  int max_texels = 0;
  // The index of the first row and column shown, when `values` is a window of a larger matrix
  // (a zoomed heatmap): labels number the rows and columns from there.
  int row_offset = 0, col_offset = 0;
  // The cells' image already made by heatmap_cells for this spec (a view that lays the same
  // cells out again for another room keeps it, and its texture); null: made here.
  std::shared_ptr<const Image> cells_image;
  // Whether any cell is masked, when the caller knows without asking `masked` for every cell
  // (millions of calls at long lengths); empty: found out by scanning.
  std::optional<bool> any_masked;
};

// The side of the blocks heatmap_cells aggregates for n rows or columns (1: none).
int heatmap_block(const HeatmapSpec& spec);

// Texels per cell of a heatmap with n rows or columns: enough that the hatch of masked cells
// shows inside a cell of a short sentence, never a texture past 2048 texels for n ≤ 2048.
int heatmap_texels_per_cell(int n);

// The cells as an image: each cell's colour from the 256-colour table, masked cells hatched
// with diagonal stripes (6 texels, 2 dark) continuous across neighbouring cells.
Image heatmap_cells(const HeatmapSpec& spec);

struct HeatmapFigure {
  Figure figure;
  Box cells;  // where the cells are, logical pixels
  int rows = 0, cols = 0;
  // The cell under a point of the figure, or {-1, -1}.
  std::pair<int, int> cell_at(Point p) const;
};

HeatmapFigure build_heatmap(const HeatmapSpec& spec, const TextMeasure& measure);

// While one of these lives (on this thread), build_heatmap lays figures out without painting their
// cells: a figure measured only for its size (fitting it to a window) costs no cell image.
class LayoutOnly {
 public:
  LayoutOnly();
  ~LayoutOnly();
  LayoutOnly(const LayoutOnly&) = delete;
  LayoutOnly& operator=(const LayoutOnly&) = delete;

 private:
  bool previous_;
};

// Shortens a label to at most `max_chars` characters (UTF-8 aware), ending in "…".
std::string shorten_label(const std::string& text, std::size_t max_chars);

}  // namespace poslab::plot
