#pragma once
// The length-extrapolation experiment over several trained models: each model at 1× … 16× its
// training length, and RoPE models again with each context scaling applied at inference. The
// tables `poslab eval` and `poslab export extrapolation` write, and the Train tab's plot reads.
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "core/train/evaluate.hpp"
#include "core/train/folder.hpp"

namespace poslab {

struct ExtrapolationCurve {
  std::string model;  // what the reader calls it: the encoding, or the folder's name when two share one
  PositionKind positions = PositionKind::Rope;
  RopeScalingType scaling = RopeScalingType::None;  // applied at inference (RoPE only)
  int train_length = 0;
  std::vector<EvalRow> rows;
  // "rope", "rope + yarn": the legend's words.
  std::string label() const;
};

// The scalings a RoPE model is evaluated with besides its own frequencies: PI, NTK, dynamic, YaRN.
const std::vector<RopeScalingType>& extrapolation_scalings();

// "none", "linear", "ntk", "dynamic", "yarn" (Hugging Face's spellings); anything else is an error.
Result<RopeScalingType> parse_inference_scaling(const std::string& name);

// Lengths from "32,64,128": each ≥ 1, at most `max_length`, no repeats, in the order given.
Result<std::vector<int>> parse_lengths(const std::string& text, int max_length);

struct NamedModel {
  std::string name;  // ExtrapolationCurve::model
  TrainedModel model;
};

// Names models by their encoding, adding the folder's name where two encodings are the same.
std::vector<NamedModel> name_models(std::vector<std::pair<std::string, TrainedModel>> folders_and_models);

// Every curve of every model, one length at a time; `on_row(done, total)` is called after each
// length, and returning false stops there (the curves so far are returned).
std::vector<ExtrapolationCurve> extrapolation_curves(const std::vector<NamedModel>& models, const std::vector<int>& lengths,
                                                     bool with_scalings, const EvalSettings& settings = {},
                                                     const std::function<bool(int, int)>& on_row = {});

// CSV text. eval: length,loss,accuracy. extrapolation:
// model,encoding,scaling,train_length,length,tokens,loss,accuracy. A length a learned table cannot
// reach has loss "nan" and accuracy 0. The training log: step,loss,lr,tokens_per_s.
std::string eval_csv(const std::vector<EvalRow>& rows);
std::string extrapolation_csv(const std::vector<ExtrapolationCurve>& curves);
std::string train_log_csv(const std::vector<TrainStep>& log);

}  // namespace poslab

namespace poslab {

// Reads extrapolation_csv's text back (the shipped models' table in assets/trained); rows of one
// (model, scaling) in a row make one curve.
Result<std::vector<ExtrapolationCurve>> parse_extrapolation_csv(const std::string& text);
// Reads train_log_csv's text back (step,loss,lr,tokens_per_s).
Result<std::vector<TrainStep>> parse_train_log_csv(const std::string& text);

}  // namespace poslab
