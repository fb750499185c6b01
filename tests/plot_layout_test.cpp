// What a figure remembers of its layout for the GUI's probe (text roles, plotting areas, placed
// panels), and the line plot's text keeping out of its own way on a small plot: a y label longer
// than the plot is tall wraps into columns, x tick labels thin out until they stand apart.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "plot/figure.hpp"
#include "plot/lines.hpp"

using namespace poslab::plot;

namespace {

// Every character as wide as 0.6 of the size: no font needed, and widths a test can work out.
class FixedMeasure : public TextMeasure {
 public:
  float width(const std::string& text, float size) const override {
    return 0.6f * size * static_cast<float>(text.size());
  }
};

LinePlotSpec small_plot(float width, float height) {
  LinePlotSpec spec;
  spec.title = "decay";
  spec.x_label = "distance";
  spec.y_label = "relative upper bound";
  spec.width = width;
  spec.height = height;
  Series s{"", {}, {}, series_color(0), false};
  for (int x = 0; x <= 1000; x += 10) {
    s.x.push_back(x);
    s.y.push_back(1.0 / (1 + x));
  }
  spec.series.push_back(s);
  return spec;
}

std::vector<const TextItem*> with_role(const Figure& f, std::string_view role) {
  std::vector<const TextItem*> out;
  for (const TextItem& t : f.texts)
    if (t.role == role) out.push_back(&t);
  return out;
}

}  // namespace

TEST(LinePlotLayout, AYLabelLongerThanThePlotWrapsIntoColumns) {
  const FixedMeasure measure;
  const LinePlotFigure tall = build_line_plot(small_plot(300, 400), measure);
  ASSERT_EQ(with_role(tall.figure, "y label").size(), 1u);
  const LinePlotFigure short_plot = build_line_plot(small_plot(300, 70), measure);
  const auto columns = with_role(short_plot.figure, "y label");
  ASSERT_GT(columns.size(), 1u);
  for (const TextItem* t : columns) {
    EXPECT_TRUE(t->vertical);
    EXPECT_LE(measure.width(t->text, t->size), 70.0f) << t->text;
  }
  // The area moves right by the extra columns, so that they do not run into the tick labels.
  EXPECT_GT(short_plot.area.x0, tall.area.x0);
}

TEST(LinePlotLayout, XTickLabelsThinOutUntilTheyStandApart) {
  const FixedMeasure measure;
  const LinePlotFigure wide = build_line_plot(small_plot(600, 200), measure);
  const LinePlotFigure narrow = build_line_plot(small_plot(70, 200), measure);
  const auto wide_ticks = with_role(wide.figure, "x tick"), narrow_ticks = with_role(narrow.figure, "x tick");
  EXPECT_LT(narrow_ticks.size(), wide_ticks.size());
  ASSERT_GE(narrow_ticks.size(), 2u);
  for (std::size_t k = 1; k < narrow_ticks.size(); ++k) {
    const TextItem& a = *narrow_ticks[k - 1];
    const TextItem& b = *narrow_ticks[k];
    const float a_right = a.anchor.x + measure.width(a.text, a.size) / 2;
    const float b_left = b.anchor.x - measure.width(b.text, b.size) / 2;
    EXPECT_LT(a_right, b_left) << a.text << " and " << b.text;
  }
}

TEST(FigurePanels, PlacedFiguresKeepTheirBoundsAreasAndText) {
  const FixedMeasure measure;
  const LinePlotFigure left = build_line_plot(small_plot(200, 100), measure);
  const LinePlotFigure right = build_line_plot(small_plot(200, 100), measure);
  Figure pair;
  pair.append_right(left.figure);
  pair.append_right(right.figure);
  ASSERT_EQ(pair.panels.size(), 2u);
  EXPECT_FLOAT_EQ(pair.panels[1].bounds.x0, left.figure.width);
  ASSERT_EQ(pair.panels[1].areas.size(), 1u);
  EXPECT_FLOAT_EQ(pair.panels[1].areas[0].x0, left.figure.width + right.area.x0);
  // The text of each came along, marked with its panel.
  const auto titles = with_role(pair, "title");
  ASSERT_EQ(titles.size(), 2u);
  EXPECT_EQ(titles[0]->panel, 0);
  EXPECT_EQ(titles[1]->panel, 1);

  // A slide with words of its own and the pair below them: the pair's two panels, not one.
  Figure slide;
  slide.text({0, 0}, "words", 14.0f, Color{});
  slide.place(pair, {10, 50});
  ASSERT_EQ(slide.panels.size(), 2u);
  EXPECT_FLOAT_EQ(slide.panels[0].bounds.y0, 50.0f);
  EXPECT_EQ(slide.texts.front().panel, -1);
  EXPECT_EQ(with_role(slide, "title")[1]->panel, 1);
}
