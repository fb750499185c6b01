#include "base/json.hpp"

#include "base/files.hpp"

namespace poslab {

Result<nlohmann::json> parse_json(std::string_view text, const std::string& name) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse errors, and numbers too large for a double (406)
    return Error{name + ": not valid JSON: " + json_error_text(e.what())};
  }
}

Result<nlohmann::json> parse_json_object(std::string_view text, const std::string& name, std::string_view not_object) {
  auto doc = parse_json(text, name);
  if (doc && !doc->is_object()) return Error{name + ": " + std::string(not_object)};
  return doc;
}

const nlohmann::json* json_member(const nlohmann::json& doc, std::string_view key, JsonTypeCheck is_type) {
  if (!doc.is_object()) return nullptr;
  const auto it = doc.find(key);
  return it != doc.end() && ((*it).*is_type)() ? &*it : nullptr;
}

}  // namespace poslab
