// The GUI under Xvfb: a screenshot per view, and every view's figure with a glyph for every character.
#include <gtest/gtest.h>

#include <gtest/gtest.h>
#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include "core/workspace.hpp"
#include "core/model/forward.hpp"
#include <nlohmann/json.hpp>
#include <cmath>
#include "plot/render.hpp"
#include "figures/assets.hpp"
#include "core/tour/tour.hpp"
#include "figures/export.hpp"
#include "gui/views/tour_view.hpp"
#include "plot/draw.hpp"
#include "poslab_process.hpp"
#include "app_support.hpp"

using namespace poslab;
using namespace poslab::app_test;
namespace fs = std::filesystem;

TEST(Gui, ScreenshotUnderXvfbShowsTheHeatmap) {
  const TempFolder tmp("app");
  const fs::path shot = tmp / "gui.png";
  const std::string command = "xvfb-run -a -s '-screen 0 1600x1000x24' " + std::string(POSLAB_BINARY) +
                              " --size 1280x800 --frames 4 --screenshot " + shot.string() + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0);
  const auto img = read_png(shot);
  ASSERT_EQ(img.width, 1280);
  ASSERT_EQ(img.height, 800);
  EXPECT_GT(distinct_colors(img), 300u);
  // The heatmap is drawn in viridis: count pixels near its yellow-green part.
  std::size_t greenish = 0;
  for (std::size_t i = 0; i + 3 < img.rgba.size(); i += 4) {
    const auto r = static_cast<unsigned char>(img.rgba[i]), g = static_cast<unsigned char>(img.rgba[i + 1]),
               b = static_cast<unsigned char>(img.rgba[i + 2]);
    if (g > 150 && r < 200 && b < 140 && g > b + 40) ++greenish;
  }
  EXPECT_GT(greenish, 10000u);
}

// The GUI opened on each view's tab under Xvfb: the window shows that view, not the attention tab.
class EveryViewInTheGui : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryViewInTheGui, ScreenshotShowsTheView) {
  const std::string view = GetParam();
  const TempFolder tmp("app");
  const fs::path dir = tmp / ("gui-" + view);
  fs::create_directories(dir);
  auto shoot = [&](const std::string& which, const fs::path& out) {
    const std::string command = "xvfb-run -a -s '-screen 0 1600x1000x24' " + std::string(POSLAB_BINARY) +
                                " --size 1280x800 --frames 4 --view " + which + " --screenshot " + out.string() + " 2>&1";
    return std::system(command.c_str());
  };
  ASSERT_EQ(shoot(view, dir / "view.png"), 0);
  const auto img = read_png(dir / "view.png");
  ASSERT_EQ(img.width, 1280);
  ASSERT_EQ(img.height, 800);
  EXPECT_GT(distinct_colors(img), 200u);
  // The figure area (right of the controls) is mostly the figure's white page.
  std::size_t white = 0, total = 0;
  for (int y = 100; y < 700; ++y)
    for (int x = 420; x < 1260; ++x) {
      const std::size_t i = (static_cast<std::size_t>(y) * 1280 + static_cast<std::size_t>(x)) * 4;
      auto channel = [&](std::size_t k) { return static_cast<unsigned char>(img.rgba[i + k]); };
      white += channel(0) > 245 && channel(1) > 245 && channel(2) > 245;
      ++total;
    }
  EXPECT_GT(white, total / 5) << view;
  if (view != "attention") {
    ASSERT_EQ(shoot("attention", dir / "attention.png"), 0);
    EXPECT_NE(img.rgba, read_png(dir / "attention.png").rgba) << "the tab did not change";
  }
}

INSTANTIATE_TEST_SUITE_P(Views, EveryViewInTheGui,
                         ::testing::ValuesIn(explorer_view_names()),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// Every view's figure, under settings that bring out its rarer symbols, uses only characters
// the figure font has: no replacement boxes in an exported figure.
TEST(Figures, EveryViewHasAGlyphForEveryCharacter) {
  plot::Figure control;  // the check itself: a character outside the font's ranges is caught
  control.text({0, 0}, "θ ⱼ", 13.0f, {});
  EXPECT_EQ(plot::missing_glyphs(control), std::vector<std::string>{"ⱼ"});
  Workspace w;
  ASSERT_TRUE(w.load_embeddings(asset_path(kDefaultEmbeddingsFile)).ok());
  std::vector<State> states(3);
  states[0].model.bias = BiasKind::T5;
  states[1].model.bias = BiasKind::Alibi;
  states[1].model.scaling = RopeScaling{RopeScalingType::Llama3, 32.0, 8192, 1.0, 4.0, 32.0, 1.0};
  states[1].model.causal = true;
  states[2].model.encoding = EncodingKind::Binary;
  states[2].model.binary_values = BinaryValues::PlusMinusOne;
  states[2].view.value = HeatmapValue::Scores;
  for (State& state : states) {
    state.backend = Backend::Cpu;
    ASSERT_TRUE(w.update(state).ok());
    for (ViewId view : {ViewId::Attention, ViewId::Dog, ViewId::Patterns, ViewId::Trajectory,
                            ViewId::Magnitude, ViewId::Shift, ViewId::Rope2d, ViewId::RopeImage, ViewId::Bias,
                            ViewId::Frequencies}) {
      auto figure = view_figure(view, state, *w.results(), w.embeddings());
      ASSERT_TRUE(figure.ok()) << to_string(view) << ": " << figure.error();
      const auto missing = plot::missing_glyphs(*figure);
      std::string list;
      for (const auto& m : missing) list += m + " ";
      EXPECT_TRUE(missing.empty()) << to_string(view) << " lacks glyphs for: " << list;
    }
  }
}
