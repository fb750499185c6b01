// The desktop side without a window: where PosLab keeps what it remembers (XDG), the GUI's
// settings file, and the fitting that sizes figures to their panel.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "core/session.hpp"
#include "gui/show_figure.hpp"
#include "gui/settings.hpp"
#include "temp_folder.hpp"

namespace fs = std::filesystem;
using namespace poslab;

namespace {

// Sets an environment variable for one test and restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace

TEST(ConfigDir, FollowsXdgConfigHome) {
  ScopedEnv xdg("XDG_CONFIG_HOME", "/somewhere/config");
  ScopedEnv home("HOME", "/home/reader");
  EXPECT_EQ(config_dir(), fs::path("/somewhere/config/poslab"));
}

TEST(ConfigDir, FallsBackToDotConfigInHome) {
  ScopedEnv xdg("XDG_CONFIG_HOME", nullptr);
  ScopedEnv home("HOME", "/home/reader");
  EXPECT_EQ(config_dir(), fs::path("/home/reader/.config/poslab"));
  ScopedEnv empty("XDG_CONFIG_HOME", "");
  EXPECT_EQ(config_dir(), fs::path("/home/reader/.config/poslab"));
}

TEST(ConfigDir, IgnoresARelativeXdgConfigHomeAsTheSpecificationSays) {
  ScopedEnv xdg("XDG_CONFIG_HOME", "relative/config");
  ScopedEnv home("HOME", "/home/reader");
  EXPECT_EQ(config_dir(), fs::path("/home/reader/.config/poslab"));
}

TEST(ConfigDir, UsesTheTemporaryFolderWithoutAnyHome) {
  ScopedEnv xdg("XDG_CONFIG_HOME", nullptr);
  ScopedEnv home("HOME", nullptr);
  EXPECT_EQ(config_dir(), fs::temp_directory_path() / "poslab");
}

TEST(Settings, LiveInTheConfigDir) {
  ScopedEnv xdg("XDG_CONFIG_HOME", "/somewhere/config");
  EXPECT_EQ(settings_path(), fs::path("/somewhere/config/poslab/settings.json"));
}

TEST(Settings, AMissingFileGivesTheDefaults) {
  const test_support::TempFolder dir("desktop-missing");
  const auto settings = load_settings(dir / "settings.json");
  ASSERT_TRUE(settings) << settings.error();
  EXPECT_EQ(settings->ui_scale, 0.0f);  // follow the monitor
}

TEST(Settings, RoundTripAndCreateTheFolder) {
  const test_support::TempFolder dir("desktop-round-trip");
  const fs::path path = dir / "poslab" / "settings.json";
  ASSERT_TRUE(save_settings(GuiSettings{1.75f}, path));
  const auto settings = load_settings(path);
  ASSERT_TRUE(settings) << settings.error();
  EXPECT_EQ(settings->ui_scale, 1.75f);
}

TEST(Settings, ABadValueIsAnErrorNamingTheFile) {
  const test_support::TempFolder dir("desktop-bad");
  for (const char* text : {R"({"ui_scale": "big"})", R"({"ui_scale": 9})", R"({"ui_scale": 0.1})", "[1, 2]", "{not json"}) {
    std::ofstream(dir / "settings.json") << text;
    const auto settings = load_settings(dir / "settings.json");
    ASSERT_FALSE(settings) << text;
    EXPECT_NE(settings.error().find("settings.json"), std::string::npos) << settings.error();
  }
}

// A figure 150 points of margin plus twice the size parameter wide, 80 plus the parameter tall.
TEST(FigureFit, FindsTheLargestSizeThatFits) {
  auto measure = [](float s) { return plot::Point{150.0f + 2.0f * s, 80.0f + s}; };
  // Width binds: 150 + 2s <= 950 → s = 400 (the height would allow 520).
  EXPECT_NEAR(fit_size({950.0f, 600.0f}, 100.0f, 1400.0f, measure), 400.0f, 1.0f);
  // Height binds: 80 + s <= 300 → s = 220.
  EXPECT_NEAR(fit_size({2000.0f, 300.0f}, 100.0f, 1400.0f, measure), 220.0f, 1.0f);
  // Never above the maximum, however large the room.
  EXPECT_EQ(fit_size({1e5f, 1e5f}, 100.0f, 1400.0f, measure), 1400.0f);
}

TEST(FigureFit, TheResultAlwaysFits) {
  // Not linear: a title sets the width until the plot outgrows it, labels thin out in steps.
  auto measure = [](float s) { return plot::Point{std::max(600.0f, 120.0f + s) + (s > 500 ? 30.0f : 0.0f), 40.0f + s}; };
  for (float room = 700.0f; room < 1500.0f; room += 37.0f) {
    const float s = fit_size({room, 2000.0f}, 100.0f, 1400.0f, measure);
    EXPECT_LE(measure(s).x, room) << room;
    EXPECT_GT(measure(s + 2.0f).x, room) << room;  // and no more than a point or two is left
  }
}

TEST(FigureFit, ASmallRoomIsLaidOutForTheZoomItWillBeShownAt) {
  // The smallest layout (s = 100) is 350 × 180; in a 175-point-wide room it is shown at half
  // size, so it is laid out for 350 × 2·(room height) and fills the room's width when shrunk.
  auto measure = [](float s) { return plot::Point{150.0f + 2.0f * s, 80.0f + s}; };
  EXPECT_NEAR(fit_size({175.0f, 400.0f}, 100.0f, 1400.0f, measure), 100.0f, 1.0f);
  // Shrunk to fit a short room (half the smallest height), the width it is laid out for doubles.
  EXPECT_NEAR(fit_size({950.0f, 90.0f}, 100.0f, 1400.0f, measure), 100.0f, 1.0f);
  const float s = fit_size({950.0f, 90.0f}, 100.0f, 1400.0f, [](float v) { return plot::Point{150.0f + 2.0f * v, 180.0f}; });
  EXPECT_NEAR(150.0f + 2.0f * s, 1900.0f, 2.0f);
  // A page that scrolls down is not shrunk for its height: its width stays the room's.
  const float page = fit_size({950.0f, 90.0f}, 100.0f, 1400.0f, [](float v) { return plot::Point{150.0f + 2.0f * v, 180.0f}; },
                              Overflow::ScrollDown);
  EXPECT_NEAR(150.0f + 2.0f * page, 950.0f, 2.0f);
}

TEST(FigureFit, AreaFitsWidthAndHeightApart) {
  // A line plot: 250 points of axes and legend beside the area, 130 above and below it.
  auto measure = [](float w, float h) { return plot::Point{250.0f + w, 130.0f + h}; };
  const plot::Point area = fit_area({1000.0f, 800.0f}, kMinArea, kMaxArea, measure);
  EXPECT_NEAR(area.x, 750.0f, 1.0f);
  EXPECT_NEAR(area.y, 670.0f, 1.0f);
  const plot::Point most = fit_area({1e5f, 1e5f}, kMinArea, kMaxArea, measure);
  EXPECT_EQ(most.x, kMaxArea.x);
  EXPECT_EQ(most.y, kMaxArea.y);
}
