#pragma once
// Everything the user chose, and nothing else. The GUI edits it, the command line fills it, a
// session file will store it. Plain data: copyable and comparable.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/encodings/streaming.hpp"
#include "core/encodings/additive.hpp"
#include "core/encodings/encodings.hpp"
#include "base/result.hpp"
#include "core/encodings/rope_nd.hpp"
#include "core/encodings/rope_scaling.hpp"
#include "core/encodings/trajectory.hpp"
#include "core/model_stack.hpp"
#include "core/precision.hpp"

namespace poslab {

enum class ProjectionKind { Random, Identity };
enum class BiasKind { None, Alibi, T5, Shaw };
enum class Backend { Auto, Gpu, Cpu };  // Auto: the GPU on hardware, the CPU on a software renderer
enum class HeatmapValue { Weights, Scores };

// The inputs of the pipeline: a change here means recomputing the attention.
struct ModelSettings {
  std::string sentence = "The dog chased another dog";
  EncodingKind encoding = EncodingKind::Rope;
  RopeStyle rope_style = RopeStyle::Interleaved;
  double base = 10000.0;
  int heads = 5;
  // Grouped-query attention (Llama 3, Mistral): this many key/value heads, each shared by a group
  // of heads/kv_heads consecutive query heads; 0 = one per query head (multi-head attention).
  int kv_heads = 0;
  ProjectionKind projection = ProjectionKind::Random;
  double sigma = 0.1;
  std::uint64_t seed = 0;
  bool causal = false;
  int pad_to = 0;  // append padding tokens (masked keys) up to this length; 0 = none

  // Additive encodings.
  BinaryValues binary_values = BinaryValues::ZeroOne;
  int learned_max = 512;      // T_max of the seeded learned table
  std::string learned_file;   // a T_max × d table from a .npy file instead of the seeded one

  // RoPE beyond the base: partial rotary, p-RoPE, context scaling (Hugging Face's names).
  int rotary_dim = 0;         // rotated dimensions of each head; 0 = all (d_h, or d_h − 1 if odd)
  double rope_fraction = 1.0; // p-RoPE: the fraction p of pairs, highest frequencies first, that rotate
  RopeScaling scaling;

  // 2-D RoPE: tokens laid on a W × H grid row by row (grid_width 0 = 1-D positions).
  int grid_width = 0, grid_height = 0;
  Rope2d rope_2d = Rope2d::Axial;
  bool cls = false;           // the first token is a CLS token and is not rotated

  // Attention biases.
  BiasKind bias = BiasKind::None;
  int buckets = 32;           // T5 num_buckets
  int max_distance = 128;     // T5 max_distance
  int clip = 4;               // Shaw et al.: relative distances clipped to ±clip

  // Cross-attention: keys and values from this sentence (empty: self-attention).
  std::string cross_sentence;

  // A real model's positions moved: token t at position t + shift (GPT-2: row t + shift of its table).
  int position_shift = 0;
  // A model folder's own positional design, changed (each at its default keeps the model's):
  int window = -1;              // every local layer's sliding window; 0: none; −1: the model's
  double local_base = 0.0;      // the local layers' RoPE base (Gemma 3); 0: the model's
  LongRopeSet rope_factors = LongRopeSet::ByLength;  // LongRoPE's factor set; ByLength: the model's rule
  double alibi_scale = 1.0;     // ALiBi's slopes × this
  DropPairs drop_pairs;         // a model folder's rotary pairs stopped (p-RoPE at inference)
  bool sinks = true;            // GPT-OSS: its learned sinks kept (false: removed)
  int chunk = -1;               // Llama 4: the chunked layers' chunk; 0: none; −1: the model's
  Streaming streaming;          // StreamingLLM: every layer sees the first K tokens and the last W; off by default
  // An encoder–decoder (T5): whose attention is shown, and the decoder's text (its target).
  ModelStack stack = ModelStack::Encoder;
  std::string target;

  bool operator==(const ModelSettings&) const = default;
};

// How the results are shown: a change here only redraws.
struct ViewSettings {
  int head = 0;             // the head shown in the heatmap
  bool mean_heads = false;  // show the mean over heads instead
  HeatmapValue value = HeatmapValue::Weights;
  int shift_k = 3;  // the offset k of the shift view
  int permutation = 0;  // the dog view's shuffle of the tokens: 0 none, else the shuffle's seed
  int rope_m = 3, rope_n = 7, rope_pair = 0;  // the rope2d view: positions of q and k, the pair drawn
  int image_width = 14, image_height = 14;    // the rope-image view's patch grid
  int patch_x = 7, patch_y = 7;               // and the patch whose scores it shows
  int trajectory_token = 1;                   // the trajectory view: which token of the sentence,
  int trajectory_positions = 64;              // over how many positions,
  TrajectoryPlane trajectory_plane = TrajectoryPlane::Pca;
  int trajectory_dim_x = 0, trajectory_dim_y = 1;  // and the dimensions shown when not PCA
  int layer = -1;  // a model folder's layer whose attention is shown (-1: embeddings and W as above)
  std::string mrope_layout = "text:5,image:4x6,text:3";  // the mrope view's sequence (--layout)
  int query = -1;  // the pair-scores view: the query whose scores are split (−1: every query, by distance)
  std::string probe_text;  // the position-probe view: a text file, a sentence a line (empty: PosLab's own sentences)

  bool operator==(const ViewSettings&) const = default;
};

struct State {
  std::string embeddings_path;  // empty: the default embeddings shipped in assets/
  std::string vocab_path;       // a .npy's vocabulary (empty: NAME.vocab.txt beside it, or token ids)
  std::string tensor_name;      // the safetensors tensor (empty: embed_tokens, or the only 2-D one)
  ModelSettings model;
  ViewSettings view;
  Backend backend = Backend::Auto;
  Precision precision = Precision::F32;  // a real model's activations (core/precision.hpp)
  bool check_against_cpu = true;

  bool operator==(const State&) const = default;
};

// Names as used on the command line and in files.
std::string_view to_string(EncodingKind v);
std::string_view to_string(RopeStyle v);
std::string_view to_string(LongRopeSet v);  // model, short, long
std::string_view to_string(ProjectionKind v);
std::string_view to_string(BiasKind v);
std::string_view to_string(Rope2d v);
std::string_view to_string(BinaryValues v);
std::string_view to_string(Backend v);
std::string_view to_string(HeatmapValue v);
std::string_view to_string(TrajectoryPlane v);

// One line naming the encoding and bias with their parameters, e.g.
// "RoPE interleaved, base 10000, YaRN ×4 of 2048 · ALiBi".
std::string describe_encoding(const ModelSettings& settings);

// Checks that the settings make sense for embeddings of width `dim`.
Status validate(const ModelSettings& settings, int dim);

// The key/value heads actually used: kv_heads, or one per query head when it is 0.
int key_value_heads(const ModelSettings& settings);

// Divisors of `dim`: the head counts that split it evenly.
std::vector<int> valid_head_counts(int dim);

// The samples offered in the sentence box.
const std::vector<std::string>& sample_sentences();

}  // namespace poslab
