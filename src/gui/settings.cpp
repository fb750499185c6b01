#include "gui/settings.hpp"

#include <nlohmann/json.hpp>

#include "base/files.hpp"
#include "base/json.hpp"
#include "core/session.hpp"

namespace poslab {

std::filesystem::path settings_path() { return config_dir() / "settings.json"; }

Result<GuiSettings> load_settings(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return GuiSettings{};
  auto text = read_whole_file(path, kJsonConfigFile);
  if (!text) return Error{text.error()};
  // One message for text that is no JSON and JSON that is no object: the file is PosLab's own.
  const auto json = parse_json_object(*text, path.string(), "not a JSON object");
  if (!json) return Error{path.string() + ": not a JSON object"};
  GuiSettings settings;
  if (const auto it = json->find("ui_scale"); it != json->end()) {
    const bool valid = it->is_number() && (it->get<double>() == 0.0 ||
                                           (it->get<double>() >= kMinUiScale && it->get<double>() <= kMaxUiScale));
    if (!valid) return Error{path.string() + ": ui_scale must be 0 (follow the monitor) or between 0.5 and 4"};
    settings.ui_scale = it->get<float>();
  }
  return settings;
}

Status save_settings(const GuiSettings& settings, const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  const nlohmann::json json = {{"ui_scale", settings.ui_scale}};
  return write_file_atomic(path, json.dump(2) + "\n");
}

}  // namespace poslab
