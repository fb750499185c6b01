// The tour from the command line and its slides: the list with live checks, both languages, the
// exported step, and the reader's own changes kept when stepping back.
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

TEST(Tour, ListPrintsEveryStepWithItsLiveCheck) {
  for (const char* lang : {"en", "ja"}) {
    const auto r = run(std::string("tour --list --lang ") + lang);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::istringstream in(r.output);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      const auto tab1 = line.find('\t'), tab2 = line.rfind('\t');
      ASSERT_NE(tab1, tab2) << line;
      EXPECT_EQ(line.substr(0, tab1), std::to_string(n));
      EXPECT_GT(tab2 - tab1, 3u) << line;  // a title
      EXPECT_EQ(line.substr(tab2 + 1), "pass") << line;
    }
    EXPECT_EQ(n, 12) << r.output;
  }
}

TEST(Tour, EveryStepRendersInBothLanguagesWithEveryGlyph) {
  plot::add_figure_glyphs(tour_japanese_text());
  Workspace w;
  ASSERT_TRUE(w.load_embeddings(asset_path(kDefaultEmbeddingsFile)).ok());
  for (Language language : {Language::En, Language::Ja})
    for (int step = 0; step < 12; ++step) {
      State state = tour_state(step, State{});
      state.backend = Backend::Cpu;
      ASSERT_TRUE(w.update(state).ok());
      auto figure = tour_figure(step, language, state, *w.results(), w.embeddings());
      ASSERT_TRUE(figure.ok()) << step << ": " << figure.error();
      EXPECT_GT(figure->texts.size(), 10u);
      const auto missing = plot::missing_glyphs(*figure);
      std::string list;
      for (const auto& m : missing) list += m + " ";
      EXPECT_TRUE(missing.empty()) << "step " << step + 1 << (language == Language::Ja ? " ja" : " en") << ": " << list;
    }
}

TEST(Tour, ExportsAStepAsOneImage) {
  const TempFolder dir("app");
  const auto en = run("export tour --step 7 --png " + (dir / "t7.png").string() + " --csv " + (dir / "tour.csv").string());
  ASSERT_EQ(en.exit_code, 0) << en.output;
  const auto ja = run("export tour --step 7 --lang ja --scale 2 --png " + (dir / "t7ja.png").string());
  ASSERT_EQ(ja.exit_code, 0) << ja.output;
  const auto a = read_png(dir / "t7.png"), b = read_png(dir / "t7ja.png");
  EXPECT_GT(distinct_colors(a), 100u);
  EXPECT_GT(b.width, a.width);  // twice the pixels
  const std::string csv = read_file(dir / "tour.csv");
  EXPECT_EQ(csv.rfind("step,title,pass,measured\n", 0), 0u);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 13);
  EXPECT_EQ(run("export tour --step 13 --png x.png").exit_code, 2);
  EXPECT_EQ(run("export tour --lang fr --png x.png").exit_code, 2);
}

TEST(Tour, SteppingBackKeepsTheReadersOwnChanges) {
  State state;
  TourView tour;
  tour.enter(state);
  EXPECT_EQ(state.model.encoding, EncodingKind::None);  // step 1's preset
  tour.go_to(5, state);                                  // step 6: the sinusoid
  EXPECT_EQ(state.model.encoding, EncodingKind::Sinusoidal);
  state.model.base = 500.0;  // the reader plays
  tour.next(state);
  EXPECT_EQ(tour.step(), 6);
  tour.previous(state);
  EXPECT_EQ(state.model.base, 500.0);  // their change is still there
  tour.go_to(0, state);
  tour.go_to(1, state);
  EXPECT_EQ(state.model.encoding, EncodingKind::Sinusoidal);  // step 2's preset on first visit
}

// Step 5's binary path: the largest jump's label ("31 → 32") sits beside its red line, not on it
// (it was drawn across the line, among the path's other segments).
TEST(Tour, TheJumpsLabelIsClearOfItsLine) {
  Workspace w;
  ASSERT_TRUE(w.load_embeddings(asset_path(kDefaultEmbeddingsFile)).ok());
  State state = tour_state(4, State{});
  state.backend = Backend::Cpu;
  ASSERT_TRUE(w.update(state).ok());
  auto figure = tour_figure(4, Language::En, state, *w.results(), w.embeddings());
  ASSERT_TRUE(figure.ok()) << figure.error();
  const auto label = std::find_if(figure->texts.begin(), figure->texts.end(), [](const plot::TextItem& t) { return t.text.find(" → ") != std::string::npos && t.size == 11.0f; });
  ASSERT_NE(label, figure->texts.end());
  const auto red = std::find_if(figure->lines.begin(), figure->lines.end(), [](const plot::LineItem& l) { return l.color.r > 0.7f && l.color.g < 0.2f && l.points.size() == 2; });
  ASSERT_NE(red, figure->lines.end());
  const float width = plot::figure_text_measure().width(label->text, label->size), height = label->size * 1.3f;
  // Clear by the line's half width and 2 px more: the glyphs' tops touch the box's top edge.
  const float clearance = red->width / 2.0f + 2.0f;
  const plot::Box box{label->anchor.x - clearance, label->anchor.y - clearance, label->anchor.x + width + clearance,
                      label->anchor.y + height + clearance};
  for (int i = 0; i <= 64; ++i) {
    const float f = static_cast<float>(i) / 64.0f;
    const plot::Point p{red->points[0].x + f * (red->points[1].x - red->points[0].x), red->points[0].y + f * (red->points[1].y - red->points[0].y)};
    EXPECT_FALSE(box.contains(p)) << label->text << " covers its line at " << f;
  }
}
