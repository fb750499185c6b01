#pragma once
// tokenizer.json's "post_processor": the special tokens put around a sentence's ids, as
// Hugging Face's encode(text, add_special_tokens=True) puts them — TemplateProcessing's single
// template, RobertaProcessing and BertProcessing (<s> … </s>, [CLS] … [SEP]), ByteLevel (nothing)
// and Sequence of them.
//
// A file whose post-processor adds nothing may still belong to a model that always starts with
// BOS: then tokenizer_config.json beside it decides. add_bos_token (and add_eos_token) true adds
// the token, as Llama's and Gemma's tokenizer classes do (DeepSeek V3). Without add_bos_token a
// named bos_token is added too (Llama 3's original tokenizer.json, whose models always start with
// <|begin_of_text|>) — unless it is also the eos_token: GPT-2's <|endoftext|> separates documents
// and Hugging Face puts it nowhere.
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace poslab {

struct SpecialTokenIds {
  std::vector<int> prefix, suffix;
};

// `id_of` gives a token's id (-1: not in the vocabulary); `config_json` may be empty.
Result<SpecialTokenIds> read_post_processor(const nlohmann::json& post_processor, std::string_view config_json,
                                            const std::function<int(const std::string&)>& id_of, const std::string& name);

}  // namespace poslab
