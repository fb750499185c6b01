// libFuzzer target: session files and Hugging Face config.json (as the embeddings pipeline and as
// the forward pass read it).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/model/model_config.hpp"
#include "core/model/transformer_config.hpp"
#include "core/session.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)poslab::parse_session(text, "fuzz");
  poslab::ModelSettings settings;
  (void)poslab::apply_model_config(settings, text, "fuzz");
  (void)poslab::parse_transformer_config(text, "fuzz");
  return 0;
}
