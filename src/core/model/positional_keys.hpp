#pragma once
// The rule for config.json: a key that changes positions is either read or refused by name, never
// dropped for a default. This file says, for every family, which keys those are and what PosLab
// does with each; docs/CONFIG_KEYS.md is generated from it (`poslab info --config-keys`) and a
// test changes each key in every family's test folder and checks that it was read or refused.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/model/architecture.hpp"
#include "base/result.hpp"

namespace poslab {

enum class KeyAction { Read, Refused };

struct PositionalKey {
  std::string key;
  KeyAction action = KeyAction::Read;
  std::string what;  // what PosLab does with it, or why it is refused
};

// Every positional key of the family's config.json (both transformers 4 and 5 forms).
std::vector<PositionalKey> positional_keys(const Architecture& a);

// Refuses the keys of the family's list marked Refused when config.json gives them a value that
// changes the model (an absent, null or neutral value is fine); the message names the key.
Status refuse_unread_keys(const nlohmann::json& config, const Architecture& a, const std::string& name);

// The whole table as Markdown: family, key, what PosLab does.
std::string positional_keys_markdown();

}  // namespace poslab
