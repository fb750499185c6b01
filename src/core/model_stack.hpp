#pragma once
// Which attention of a model a view shows: the self-attention of its (first) stack — a decoder's,
// or an encoder's —, or in an encoder–decoder (T5) the decoder's self-attention or its
// cross-attention to the encoder (rows decoder positions, columns encoder positions).
#include <optional>
#include <string_view>

namespace poslab {

enum class ModelStack { Encoder, Decoder, Cross };

constexpr std::string_view to_string(ModelStack s) {
  return s == ModelStack::Encoder ? "encoder" : s == ModelStack::Decoder ? "decoder" : "cross";
}

inline std::optional<ModelStack> parse_model_stack(std::string_view v) {
  for (ModelStack s : {ModelStack::Encoder, ModelStack::Decoder, ModelStack::Cross})
    if (v == to_string(s)) return s;
  return std::nullopt;
}

}  // namespace poslab
