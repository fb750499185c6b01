// The training engine against PyTorch (llm.c's test_gpt2 pattern). This test writes each
// encoding's initial weights and 50 batches to a temporary folder; the independent script
// tests/reference/train_reference.py (Debian's /usr/bin/python3 with python3-torch, written from
// the definitions) computes the step-0 gradient of every tensor and the losses of 50 AdamW steps;
// here they are compared with the C++ engine's: ≤ 1e-4 relative, tensor by tensor and step by step.
//
// It is its own executable (train_reference_tests) so that the core tests need no PyTorch;
// `./setup.sh test` installs python3-torch for it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/files.hpp"
#include "core/formats/safetensors.hpp"
#include "core/train/folder.hpp"
#include "temp_folder.hpp"

namespace poslab {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr int kSteps = 50;

struct Case {
  std::string name;
  PositionKind positions;
  double partial_rotary = 1.0, rope_fraction = 1.0;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) { return info.param.name; }
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"rope", PositionKind::Rope},       {"rope_partial_p", PositionKind::Rope, 0.5, 0.75},
      {"alibi", PositionKind::Alibi},     {"t5", PositionKind::T5},
      {"none", PositionKind::None},       {"sinusoidal", PositionKind::Sinusoidal},
      {"learned", PositionKind::Learned},
  };
  return all;
}

TrainSettings reference_settings(const Case& c) {
  TrainSettings s;
  s.task = Task{TaskKind::Copy, 10};
  s.train_length = 6;  // 12 tokens
  s.model.width = 32;
  s.model.heads = 4;
  s.model.layers = 2;
  s.model.mlp_width = 48;
  s.model.positions = c.positions;
  s.model.partial_rotary = c.partial_rotary;
  s.model.rope_fraction = c.rope_fraction;
  s.model.t5_buckets = 8;
  s.model.t5_max_distance = 10;  // 12 tokens reach the logarithmic buckets and the cap
  s.steps = kSteps;
  s.batch = 8;
  s.lr = 1e-2;
  s.warmup = 5;
  s.clip = 0.5;  // low enough that some steps are clipped
  s.seed = 2024;
  return s;
}

Json batch_json(const Batch& b) {
  return Json{{"sequences", b.sequences}, {"tokens", b.tokens}, {"ids", b.ids}, {"targets", b.targets}, {"mask", b.mask}};
}

// Everything the script needs to train the same model from the same start on the same data.
void write_case(const Case& c, const fs::path& dir) {
  const TrainSettings s = reference_settings(c);
  const TrainModelConfig m = resolved_model(s);
  fs::create_directories(dir);
  ASSERT_TRUE(write_file_atomic(dir / "init.safetensors", safetensors_bytes(initial_params(s))));
  Json j;
  j["model"] = {{"vocab", m.vocab}, {"width", m.width}, {"heads", m.heads}, {"layers", m.layers}, {"mlp_width", m.mlp()},
                {"positions", std::string(to_string(m.positions))}, {"rope_theta", m.rope_theta},
                {"partial_rotary_factor", m.partial_rotary}, {"rope_fraction", m.rope_fraction},
                {"t5_buckets", m.t5_buckets}, {"t5_max_distance", m.t5_max_distance}, {"rms_norm_eps", m.norm_eps},
                {"max_positions", m.max_positions}};
  j["optimizer"] = {{"lr", s.lr}, {"warmup", s.warmup}, {"steps", s.steps}, {"min_lr_ratio", s.min_lr_ratio},
                    {"beta1", s.adamw.beta1}, {"beta2", s.adamw.beta2}, {"eps", s.adamw.eps},
                    {"weight_decay", s.adamw.weight_decay}, {"clip", s.clip}};
  j["batches"] = Json::array();
  for (int step = 0; step < kSteps; ++step) j["batches"].push_back(batch_json(training_batch(s, step)));
  ASSERT_TRUE(write_file_atomic(dir / "case.json", j.dump()));
}

class TrainReference : public ::testing::TestWithParam<Case> {
 protected:
  static void SetUpTestSuite() {
    folder_ = std::make_unique<test_support::TempFolder>("train-reference");
    root_ = folder_->path();
    for (const Case& c : cases()) write_case(c, root_ / c.name);
    const std::string command = "/usr/bin/python3 " + std::string(POSLAB_TEST_REFERENCE_DIR) + "/train_reference.py " + root_.string();
    status_ = std::system(command.c_str());
  }
  static void TearDownTestSuite() { folder_.reset(); }
  static std::unique_ptr<test_support::TempFolder> folder_;  // the suite's, made once for every case
  static fs::path root_;
  static int status_;
};

std::unique_ptr<test_support::TempFolder> TrainReference::folder_;
fs::path TrainReference::root_;
int TrainReference::status_ = -1;

TEST_P(TrainReference, GradientsAndFiftyLossesMatchPyTorch) {
  ASSERT_EQ(status_, 0) << "tests/reference/train_reference.py failed (needs /usr/bin/python3 with python3-torch)";
  const Case& c = GetParam();
  const fs::path dir = root_ / c.name;
  const TrainSettings s = reference_settings(c);

  // Step 0: the gradient before clipping, tensor by tensor.
  auto reference = SafetensorsFile::open(dir / "grads.safetensors");
  ASSERT_TRUE(reference) << reference.error();
  Params<float> start = initial_params(s);
  GradientEngine<float> engine(start.config(), s.shards);
  Params<float> grad(start.config());
  engine.loss_and_gradient(start, training_batch(s, 0), grad);
  for (const TensorSpec& spec : grad.specs()) {
    const TensorInfo* info = nullptr;
    for (const TensorInfo& t : reference->tensors())
      if (t.name == spec.name) info = &t;
    ASSERT_NE(info, nullptr) << spec.name << " is not in PyTorch's gradients";
    const std::string_view bytes = reference->bytes(*info);
    const Tensor<float>& mine = *grad.find(spec.name);
    ASSERT_EQ(bytes.size(), static_cast<std::size_t>(mine.size()) * 4) << spec.name;
    double diff2 = 0.0, ref2 = 0.0;
    for (Eigen::Index i = 0; i < mine.size(); ++i) {
      float theirs = 0.0f;
      std::memcpy(&theirs, bytes.data() + 4 * i, 4);
      diff2 += std::pow(static_cast<double>(mine.data[i]) - theirs, 2);
      ref2 += std::pow(static_cast<double>(theirs), 2);
    }
    ASSERT_GT(ref2, 0.0) << spec.name;
    EXPECT_LE(std::sqrt(diff2 / ref2), 1e-4) << spec.name << ": ‖C++ − PyTorch‖ / ‖PyTorch‖ at step 0";
  }

  // 50 AdamW steps from the same start on the same batches.
  const Json losses = Json::parse(*read_whole_file(dir / "losses.json", kJsonConfigFile))["losses"];
  ASSERT_EQ(losses.size(), static_cast<std::size_t>(kSteps));
  Trainer<float> trainer(s, initial_params(s));
  for (int step = 0; step < kSteps; ++step) {
    const double mine = trainer.step(training_batch(s, step)).loss, theirs = losses[static_cast<std::size_t>(step)].get<double>();
    EXPECT_LE(std::abs(mine - theirs) / std::abs(theirs), 1e-4) << "step " << step << ": " << mine << " against " << theirs;
  }
  // The steps must have moved the weights (a comparison of two frozen models would prove little).
  const Params<float> initial = initial_params(s);
  double moved2 = 0.0, size2 = 0.0;
  for (std::size_t i = 0; i < initial.values().size(); ++i) {
    moved2 += std::pow(static_cast<double>(trainer.params().values()[i]) - initial.values()[i], 2);
    size2 += std::pow(static_cast<double>(initial.values()[i]), 2);
  }
  EXPECT_GT(std::sqrt(moved2 / size2), 0.05) << "50 steps should move the weights";
}

INSTANTIATE_TEST_SUITE_P(Encodings, TrainReference, ::testing::ValuesIn(cases()), case_name);

}  // namespace
}  // namespace poslab
