#include "tokenizer/tokenizer_post.hpp"

#include <nlohmann/json.hpp>
#include <optional>

#include "tokenizer/tokenizer_text.hpp"

namespace poslab {

using json = nlohmann::json;

namespace {

using IdOf = std::function<int(const std::string&)>;

// The ids of one SpecialToken of a template: its entry in special_tokens, or the vocabulary's.
Status template_token_ids(const json& processor, const std::string& token, const IdOf& id_of, const std::string& name,
                          std::vector<int>& out) {
  const json specials = processor.value("special_tokens", json::object());
  if (specials.is_object() && specials.contains(token)) {
    for (const json& id : specials[token].at("ids")) {
      auto parsed = json_token_id(id, name, "the post-processor's id of " + token);
      if (!parsed) return Error{parsed.error()};
      out.push_back(*parsed);
    }
    return Ok{};
  }
  if (const int id = id_of(token); id >= 0) {
    out.push_back(id);
    return Ok{};
  }
  return Error{name + ": the post-processor names an unknown special token " + token};
}

// TemplateProcessing's single template: the special tokens before $A and after it.
Status read_template(const json& processor, const IdOf& id_of, const std::string& name, SpecialTokenIds& ids) {
  bool after = false;
  for (const json& item : processor.at("single")) {
    if (item.contains("Sequence")) {
      if (after) return Error{name + ": the post-processor's single template has the sequence twice"};
      after = true;
      continue;
    }
    const std::string token = item.at("SpecialToken").at("id").get<std::string>();
    if (auto s = template_token_ids(processor, token, id_of, name, after ? ids.suffix : ids.prefix); !s) return s;
  }
  if (!after) return Error{name + ": the post-processor's single template has no $A (the sentence)"};
  return Ok{};
}

// RobertaProcessing and BertProcessing: cls and sep are ["token", id].
Status read_cls_sep(const json& processor, const std::string& name, SpecialTokenIds& ids) {
  for (const char* key : {"cls", "sep"}) {
    const json& pair = processor.at(key);
    if (!pair.is_array() || pair.size() != 2) return Error{name + ": the post-processor's " + key + " must be [token, id]"};
    auto id = json_token_id(pair[1], name, std::string("the post-processor's ") + key + " id");
    if (!id) return Error{id.error()};
    (std::string(key) == "cls" ? ids.prefix : ids.suffix).push_back(*id);
  }
  return Ok{};
}

// One processor; a Sequence wraps the sentence in each of its members in turn. `adds` is set
// when a processor that can add special tokens is present (the file has the last word then).
Status read_processor(const json& processor, const IdOf& id_of, const std::string& name, int depth, SpecialTokenIds& ids,
                      bool& adds) {
  if (depth > 16) return Error{name + ": post-processors nested too deep"};
  const std::string type = processor.at("type").get<std::string>();
  SpecialTokenIds own;
  if (type == "Sequence") {
    for (const json& member : processor.at("processors"))
      if (auto s = read_processor(member, id_of, name, depth + 1, ids, adds); !s) return s;
    return Ok{};
  } else if (type == "ByteLevel") {
    return Ok{};  // offsets only
  } else if (type == "TemplateProcessing") {
    if (auto s = read_template(processor, id_of, name, own); !s) return s;
  } else if (type == "RobertaProcessing" || type == "BertProcessing") {
    if (auto s = read_cls_sep(processor, name, own); !s) return s;
  } else {
    return Error{name + ": post-processor " + type +
                 " is not supported (TemplateProcessing, RobertaProcessing, BertProcessing, ByteLevel, Sequence)"};
  }
  adds = true;
  own.prefix.insert(own.prefix.end(), ids.prefix.begin(), ids.prefix.end());
  ids.suffix.insert(ids.suffix.end(), own.suffix.begin(), own.suffix.end());
  ids.prefix = std::move(own.prefix);
  return Ok{};
}

// tokenizer_config.json's bos_token or eos_token: a string or an AddedToken object.
std::string config_token(const json& config, const char* key) {
  if (!config.contains(key)) return "";
  const json& v = config[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
  return "";
}

// The rule of the header: BOS (and EOS) from tokenizer_config.json.
void read_config(std::string_view config_json, const IdOf& id_of, SpecialTokenIds& ids) {
  const json config = json::parse(config_json, nullptr, false);
  if (!config.is_object()) return;
  const std::string bos = config_token(config, "bos_token"), eos = config_token(config, "eos_token");
  const auto flag = [&config](const char* key) -> std::optional<bool> {
    if (config.contains(key) && config[key].is_boolean()) return config[key].get<bool>();
    return std::nullopt;
  };
  if (flag("add_bos_token").value_or(bos != eos) && !bos.empty())
    if (const int id = id_of(bos); id >= 0) ids.prefix.push_back(id);
  if (flag("add_eos_token").value_or(false) && !eos.empty())
    if (const int id = id_of(eos); id >= 0) ids.suffix.push_back(id);
}

}  // namespace

Result<SpecialTokenIds> read_post_processor(const json& post_processor, std::string_view config_json, const IdOf& id_of,
                                            const std::string& name) {
  SpecialTokenIds ids;
  bool adds = false;
  if (!post_processor.is_null())
    if (auto s = read_processor(post_processor, id_of, name, 0, ids, adds); !s) return Error{s.error()};
  if (!adds && !config_json.empty()) read_config(config_json, id_of, ids);
  return ids;
}

}  // namespace poslab
