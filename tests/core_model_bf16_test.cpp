// Real models in BF16 (--precision bf16): PosLab's forward against PyTorch's forward of the same
// Llama with every activation BF16, as Hugging Face runs a model loaded in BF16. The folder and
// the reference are written at test time by tests/reference/make_bf16_reference.py (PyTorch, from
// Hugging Face's definitions; not from PosLab's code).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/model/forward.hpp"
#include "base/gemm.hpp"
#include "core/model/model_run.hpp"

namespace poslab {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

struct Bf16Reference {
  std::vector<int> ids;
  Matrix bf16, f32;               // PyTorch's logits, T × V
  double loss_bf16 = 0.0;
  double spread_mean = 0.0;       // mean |logit| between two faithful BF16 forwards (float64 sums)
  int layer = 0;
  std::vector<Matrix> weights;    // that layer's attention weights in BF16, per head
  std::vector<Matrix> layer_outputs;  // each layer's output (the residual stream), T × hidden
};

Matrix rows_of(const Json& j) {
  Matrix m(static_cast<Eigen::Index>(j.size()), static_cast<Eigen::Index>(j[0].size()));
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index k = 0; k < m.cols(); ++k) m(i, k) = j[static_cast<std::size_t>(i)][static_cast<std::size_t>(k)].get<float>();
  return m;
}

Bf16Reference read_reference() {
  std::ifstream in(fs::path(POSLAB_MODEL_REFERENCE) / "llama_bf16.reference.json");
  EXPECT_TRUE(in.good()) << "llama_bf16.reference.json is missing: ctest runs ModelReference.Bf16 first";
  const Json j = Json::parse(in);
  Bf16Reference r;
  r.ids = j["ids"].get<std::vector<int>>();
  r.bf16 = rows_of(j["logits_bf16"]);
  r.f32 = rows_of(j["logits_f32"]);
  r.loss_bf16 = j["loss_bf16"].get<double>();
  r.spread_mean = j["spread_mean"].get<double>();
  r.layer = j["weights_layer"].get<int>();
  for (const Json& h : j["weights_bf16"]) r.weights.push_back(rows_of(h));
  for (const Json& x : j["layer_outputs_bf16"]) r.layer_outputs.push_back(rows_of(x));
  return r;
}

bool all_bf16(const Matrix& m) {
  for (Eigen::Index i = 0; i < m.size(); ++i)
    if ((std::bit_cast<std::uint32_t>(m.data()[i]) & 0xFFFFu) != 0) return false;
  return true;
}

int argmax(const Eigen::Ref<const RowVector>& row) {
  Eigen::Index at = 0;
  row.maxCoeff(&at);
  return static_cast<int>(at);
}

// The fraction of entries of A and B that are the same float.
double equal_share(const Matrix& A, const Matrix& B) { return (A.array() == B.array()).cast<double>().mean(); }

// Checked on every instruction set this CPU has (the instances are those sets: none is skipped):
// where it has AMX, the AVX-512 path multiplies the BF16 activations on the tile unit, in its own
// order of summation (base/gemm.hpp); the others sum them as floats.
class Bf16Forward : public ::testing::TestWithParam<Isa> {
 protected:
  void SetUp() override { ASSERT_TRUE(use_isa(GetParam())); }
  void TearDown() override { (void)use_isa(cpu_isa()); }
};

std::vector<Isa> cpu_paths() {
  std::vector<Isa> paths;
  for (Isa isa : {Isa::Baseline, Isa::Avx2, Isa::Avx512})
    if (static_cast<int>(isa) <= static_cast<int>(cpu_isa())) paths.push_back(isa);
  return paths;
}

TEST_P(Bf16Forward, FollowsPyTorchsBf16ForwardWithinItsRounding) {
  std::printf("products on %s%s\n", std::string(isa_words(active_isa())).c_str(), bf16_tile_products() ? ", BF16 on AMX tiles" : "");
  const Bf16Reference ref = read_reference();
  auto model = Checkpoint::open(fs::path(POSLAB_MODEL_REFERENCE) / "llama_bf16");
  ASSERT_TRUE(model) << model.error();
  ForwardOptions o;
  o.keep_logits = true;
  o.keep_layers = {ref.layer};
  std::vector<Matrix> outputs_f32, outputs_bf16;
  o.each_layer = [&](int, const Matrix& X) { outputs_f32.push_back(X); };
  auto f32 = run_forward(**model, ref.ids, o);
  o.precision = Precision::BF16;
  o.each_layer = [&](int, const Matrix& X) { outputs_bf16.push_back(X); };
  auto bf16 = run_forward(**model, ref.ids, o);
  ASSERT_TRUE(f32 && bf16);
  ASSERT_EQ(outputs_bf16.size(), ref.layer_outputs.size());

  // Layer by layer: the residual stream is BF16, and where the rounding happens as PyTorch's it is
  // PyTorch's, value for value (a sum at a rounding boundary may round the other way, one in a
  // hundred in the reference's own float64 variant, and such differences grow with depth: the
  // first layer is where the places of the rounding show). The float forward rounded to BF16
  // afterwards is not.
  for (std::size_t l = 0; l < ref.layer_outputs.size(); ++l) {
    Matrix rounded = outputs_f32[l];
    round_to_bf16(rounded.data(), rounded.size());
    const double same = equal_share(outputs_bf16[l], ref.layer_outputs[l]), same_f32 = equal_share(rounded, ref.layer_outputs[l]);
    std::printf("layer %zu: values equal to PyTorch BF16's: %.4f (the float forward rounded: %.4f)\n", l, same, same_f32);
    EXPECT_TRUE(all_bf16(outputs_bf16[l])) << "layer " << l;
    if (l == 0) {
      EXPECT_GT(same, 0.95);
      EXPECT_LT(same_f32, 0.5);
    }
  }

  // The logits: BF16 values, about as close to PyTorch's BF16 logits as two faithful BF16 forwards
  // lie (the reference's spread: its own products summed in float64), and BF16's own error
  // (PyTorch's BF16 against its float32) is more than that, so a float forward would not pass.
  const double gap_mean = (ref.bf16 - ref.f32).cwiseAbs().mean();
  const double f32_error = (f32->logits - ref.f32).cwiseAbs().maxCoeff(), scale = ref.f32.cwiseAbs().maxCoeff();
  const double bf16_mean = (bf16->logits - ref.bf16).cwiseAbs().mean();
  std::printf("logits: PosLab BF16 - PyTorch BF16 mean %.4g; spread of faithful BF16 forwards %.4g; PyTorch BF16 - float32 %.4g\n",
              bf16_mean, ref.spread_mean, gap_mean);
  EXPECT_LT(f32_error, 1e-4 * scale);  // the float forward is PyTorch's float forward: the reference is sound
  EXPECT_TRUE(all_bf16(bf16->logits));
  EXPECT_FALSE(all_bf16(f32->logits));
  EXPECT_LT(ref.spread_mean, 0.5 * gap_mean);
  EXPECT_LE(bf16_mean, 1.5 * ref.spread_mean);
  EXPECT_LT(bf16_mean, 0.5 * gap_mean);
  int same_top = 0;
  for (Eigen::Index t = 0; t < ref.bf16.rows(); ++t) same_top += argmax(bf16->logits.row(t)) == argmax(ref.bf16.row(t));
  EXPECT_GE(same_top, static_cast<int>(ref.bf16.rows()) - 2);
  EXPECT_NEAR(bf16->loss, ref.loss_bf16, 0.01);

  // The kept layer's weights, as the heads views show them: BF16, and PyTorch's.
  const LayerAttention* layer = bf16->layer(ref.layer);
  const LayerAttention* layer_f32 = f32->layer(ref.layer);
  ASSERT_TRUE(layer && layer_f32);
  ASSERT_EQ(layer->weights.size(), ref.weights.size());
  double error = 0.0, f32_gap = 0.0;
  for (std::size_t h = 0; h < ref.weights.size(); ++h) {
    EXPECT_TRUE(all_bf16(layer->weights[h])) << "head " << h;
    error += (layer->weights[h] - ref.weights[h]).cwiseAbs().mean();
    f32_gap += (layer_f32->weights[h] - ref.weights[h]).cwiseAbs().mean();
  }
  EXPECT_LT(error, 0.5 * f32_gap);
}

INSTANTIATE_TEST_SUITE_P(Paths, Bf16Forward, ::testing::ValuesIn(cpu_paths()),
                         [](const ::testing::TestParamInfo<Isa>& i) { return std::string(isa_name(i.param)); });

TEST(Bf16Request, IsTheModelRequestsChoiceAndRunsOnTheCpu) {
  auto model = Checkpoint::open(fs::path(POSLAB_MODEL_REFERENCE) / "llama_bf16");
  ASSERT_TRUE(model) << model.error();
  const Bf16Reference ref = read_reference();
  ForwardOptions o;
  o.precision = Precision::BF16;
  auto run = run_forward(**model, {ref.ids.begin(), ref.ids.begin() + 8}, o);
  ASSERT_TRUE(run) << run.error();
  EXPECT_NE(run->backend.find("CPU"), std::string::npos);
  // The precision is part of the request: a run in BF16 is not the float run's cached result.
  ModelRequest a, b;
  b.precision = Precision::BF16;
  EXPECT_FALSE(a == b);
}

}  // namespace
}  // namespace poslab
