#pragma once
// The GUI's own settings, apart from the State a session holds: how large to draw the interface.
// Kept in config_dir()/settings.json:  {"ui_scale": 1.5}   (0 or absent: follow the monitor)
#include <filesystem>

#include "base/result.hpp"
#include "figures/launch.hpp"

namespace poslab {


struct GuiSettings {
  float ui_scale = 0.0f;  // pixels per point; 0: the monitor's content scale
};

std::filesystem::path settings_path();

// A missing file gives the defaults; a malformed one or a value out of range is an error that
// names the file (the caller keeps the defaults and says so).
Result<GuiSettings> load_settings(const std::filesystem::path& path = settings_path());
Status save_settings(const GuiSettings& settings, const std::filesystem::path& path = settings_path());

}  // namespace poslab
