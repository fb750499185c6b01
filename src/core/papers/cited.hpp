#pragma once
// The papers "Papers, checked" cites, each written once: authors, year, title.
#include <string_view>

namespace poslab::cited {

inline constexpr std::string_view kRoFormer =
    "Su et al. 2021, RoFormer: Enhanced Transformer with Rotary Position Embedding";
inline constexpr std::string_view kBarbero =
    "Barbero et al. 2024, Round and Round We Go! What makes Rotary Positional Encodings useful?";
inline constexpr std::string_view kAlibi =
    "Press et al. 2022, Train Short, Test Long: Attention with Linear Biases Enables Input Length Extrapolation";
inline constexpr std::string_view kYarn =
    "Peng et al. 2023, YaRN: Efficient Context Window Extension of Large Language Models";
inline constexpr std::string_view kLiu = "Liu et al. 2023, Scaling Laws of RoPE-based Extrapolation";
inline constexpr std::string_view kMen = "Men et al. 2024, Base of RoPE Bounds Context Length";
inline constexpr std::string_view kSurvey = "The survey of positional encodings (PosLab's seed article 002)";
inline constexpr std::string_view kKazemnejad =
    "Kazemnejad et al. 2023, The Impact of Positional Encoding on Length Generalization in Transformers";
inline constexpr std::string_view kHaviv =
    "Haviv et al. 2022, Transformer Language Models without Positional Encodings Still Learn Positional Information";
inline constexpr std::string_view kXiao = "Xiao et al. 2023, Efficient Streaming Language Models with Attention Sinks";
inline constexpr std::string_view kSun = "Sun et al. 2024, Massive Activations in Large Language Models";

}  // namespace poslab::cited
