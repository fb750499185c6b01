#pragma once
// The precision a real model's forward pass keeps its activations in. F32, the default, is exact:
// the attention PosLab shows equals Hugging Face's float32 forward. BF16 rounds them where Hugging
// Face's forward of a model loaded in BF16 holds BF16 tensors (docs/FORMULAS.md, "BF16
// activations"), the products summed in float32 as its kernels sum them.
#include <string_view>

namespace poslab {

enum class Precision { F32, BF16 };

constexpr std::string_view to_string(Precision p) { return p == Precision::F32 ? "f32" : "bf16"; }

}  // namespace poslab
