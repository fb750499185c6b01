#pragma once
// Everything the user chose, and nothing else. The GUI edits it, the command line fills it, a
// session file will store it. Plain data: copyable and comparable.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/encodings.hpp"
#include "core/result.hpp"

namespace poslab {

enum class ProjectionKind { Random, Identity };
enum class Backend { Gpu, Cpu };
enum class HeatmapValue { Weights, Scores };

// The inputs of the pipeline: a change here means recomputing the attention.
struct ModelSettings {
  std::string sentence = "The dog chased another dog";
  EncodingKind encoding = EncodingKind::Rope;
  RopeStyle rope_style = RopeStyle::Interleaved;
  double base = 10000.0;
  int heads = 5;
  ProjectionKind projection = ProjectionKind::Random;
  double sigma = 0.1;
  std::uint64_t seed = 0;
  bool causal = false;
  int pad_to = 0;  // append padding tokens (masked keys) up to this length; 0 = none

  bool operator==(const ModelSettings&) const = default;
};

// How the results are shown: a change here only redraws.
struct ViewSettings {
  int head = 0;  // the head shown in the heatmap
  HeatmapValue value = HeatmapValue::Weights;

  bool operator==(const ViewSettings&) const = default;
};

struct State {
  std::string embeddings_path;  // empty: the default embeddings shipped in assets/
  ModelSettings model;
  ViewSettings view;
  Backend backend = Backend::Gpu;
  bool check_against_cpu = true;

  bool operator==(const State&) const = default;
};

// Names as used on the command line and in files.
std::string_view to_string(EncodingKind v);
std::string_view to_string(RopeStyle v);
std::string_view to_string(ProjectionKind v);
std::string_view to_string(Backend v);
std::string_view to_string(HeatmapValue v);

// Checks that the settings make sense for embeddings of width `dim`.
Status validate(const ModelSettings& settings, int dim);

// Divisors of `dim`: the head counts that split it evenly.
std::vector<int> valid_head_counts(int dim);

// The samples offered in the sentence box.
const std::vector<std::string>& sample_sentences();

}  // namespace poslab
