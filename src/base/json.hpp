#pragma once
// The first checks of every JSON file PosLab reads (config.json, tokenizer.json, sessions, the
// settings, the Hub's answers and shard indexes): the text parses, its top level is an object,
// and a member is there with the type wanted. Messages start with the name the caller gives.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/result.hpp"

namespace poslab {

// `text` parsed; "NAME: not valid JSON: WHY" where it is not JSON (a number too large for a
// double included).
Result<nlohmann::json> parse_json(std::string_view text, const std::string& name);

// `text` parsed, where its top level is an object: parse_json's message, or "NAME: " + `not_object`.
Result<nlohmann::json> parse_json_object(std::string_view text, const std::string& name, std::string_view not_object);

// The member `key` of `doc` where `doc` is an object that has it and `is_type` (&nlohmann::json::
// is_string, is_object, is_number_integer, …) holds for it; nullptr otherwise, also where `doc` is
// no object at all (a parse that failed without exceptions gives a discarded value: no object).
using JsonTypeCheck = bool (nlohmann::json::*)() const noexcept;
const nlohmann::json* json_member(const nlohmann::json& doc, std::string_view key, JsonTypeCheck is_type);

}  // namespace poslab
