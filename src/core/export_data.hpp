#pragma once
// Tidy CSV of the results, and atomic file writing shared by every exporter.
#include <filesystem>
#include <ostream>
#include <string>
#include <string_view>

#include "base/csv.hpp"
#include "base/files.hpp"
#include "core/attention/pipeline.hpp"

namespace poslab {

// header `head,query,key,query_token,key_token,score,weight`; one row per cell; masked cells
// have score -inf and weight 0. With learned sinks (GPT-OSS) a column `sink` more: the query row's
// share that went to the sink, so that weight summed over a row plus sink is 1. With DeepSeek's
// latent attention two more, `score_content` and `score_position`: the score's two parts, whose
// sum is the score.
void write_attention_csv(std::ostream& out, const Results& results);
// Whether write_attention_csv's text fits the memory budget when it is made whole in memory (a
// string, then its copy): a row per head and cell, about 50 bytes each.
Status check_attention_csv_memory(const Results& results);

// header `pair,theta,wavelength,theta_scaled,wavelength_scaled`: θᵢ = base^(−2i/r) and its
// wavelength 2π/θᵢ per pair of a rotary width r, before and after the settings' context scaling
// (at sequence length T, which only dynamic NTK reads).
void write_frequencies_csv(std::ostream& out, const ModelSettings& settings, int rotary_dim, int sequence_length);

// header `head,query,key,bucket,bias`: the ALiBi or T5 bias of every cell (bucket empty unless
// T5), from the results' relative bias.
void write_bias_csv(std::ostream& out, const ModelSettings& settings, const Results& results);


}  // namespace poslab
