#pragma once
// A tokenizer.json small enough that every id can be derived by hand. Bytes map to themselves
// for printable ASCII; the space is "Ġ" (U+0120). Merges, by rank: "d o" → "do", "do g" → "dog",
// "Ġ dog" → "Ġdog", "c a" → "ca", "g d" → "gd". Ids 100 and 101 are the special <s> and <x>.
#include <string>

inline std::string tokenizer_json(bool ignore_merges, bool template_bos) {
  std::string post = template_bos ? R"({"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
        {"Sequence": {"id": "A", "type_id": 0}}], "special_tokens": {"<s>": {"id": "<s>", "ids": [100], "tokens": ["<s>"]}}})"
                                  : "null";
  return R"({"normalizer": null,
    "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
      {"type": "Split", "pattern": {"Regex": " ?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+|\\s+"}, "behavior": "Isolated", "invert": false},
      {"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}]},
    "post_processor": )" + post + R"(,
    "added_tokens": [{"id": 100, "content": "<s>", "special": true}, {"id": 101, "content": "<x>", "special": true}],
    "model": {"type": "BPE", "ignore_merges": )" + (ignore_merges ? "true" : "false") + R"(,
      "vocab": {"d": 0, "o": 1, "g": 2, "Ġ": 3, "c": 4, "a": 5, "t": 6, "do": 7, "dog": 8, "Ġdog": 9, "ca": 10, "1": 11,
                "cat": 12, "gd": 13},
      "merges": ["d o", "do g", "Ġ dog", "c a", ["g", "d"]]}})";
}
