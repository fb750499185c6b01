// Trained models as Hugging Face folders: the real-model path (Checkpoint::open + run_forward)
// opens what training saved and computes the same attention and logits as the training forward
// pass (one model, two paths, one answer); the folder reads back bit for bit; the tokenizer gives
// the task's ids; a short run learns the copy task and is the same bits twice.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tokenizer/tokenizer.hpp"
#include "base/files.hpp"
#include "core/formats/safetensors.hpp"
#include "core/model/forward.hpp"
#include "core/model/model_run.hpp"
#include "core/train/evaluate.hpp"
#include "core/train/folder.hpp"
#include "temp_folder.hpp"

namespace poslab {
namespace {

namespace fs = std::filesystem;

struct Variant {
  std::string name;
  PositionKind positions;
  double partial_rotary = 1.0, rope_fraction = 1.0;
};

std::string variant_name(const ::testing::TestParamInfo<Variant>& info) { return info.param.name; }
void PrintTo(const Variant& v, std::ostream* os) { *os << v.name; }

// A small copy model trained for a few steps, so that its weights are no longer the initial ones.
TrainSettings small_settings(const Variant& v) {
  TrainSettings s;
  s.task = Task{TaskKind::Copy, 10};
  s.train_length = 8;
  s.model.width = 32;
  s.model.heads = 4;
  s.model.layers = 2;
  s.model.mlp_width = 48;
  s.model.positions = v.positions;
  s.model.partial_rotary = v.partial_rotary;
  s.model.rope_fraction = v.rope_fraction;
  s.model.t5_buckets = 8;
  s.model.t5_max_distance = 12;
  s.steps = 30;
  s.batch = 8;
  s.warmup = 5;
  s.seed = 11;
  return s;
}

double max_relative_difference(const Matrix& a, const Matrix& b) {
  double worst = 0.0;
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < a.cols(); ++j)
      worst = std::max(worst, std::abs(static_cast<double>(a(i, j)) - b(i, j)) / std::max(1.0, std::abs(static_cast<double>(b(i, j)))));
  return worst;
}

class TrainedFolder : public ::testing::TestWithParam<Variant> {};

TEST_P(TrainedFolder, TheRealModelPathComputesTheSameAttentionAndLogits) {
  const TrainSettings settings = small_settings(GetParam());
  auto run = train(settings);
  ASSERT_TRUE(run) << run.error();
  const TrainedModel model = trained_model(std::move(*run));
  const test_support::TempFolder tmp("train-folder");
  const fs::path dir = tmp / GetParam().name;  // made by the code under test
  ASSERT_TRUE(save_model_folder(model, dir));

  auto checkpoint = Checkpoint::open(dir);
  ASSERT_TRUE(checkpoint) << checkpoint.error();
  const bool llama = GetParam().positions == PositionKind::Rope && GetParam().rope_fraction == 1.0;
  EXPECT_EQ((*checkpoint)->config().arch->name, llama ? "llama" : "poslab");
  EXPECT_EQ((*checkpoint)->config().positions, GetParam().positions);

  // One sequence longer than training (the real path must agree beyond it too), except for the
  // learned table, which has no rows past the training length.
  const int length = GetParam().positions == PositionKind::Learned ? settings.train_length : 2 * settings.train_length;
  const Batch b = make_batch(settings.task, length, 1, 5);
  ForwardOptions options;
  options.all_layers = true;
  options.keep_logits = true;
  auto real = run_forward(**checkpoint, b.ids, options);
  ASSERT_TRUE(real) << real.error();

  Activations<float> acts(model.model, 1, b.tokens, false);
  const PositionTables<float> pos = make_position_tables<float>(model.model, b.tokens);
  model_forward(model.params, pos, b.ids.data(), b.targets.data(), b.mask.data(), acts);
  const int T = b.tokens;
  for (int l = 0; l < model.model.layers; ++l) {
    const LayerAttention* layer = real->layer(l);
    ASSERT_NE(layer, nullptr);
    for (int h = 0; h < model.model.heads; ++h) {
      const Matrix mine = acts.layers[static_cast<std::size_t>(l)].att.m().block(h * T, 0, T, T);
      EXPECT_LE(max_relative_difference(mine, layer->weights[static_cast<std::size_t>(h)]), 1e-5)
          << "layer " << l << " head " << h;
    }
  }
  EXPECT_LE(max_relative_difference(Matrix(acts.logits.m()), real->logits), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Encodings, TrainedFolder,
                         ::testing::Values(Variant{"rope", PositionKind::Rope}, Variant{"rope_partial", PositionKind::Rope, 0.5},
                                           Variant{"p_rope", PositionKind::Rope, 1.0, 0.75},
                                           Variant{"none", PositionKind::None},
                                           Variant{"sinusoidal", PositionKind::Sinusoidal},
                                           Variant{"learned", PositionKind::Learned},
                                           Variant{"alibi", PositionKind::Alibi}, Variant{"t5", PositionKind::T5}),
                         variant_name);

TEST(TrainedFolderFiles, ConfigReadsBackAndWeightsAreTheSameBits) {
  for (const Variant& v : {Variant{"rope", PositionKind::Rope}, Variant{"t5", PositionKind::T5}, Variant{"p_rope", PositionKind::Rope, 0.5, 0.5}}) {
    TrainSettings settings = small_settings(v);
    settings.steps = 2;
    auto run = train(settings);
    ASSERT_TRUE(run) << run.error();
    const TrainedModel model = trained_model(std::move(*run));
    const test_support::TempFolder tmp("train-folder");
    const fs::path dir = tmp / ("files_" + v.name);  // made by the code under test
    ASSERT_TRUE(save_model_folder(model, dir));
    auto back = load_model_folder(dir);
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(back->model, model.model) << v.name;
    EXPECT_EQ(back->task, model.task);
    EXPECT_EQ(back->train_length, 8);
    EXPECT_EQ(back->seed, 11u);
    ASSERT_EQ(back->params.values().size(), model.params.values().size());
    EXPECT_EQ(std::memcmp(back->params.values().data(), model.params.values().data(), model.params.values().size() * 4), 0);

    const auto config = nlohmann::json::parse(*read_whole_file(dir / "config.json", kJsonConfigFile));
    EXPECT_EQ(config["poslab_task"], "copy");
    EXPECT_EQ(config["poslab_train_length"], 8);
    EXPECT_EQ(config["poslab_seed"], 11);
    EXPECT_EQ(config["tie_word_embeddings"], true);
    if (v.name == "rope") {  // exactly Llama: no PosLab keys about positions
      EXPECT_EQ(config["architectures"][0], "LlamaForCausalLM");
      EXPECT_EQ(config["model_type"], "llama");
      EXPECT_FALSE(config.contains("poslab_positions"));
      EXPECT_EQ(config["rope_theta"], 10000.0);
    } else {
      EXPECT_EQ(config["architectures"][0], "PosLabForCausalLM");
      EXPECT_EQ(config["poslab_positions"], v.positions == PositionKind::T5 ? "t5" : "rope");
    }
    if (v.name == "t5") {
      EXPECT_EQ(config["poslab_t5_buckets"], 8);
    }
    if (v.name == "p_rope") {
      EXPECT_EQ(config["poslab_rope_fraction"], 0.5);
      EXPECT_EQ(config["partial_rotary_factor"], 0.5);
    }

    // The safetensors file: u64 header length, a header padded to 8 bytes, tied (no lm_head).
    const std::string bytes = *read_whole_file(dir / "model.safetensors", kMatrixFile);
    std::uint64_t header = 0;
    std::memcpy(&header, bytes.data(), 8);
    EXPECT_EQ(header % 8, 0u);
    auto file = SafetensorsFile::parse(bytes, "model.safetensors");
    ASSERT_TRUE(file) << file.error();
    for (const TensorInfo& t : file->tensors()) {
      EXPECT_EQ(t.dtype, "F32");
      EXPECT_NE(t.name, "lm_head.weight");
    }
  }
}

// Text the task's tokenizer has no token for, and positions beyond the training length, are said
// with the run (the CLI prints them on stderr, the GUI beside the predictions), never silent.
TEST(TrainedFolderFiles, UnknownTextAndPositionsBeyondTrainingAreNotedWithTheRun) {
  TrainSettings settings = small_settings(Variant{"rope", PositionKind::Rope});
  settings.steps = 1;
  auto run = train(settings);
  ASSERT_TRUE(run) << run.error();
  const test_support::TempFolder tmp("train-folder");
  const fs::path dir = tmp / "notes";  // made by the code under test
  ASSERT_TRUE(save_model_folder(trained_model(std::move(*run)), dir));
  auto checkpoint = Checkpoint::open(dir);
  ASSERT_TRUE(checkpoint) << checkpoint.error();
  ModelRequest request;
  request.sentence = "abc";  // inside the alphabet and the training length: nothing to say
  auto quiet = run_model(**checkpoint, request);
  ASSERT_TRUE(quiet) << quiet.error();
  EXPECT_TRUE(quiet->notes.empty()) << quiet->notes.front();
  // A whole copy sequence of the training length (8 symbols | 8 symbols: 17 tokens, the last one
  // only predicted in training) is what the model was trained on: nothing to say either. The
  // length counted symbols where the note counted tokens, and said "beyond" here.
  request.sentence = "abcdefgh|abcdefgh";
  auto whole = run_model(**checkpoint, request);
  ASSERT_TRUE(whole) << whole.error();
  EXPECT_TRUE(whole->notes.empty()) << whole->notes.front();
  request.sentence = "ab~c!é|abcabcabcabcabc";  // ~, ! and é are not symbols of the task; 19 tokens > 17
  auto noted = run_model(**checkpoint, request);
  ASSERT_TRUE(noted) << noted.error();
  ASSERT_EQ(noted->notes.size(), 2u);
  EXPECT_EQ(noted->notes[0], "the tokenizer has no token for \"~\", \"!\", \"é\": left out of the sentence");
  EXPECT_EQ(noted->notes[1], "19 positions, beyond the 17 the model was trained on (copy of length 8)");
  EXPECT_EQ(noted->unchanged.ids.size(), 19u);
}

// A copy model is scored on the copy, as training scores it, not on the prompt it cannot know: the
// loss averages the predictions from the separator on, and says so.
TEST(TrainedFolderFiles, ATaskModelsLossCountsWhatItsTaskScores) {
  TrainSettings settings = small_settings(Variant{"rope", PositionKind::Rope});
  settings.steps = 1;
  auto run = train(settings);
  ASSERT_TRUE(run) << run.error();
  const test_support::TempFolder tmp("train-folder");
  const fs::path dir = tmp / "scored";  // made by the code under test
  ASSERT_TRUE(save_model_folder(trained_model(std::move(*run)), dir));
  auto checkpoint = Checkpoint::open(dir);
  ASSERT_TRUE(checkpoint) << checkpoint.error();
  ModelRequest request;
  request.sentence = "abcd|abcd";
  auto scored = run_model(**checkpoint, request);
  ASSERT_TRUE(scored) << scored.error();
  EXPECT_EQ(scored->unchanged.scored, 4);  // predicted at | and at a, b, c of the copy
  EXPECT_EQ(scored->unchanged.scored_description, "the copy after |, as the task scores it");
  // The same mean by hand, from the full logits.
  ForwardOptions all;
  all.keep_logits = true;
  auto full = run_forward(**checkpoint, scored->unchanged.ids, all);
  ASSERT_TRUE(full);
  double sum = 0.0;
  for (int t = 4; t < 8; ++t) {
    const auto row = full->logits.row(t).cast<double>();
    const double m = row.maxCoeff();
    sum += m + std::log((row.array() - m).exp().sum()) - row(full->ids[static_cast<std::size_t>(t + 1)]);
  }
  EXPECT_NEAR(scored->unchanged.loss, sum / 4, 1e-6);  // float logits, summed in another order
  EXPECT_EQ(full->scored, 8);  // without a task, every next token counts
  request.sentence = "abcd";   // no separator: the task says nothing, every prediction counts
  auto plain = run_model(**checkpoint, request);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->unchanged.scored, 3);
  EXPECT_TRUE(plain->unchanged.scored_description.empty());
}

TEST(TrainedFolderFiles, TheTokenizerGivesTheTaskIds) {
  const Task task{TaskKind::Copy, 62};
  const test_support::TempFolder tmp("train-folder");
  const fs::path dir = tmp / "tokenizer";
  fs::create_directories(dir);
  ASSERT_TRUE(write_file_atomic(dir / "tokenizer.json", task_tokenizer_json(task)));
  auto tokenizer = BpeTokenizer::load(dir / "tokenizer.json");
  ASSERT_TRUE(tokenizer) << tokenizer.error();
  EXPECT_EQ(tokenizer->vocab_size(), 63);
  const std::string text = "abcXYZ09|abcXYZ09";
  auto ids = tokenizer->encode(text);
  ASSERT_TRUE(ids);
  EXPECT_EQ(*ids, *task_ids(task, text));
  EXPECT_EQ((*ids)[8], separator_id(task));
  for (int id = 0; id < 63; ++id) EXPECT_EQ(tokenizer->token_text(id), std::string(1, token_character(task, id)));
}

TEST(TrainRun, ASmallCopyModelLearnsAndTheSeedGivesTheSameBits) {
  TrainSettings s = small_settings({"rope", PositionKind::Rope});
  s.steps = 150;
  s.batch = 16;
  s.warmup = 20;
  s.lr = 1e-2;
  auto first = train(s);
  auto second = train(s);
  ASSERT_TRUE(first && second);
  EXPECT_LT(first->log.back().loss, 0.25 * first->log.front().loss);
  EXPECT_TRUE(std::equal(first->params.values().begin(), first->params.values().end(), second->params.values().begin()));
  EvalSettings e;
  e.sequences = 50;
  const auto rows = evaluate_lengths(first->params, s.task, s.train_length, extrapolation_lengths(s.train_length), e);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].tokens, 16);
  EXPECT_EQ(rows[4].length, 128);
  EXPECT_GE(rows[0].accuracy, 0.9) << "loss " << rows[0].loss;
  for (const EvalRow& r : rows) EXPECT_TRUE(r.supported && std::isfinite(r.loss));
}

TEST(TrainRun, EvaluationStopsAtTheEndOfALearnedTableAndScalesRope) {
  TrainSettings s = small_settings({"learned", PositionKind::Learned});
  s.steps = 1;
  auto learned = train(s);
  ASSERT_TRUE(learned);
  const auto rows = evaluate_lengths(learned->params, s.task, s.train_length, {8, 16});
  EXPECT_TRUE(rows[0].supported);
  EXPECT_FALSE(rows[1].supported);
  EXPECT_TRUE(std::isnan(rows[1].loss));

  const RopeScaling yarn = scaling_for_length(RopeScalingType::Yarn, 64, 16);
  EXPECT_EQ(yarn.factor, 4.0);
  EXPECT_EQ(yarn.original_max_position, 16);
  EXPECT_EQ(scaling_for_length(RopeScalingType::Linear, 8, 16).factor, 1.0);  // never below 1
  s.model.positions = PositionKind::Rope;
  auto rope = train(s);
  ASSERT_TRUE(rope);
  EvalSettings e;
  e.sequences = 10;
  for (RopeScalingType kind : {RopeScalingType::None, RopeScalingType::Linear, RopeScalingType::Ntk, RopeScalingType::Dynamic,
                               RopeScalingType::Yarn}) {
    EvalSettings unscaled = e;
    unscaled.scaling = RopeScalingType::None;
    e.scaling = kind;
    const auto scaled = evaluate_lengths(rope->params, s.task, s.train_length, {8, 32}, e);
    const auto plain = evaluate_lengths(rope->params, s.task, s.train_length, {8, 32}, unscaled);
    EXPECT_NEAR(scaled[0].loss, plain[0].loss, 1e-6) << to_string(kind) << ": at the training length nothing changes";
    EXPECT_TRUE(std::isfinite(scaled[1].loss));
    if (kind != RopeScalingType::None) {
      EXPECT_NE(scaled[1].loss, plain[1].loss) << to_string(kind);
    }
  }
}

}  // namespace
}  // namespace poslab
