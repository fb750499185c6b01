#include "plot/heatmap.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "base/text.hpp"
#include "plot/axis.hpp"
#include "plot/wrap.hpp"

namespace poslab::plot {

namespace {

constexpr Color kInk{0.10f, 0.10f, 0.12f, 1.0f};
constexpr Color kMuted{0.38f, 0.38f, 0.42f, 1.0f};
constexpr float kMargin = 14.0f;
constexpr float kTitleSize = 16.0f;
constexpr float kLabelSize = 13.0f;
constexpr float kTickSize = 12.0f;
constexpr float kGap = 6.0f;

std::uint64_t next_version() {
  static std::atomic<std::uint64_t> counter{1};
  return counter++;
}

thread_local bool t_layout_only = false;

unsigned char to_byte(float v) { return static_cast<unsigned char>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); }

}  // namespace

int heatmap_texels_per_cell(int n) { return std::clamp(2048 / std::max(n, 1), 1, 32); }

int heatmap_block(const HeatmapSpec& s) {
  const int n = static_cast<int>(std::max(s.values->rows(), s.values->cols()));
  if (s.max_texels <= 0 || n <= s.max_texels) return 1;
  return (n + s.max_texels - 1) / s.max_texels;
}

namespace {

// Blocks of b × b cells, one texel each: the largest unmasked value, or the hatch where all are masked.
Image aggregated_cells(const HeatmapSpec& s, int b) {
  const int rows = static_cast<int>(s.values->rows());
  const int cols = static_cast<int>(s.values->cols());
  Image img;
  img.width = (cols + b - 1) / b;
  img.height = (rows + b - 1) / b;
  img.rgba.resize(static_cast<std::size_t>(img.width) * static_cast<std::size_t>(img.height) * 4);
  img.version = next_version();
  const float span = s.vmax > s.vmin ? s.vmax - s.vmin : 1.0f;
  constexpr float kNone = -std::numeric_limits<float>::infinity();
  std::vector<float> best(static_cast<std::size_t>(img.width));
  std::vector<std::uint8_t> seen(static_cast<std::size_t>(img.width));
  for (int y = 0; y < img.height; ++y) {
    std::fill(best.begin(), best.end(), kNone);
    std::fill(seen.begin(), seen.end(), 0);
    for (int r = y * b; r < std::min(rows, (y + 1) * b); ++r)
      for (int c = 0; c < cols; ++c) {
        if (s.masked && s.masked(r, c)) continue;
        const auto x = static_cast<std::size_t>(c / b);
        best[x] = std::max(best[x], (*s.values)(r, c));
        seen[x] = 1;
      }
    for (int x = 0; x < img.width; ++x) {
      const Color col = seen[static_cast<std::size_t>(x)]
                            ? lut_color(s.colormap, (best[static_cast<std::size_t>(x)] - s.vmin) / span)
                            : ((x + y) % 6 < 2 ? kMaskDark : kMaskLight);
      unsigned char* p = &img.rgba[(static_cast<std::size_t>(y) * static_cast<std::size_t>(img.width) + static_cast<std::size_t>(x)) * 4];
      p[0] = to_byte(col.r);
      p[1] = to_byte(col.g);
      p[2] = to_byte(col.b);
      p[3] = 255;
    }
  }
  return img;
}

}  // namespace

Image heatmap_cells(const HeatmapSpec& s) {
  if (const int b = heatmap_block(s); b > 1) return aggregated_cells(s, b);
  const int rows = static_cast<int>(s.values->rows());
  const int cols = static_cast<int>(s.values->cols());
  const int f = heatmap_texels_per_cell(std::max(rows, cols));
  Image img;
  img.width = cols * f;
  img.height = rows * f;
  img.rgba.resize(static_cast<std::size_t>(img.width) * static_cast<std::size_t>(img.height) * 4);
  img.version = next_version();
  const float span = s.vmax > s.vmin ? s.vmax - s.vmin : 1.0f;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const bool masked = s.masked && s.masked(r, c);
      const Color value_color = lut_color(s.colormap, ((*s.values)(r, c) - s.vmin) / span);
      for (int y = r * f; y < (r + 1) * f; ++y) {
        for (int x = c * f; x < (c + 1) * f; ++x) {
          // Diagonal stripes in texel coordinates, continuous across neighbouring masked cells.
          const Color col = masked ? ((x + y) % 6 < 2 ? kMaskDark : kMaskLight) : value_color;
          unsigned char* p = &img.rgba[(static_cast<std::size_t>(y) * static_cast<std::size_t>(img.width) +
                                        static_cast<std::size_t>(x)) * 4];
          p[0] = to_byte(col.r);
          p[1] = to_byte(col.g);
          p[2] = to_byte(col.b);
          p[3] = 255;
        }
      }
    }
  }
  return img;
}

namespace {

Image colorbar_image(Colormap map) {
  Image img;
  img.width = 1;
  img.height = 256;
  img.version = next_version();
  for (int y = 0; y < 256; ++y) {
    const Color c = sample(map, 1.0f - static_cast<float>(y) / 255.0f);  // top is the maximum
    img.rgba.insert(img.rgba.end(), {to_byte(c.r), to_byte(c.g), to_byte(c.b), 255});
  }
  return img;
}

// Every k-th label, with k chosen so that labels do not overlap.
int label_stride(float cell, float size) {
  const float needed = size * 1.25f;
  return cell >= needed ? 1 : static_cast<int>(std::ceil(needed / cell));
}

std::string axis_label(const std::vector<std::string>& labels, int i, int stride, bool index_only, int offset = 0) {
  if (index_only) return std::to_string(i + offset);
  const std::string text = shorten_label(i < static_cast<int>(labels.size()) ? labels[static_cast<std::size_t>(i)] : "", 14);
  return stride == 1 && offset == 0 ? text : std::to_string(i + offset) + " " + text;
}

// Greedy line breaking at `separator`: as many pieces per line as fit in `width`.
std::vector<std::string> wrap_at_separators(const std::string& text, const std::string& separator, float width,
                                            float size, const TextMeasure& measure) {
  std::vector<std::string> lines;
  if (text.empty()) return lines;
  std::size_t start = 0;
  std::string line;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(separator, start), text.size());
    const std::string piece = text.substr(start, end - start);
    const std::string joined = line.empty() ? piece : line + separator + piece;
    if (!line.empty() && measure.width(joined, size) > width) {
      lines.push_back(line);
      line = piece;
    } else {
      line = joined;
    }
    if (end == text.size()) break;
    start = end + separator.size();
  }
  lines.push_back(line);
  // A piece with no separator that is still too wide (a sentence) wraps between its words, so
  // that no subtitle runs past the figure into whatever is drawn beside it.
  std::vector<std::string> wrapped;
  for (const std::string& l : lines) {
    if (measure.width(l, size) <= width) {
      wrapped.push_back(l);
      continue;
    }
    for (std::string& part : wrap_text(l, width, size, measure)) wrapped.push_back(std::move(part));
  }
  return wrapped;
}

float luminance(Color c) { return 0.2126f * c.r + 0.7152f * c.g + 0.0722f * c.b; }

}  // namespace

std::string shorten_label(const std::string& text, std::size_t max_chars) {
  std::size_t chars = 0, i = 0;
  while (i < text.size()) {
    if (chars == max_chars) return text.substr(0, i) + "…";
    i += utf8_sequence_length(static_cast<unsigned char>(text[i]));
    ++chars;
  }
  return text;
}

LayoutOnly::LayoutOnly() : previous_(t_layout_only) { t_layout_only = true; }
LayoutOnly::~LayoutOnly() { t_layout_only = previous_; }

std::pair<int, int> HeatmapFigure::cell_at(Point p) const {
  if (!cells.contains(p) || rows == 0 || cols == 0) return {-1, -1};
  const int c = std::min(cols - 1, static_cast<int>((p.x - cells.x0) / cells.width() * static_cast<float>(cols)));
  const int r = std::min(rows - 1, static_cast<int>((p.y - cells.y0) / cells.height() * static_cast<float>(rows)));
  return {r, c};
}

namespace {

// Where everything goes, measured before anything is drawn.
struct HeatmapLayout {
  float cell = 0, cell_h = 0;          // a cell's width and height
  int row_stride = 1, col_stride = 1;  // every k-th row and column is labelled
  float tick_w = 0;                    // the widest colorbar tick label
  std::vector<double> ticks;
  double tick_step = 1.0;
  std::vector<std::string> subtitle;  // its lines
  // The row axis's title and the colorbar's read upwards; one longer than the cells are tall wraps
  // into columns (the first on the left) instead of running past the figure.
  std::vector<std::string> row_axis, value_label;
  Box bar;                            // the colorbar
};

// Vertical text wrapped to `height`, in columns; an empty text keeps its one (empty) column. A
// strip of a few rows does not break its title into a column a word: below 60 points it spills.
std::vector<std::string> upward_columns(const std::string& text, float height, const TextMeasure& measure) {
  std::vector<std::string> columns = wrap_text(text, std::max(height, 60.0f), kLabelSize, measure);
  if (columns.empty()) columns.push_back(text);
  return columns;
}
float columns_width(const std::vector<std::string>& columns) {
  return static_cast<float>(columns.size()) * (kLabelSize + 2.0f) - 2.0f;  // one column: kLabelSize
}

// Index labels step by 1, 2, 5, 10, 20, …; token labels by whatever fits.
int nice_stride(int stride, bool index) {
  if (!index) return stride;
  for (int base = 1;; base *= 10)
    for (int m : {1, 2, 5})
      if (m * base >= stride) return m * base;
}

// Lays the heatmap out, left to right: axis title, row labels, cells, colorbar, its ticks, its
// title, and sets the figure's size and its cell area. The subtitle wraps at its " · "
// separators to the width the rest needs.
HeatmapLayout layout_heatmap(const HeatmapSpec& s, const TextMeasure& measure, HeatmapFigure& out) {
  HeatmapLayout l;
  const int rows = out.rows, cols = out.cols;
  l.cell = s.row_height > 0 ? s.side / static_cast<float>(std::max(cols, 1))  // cell width
                            : s.side / static_cast<float>(std::max({rows, cols, 1}));
  l.cell_h = s.row_height > 0 ? s.row_height : l.cell;
  l.row_stride = nice_stride(label_stride(l.cell_h, kLabelSize), s.index_rows);
  l.col_stride = nice_stride(label_stride(l.cell, kLabelSize), s.index_cols);
  float row_label_w = 0, col_label_w = 0;
  for (int r = 0; r < rows; r += l.row_stride) row_label_w = std::max(row_label_w, measure.width(axis_label(s.row_labels, r, l.row_stride, s.index_rows, s.row_offset), kLabelSize));
  for (int c = 0; c < cols; c += l.col_stride) col_label_w = std::max(col_label_w, measure.width(axis_label(s.col_labels, c, l.col_stride, s.index_cols, s.col_offset), kLabelSize));

  l.ticks = nice_ticks(s.vmin, s.vmax, std::clamp(static_cast<int>(l.cell_h * static_cast<float>(rows) / 28.0f), 2, 6));
  l.tick_step = l.ticks.size() > 1 ? l.ticks[1] - l.ticks[0] : 1.0;
  for (double t : l.ticks) l.tick_w = std::max(l.tick_w, measure.width(tick_label(t, l.tick_step), kTickSize));

  const float grid_h = l.cell_h * static_cast<float>(rows);
  l.row_axis = upward_columns(s.row_axis, grid_h, measure);
  l.value_label = upward_columns(s.value_label, grid_h, measure);
  const float value_w = columns_width(l.value_label);
  const float x0 = kMargin + columns_width(l.row_axis) + kGap + row_label_w + kGap + 4.0f;
  const float natural_width =
      x0 + l.cell * static_cast<float>(cols) + 32.0f + kGap + l.tick_w + kGap + value_w + kMargin;
  l.subtitle = wrap_at_separators(s.subtitle, " · ", natural_width - 2 * kMargin, kTickSize, measure);
  const float header = kMargin + kTitleSize + kGap + static_cast<float>(l.subtitle.size()) * (kTickSize + 4.0f) + 10.0f;
  const float y0 = header;
  out.cells = {x0, y0, x0 + l.cell * static_cast<float>(cols), y0 + l.cell_h * static_cast<float>(rows)};
  const Box& grid = out.cells;
  l.bar = {grid.x1 + 18.0f, grid.y0, grid.x1 + 32.0f, grid.y1};
  Figure& fig = out.figure;
  fig.width = std::max({l.bar.x1 + kGap + l.tick_w + kGap + value_w + kMargin,
                        kMargin * 2 + measure.width(s.title, kTitleSize),
                        l.bar.x0 + 14.0f + kGap + measure.width("masked", kTickSize) + kMargin});
  fig.height = std::max(grid.y1 + 4.0f + kGap + col_label_w + kGap + kLabelSize + kMargin, grid.y1 + 40.0f);
  return l;
}

// The cells' image: none while only measuring, the GPU's texture, the caller's image, or made here.
Image heatmap_cells_image(const HeatmapSpec& s, int rows, int cols) {
  if (t_layout_only) return Image{cols, rows, {}, 0, 0};  // measured, never drawn
  if (s.cell_texture != 0) {
    const int f = heatmap_texels_per_cell(std::max(rows, cols));
    return Image{cols * f, rows * f, {}, next_version(), s.cell_texture};
  }
  if (s.cells_image) return *s.cells_image;  // the same version: its texture is not uploaded again
  return heatmap_cells(s);
}

// Values inside the cells, when there is room to read them.
void draw_cell_values(Figure& fig, const HeatmapSpec& s, const HeatmapLayout& l, const Box& grid, int rows, int cols) {
  if (l.cell < 38.0f || l.cell_h < 20.0f) return;
  const float span = s.vmax > s.vmin ? s.vmax - s.vmin : 1.0f;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      if (s.masked && s.masked(r, c)) continue;
      const float v = (*s.values)(r, c);
      char buf[16];
      std::snprintf(buf, sizeof buf, s.value_format, static_cast<double>(v));
      // A value that rounds to zero prints as "0.00", never "-0.00".
      if (buf[0] == '-' && std::strspn(buf + 1, "0.") == std::strlen(buf + 1)) std::memmove(buf, buf + 1, std::strlen(buf));
      const Color bg = sample(s.colormap, (v - s.vmin) / span);
      const Color ink = luminance(bg) > 0.45f ? kInk : Color{1, 1, 1, 1};
      fig.text({grid.x0 + (static_cast<float>(c) + 0.5f) * l.cell, grid.y0 + (static_cast<float>(r) + 0.5f) * l.cell_h},
               buf, kTickSize, ink, HAlign::Center, VAlign::Middle);
    }
}

// Row labels (left, right-aligned), column labels (below, reading upwards) and both axis titles.
void draw_axis_labels(Figure& fig, const HeatmapSpec& s, const HeatmapLayout& l, const Box& grid, int rows, int cols) {
  for (int r = 0; r < rows; r += l.row_stride) {
    const float y = grid.y0 + (static_cast<float>(r) + 0.5f) * l.cell_h;
    fig.line({grid.x0 - 4.0f, y}, {grid.x0, y}, kMuted);
    const std::string label = axis_label(s.row_labels, r, l.row_stride, s.index_rows, s.row_offset);
    fig.text({grid.x0 - 4.0f - kGap, y}, label, kLabelSize, kInk, HAlign::Right, VAlign::Middle).role = "y tick";
  }
  for (int c = 0; c < cols; c += l.col_stride) {
    const float x = grid.x0 + (static_cast<float>(c) + 0.5f) * l.cell;
    fig.line({x, grid.y1}, {x, grid.y1 + 4.0f}, kMuted);
    const std::string label = axis_label(s.col_labels, c, l.col_stride, s.index_cols, s.col_offset);
    fig.text({x, grid.y1 + 4.0f + kGap}, label, kLabelSize, kInk, HAlign::Right, VAlign::Middle, true).role = "x tick";
  }
  for (std::size_t k = 0; k < l.row_axis.size(); ++k)
    fig.text({kMargin + kLabelSize * 0.5f + static_cast<float>(k) * (kLabelSize + 2.0f), (grid.y0 + grid.y1) * 0.5f},
             l.row_axis[k], kLabelSize, kMuted, HAlign::Center, VAlign::Middle, true)
        .role = "y label";
  fig.text({(grid.x0 + grid.x1) * 0.5f, fig.height - kMargin}, s.col_axis, kLabelSize, kMuted, HAlign::Center,
           VAlign::Bottom)
      .role = "x label";
}

// The colorbar with its ticks; its title reads upwards on the right.
void draw_colorbar(Figure& fig, const HeatmapSpec& s, const HeatmapLayout& l) {
  const Box& bar = l.bar;
  fig.image(bar, fig.add_image(colorbar_image(s.colormap)));
  fig.rect(bar, {0, 0, 0, 0}, kMuted, 1.0f);
  const float span = s.vmax > s.vmin ? s.vmax - s.vmin : 1.0f;
  for (double t : l.ticks) {
    const float y = bar.y1 - static_cast<float>((t - s.vmin) / span) * bar.height();
    fig.line({bar.x1, y}, {bar.x1 + 4.0f, y}, kMuted);
    fig.text({bar.x1 + kGap, y}, tick_label(t, l.tick_step), kTickSize, kInk, HAlign::Left, VAlign::Middle).role =
        "colorbar tick";
  }
  for (std::size_t k = 0; k < l.value_label.size(); ++k)
    fig.text({bar.x1 + kGap + l.tick_w + kGap + kLabelSize * 0.5f + static_cast<float>(k) * (kLabelSize + 2.0f),
              (bar.y0 + bar.y1) * 0.5f},
             l.value_label[k], kLabelSize, kMuted, HAlign::Center, VAlign::Middle, true)
        .role = "colorbar label";
}

// Whether the legend for masked cells is drawn. A layout alone needs no answer: the legend's
// room is reserved either way.
bool shows_masked(const HeatmapSpec& s, int rows, int cols) {
  bool any_masked = s.any_masked.value_or(false);
  for (int r = 0; r < rows && s.masked && !s.any_masked && !t_layout_only && !any_masked; ++r)
    for (int c = 0; c < cols && !any_masked; ++c) any_masked = s.masked(r, c);
  return any_masked;
}

// The hatch swatch and "masked", below the colorbar, where the column labels leave room.
void draw_masked_legend(Figure& fig, const Box& bar, const Box& grid) {
  const Box swatch{bar.x0, grid.y1 + 10.0f, bar.x0 + 14.0f, grid.y1 + 22.0f};
  Image hatch;
  hatch.width = hatch.height = 12;
  hatch.version = next_version();
  for (int y = 0; y < 12; ++y)
    for (int x = 0; x < 12; ++x) {
      const Color c = (x + y) % 6 < 2 ? kMaskDark : kMaskLight;
      hatch.rgba.insert(hatch.rgba.end(), {to_byte(c.r), to_byte(c.g), to_byte(c.b), 255});
    }
  fig.image(swatch, fig.add_image(std::move(hatch)));
  fig.rect(swatch, {0, 0, 0, 0}, kMuted, 1.0f);
  fig.text({swatch.x1 + kGap, (swatch.y0 + swatch.y1) * 0.5f}, "masked", kTickSize, kInk, HAlign::Left, VAlign::Middle);
}

}  // namespace

HeatmapFigure build_heatmap(const HeatmapSpec& s, const TextMeasure& measure) {
  HeatmapFigure out;
  out.rows = static_cast<int>(s.values->rows());
  out.cols = static_cast<int>(s.values->cols());
  const HeatmapLayout l = layout_heatmap(s, measure, out);
  Figure& fig = out.figure;
  const Box& grid = out.cells;
  fig.areas.push_back(grid);
  fig.text({kMargin, kMargin}, s.title, kTitleSize, kInk).role = "title";
  for (std::size_t k = 0; k < l.subtitle.size(); ++k)
    fig.text({kMargin, kMargin + kTitleSize + kGap + static_cast<float>(k) * (kTickSize + 4.0f)}, l.subtitle[k], kTickSize,
             kMuted)
        .role = "subtitle";
  // Cells, then a thin frame.
  fig.image(grid, fig.add_image(heatmap_cells_image(s, out.rows, out.cols)));
  fig.rect(grid, {0, 0, 0, 0}, kMuted, 1.0f);
  draw_cell_values(fig, s, l, grid, out.rows, out.cols);
  draw_axis_labels(fig, s, l, grid, out.rows, out.cols);
  draw_colorbar(fig, s, l);
  if (shows_masked(s, out.rows, out.cols)) draw_masked_legend(fig, l.bar, grid);
  return out;
}

}  // namespace poslab::plot
