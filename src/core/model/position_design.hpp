#pragma once
// A model's positional design said in words, layer by layer where its layers differ: what the
// Model tab's first line and `poslab info --model` show.
#include <string>

#include "core/model/transformer_config.hpp"

namespace poslab {

// What positions layer `layer` has, e.g. "RoPE base 10000, window 512" or "no positions (NoPE)".
std::string describe_layer_positions(const TransformerConfig& c, int layer);

// The whole design in one line, e.g. "Gemma 3: layers 0–1, 3–4 local: RoPE base 10000, window 512;
// layers 2, 5 global: RoPE base 1e+06, linear ×8 · rotate-half pairs on 256 of 256 dimensions".
std::string describe_positions(const TransformerConfig& c);

// Where each RoPE value came from in config.json, e.g. "base 100 from rope_parameters.rope_theta;
// scaling none; rotated share 1 from the family's default" (empty for a model without RoPE).
std::string describe_rope_sources(const TransformerConfig& c);

// "0–1, 3–4, 6": the layers where `in` is true, as ranges.
std::string layer_ranges(const std::vector<bool>& in);

}  // namespace poslab
