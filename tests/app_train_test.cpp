// The training commands as a user runs them: `poslab train`, `poslab eval`, `poslab export
// extrapolation`, a trained folder opened by `poslab export attention --model`, and the
// pre-trained models PosLab ships.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/train/extrapolation.hpp"
#include "csv_reader.hpp"
#include "poslab_process.hpp"
#include "temp_folder.hpp"
#include "core/train/model.hpp"
#include "gui/views/train_view.hpp"

namespace poslab {
namespace {

namespace fs = std::filesystem;

using test_support::RunResult;
using test_support::TempFolder;

RunResult run(const std::string& args) { return test_support::run_poslab(args); }
std::string read_file(const fs::path& p) { return test_support::read_whole_file(p); }

// A CSV file's records, the header first.
std::vector<std::vector<std::string>> read_csv(const fs::path& p) { return test_support::csv_records(read_file(p)); }

// A few steps of a small model: enough for structured weights, quick in a test.
std::string tiny(const std::string& encoding, const fs::path& out) {
  return "train --task copy --encoding " + encoding + " --width 32 --heads 2 --layers 2 --train-length 6 --steps 40 --batch 8 --seed 3 --out " +
         out.string();
}

TEST(CliTrain, DefaultRopeCopyRunLearnsTheTask) {
  // The promise: `--encoding rope --train-length 32` and nothing else gives ≥ 99 % exact match.
  const TempFolder dir("train");
  const fs::path model = dir.path() / "rope", log = dir.path() / "log.csv";
  const RunResult trained = run("train --encoding rope --train-length 32 --out " + model.string() + " --log " + log.string());
  ASSERT_EQ(trained.exit_code, 0) << trained.output;
  for (const char* file : {"config.json", "model.safetensors", "tokenizer.json"}) EXPECT_TRUE(fs::exists(model / file)) << file;
  const auto rows = read_csv(log);
  ASSERT_EQ(rows.size(), 1501u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"step", "loss", "lr", "tokens_per_s"}));
  EXPECT_LT(std::stod(rows.back()[1]), 0.5 * std::stod(rows[1][1]));  // the loss came down

  const RunResult eval = run("eval --model " + model.string() + " --task copy --lengths 32 --csv " + (dir.path() / "e.csv").string());
  ASSERT_EQ(eval.exit_code, 0) << eval.output;
  const auto e = read_csv(dir.path() / "e.csv");
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0], (std::vector<std::string>{"length", "loss", "accuracy"}));
  EXPECT_EQ(e[1][0], "32");
  EXPECT_GE(std::stod(e[1][2]), 0.99) << eval.output;
}

// One model, two paths, one answer: the CLI's attention CSV of a trained folder (the real-model
// forward pass) equals the training code's own forward pass, for every encoding.
class TrainedFolderAttention : public ::testing::TestWithParam<std::string> {};

TEST_P(TrainedFolderAttention, CliExportEqualsTheTrainingForwardPass) {
  const TempFolder dir("train");
  const fs::path folder = dir.path() / GetParam();
  const RunResult trained = run(tiny(GetParam(), folder));
  ASSERT_EQ(trained.exit_code, 0) << trained.output;
  auto model = load_model_folder(folder);
  ASSERT_TRUE(model) << model.error();
  const std::string text = task_example(*model);  // "hbk…|hbk…": the model's own characters
  const fs::path csv = dir.path() / "attention.csv";
  for (int layer = 0; layer < model->model.layers; ++layer) {
    const RunResult exported = run("export attention --model " + folder.string() + " --layer " + std::to_string(layer) +
                                   " --sentence '" + text + "' --csv " + csv.string());
    ASSERT_EQ(exported.exit_code, 0) << exported.output;
    const auto rows = read_csv(csv);
    ASSERT_FALSE(rows.empty());
    ASSERT_EQ(rows[0][0], "head");

    // The same tokens through the training code.
    auto task_tokens = task_ids(model->task, text);
    ASSERT_TRUE(task_tokens) << task_tokens.error();
    std::vector<int> ids = *task_tokens;
    const int T = static_cast<int>(ids.size());
    std::vector<int> targets(ids.size(), 0);
    std::vector<std::uint8_t> mask(ids.size(), 0);
    Activations<float> acts(model->model, 1, T, false);
    const PositionTables<float> pos = make_position_tables<float>(model->model, T);
    model_forward(model->params, pos, ids.data(), targets.data(), mask.data(), acts);
    const auto att = acts.layers[static_cast<std::size_t>(layer)].att.m();

    ASSERT_EQ(rows.size(), 1u + static_cast<std::size_t>(model->model.heads) * T * T);
    double worst = 0.0;
    for (std::size_t r = 1; r < rows.size(); ++r) {
      const int h = std::stoi(rows[r][0]), i = std::stoi(rows[r][1]), j = std::stoi(rows[r][2]);
      const double weight = std::stod(rows[r].back());
      worst = std::max(worst, std::abs(weight - static_cast<double>(att(h * T + i, j))));
    }
    EXPECT_LE(worst, 1e-5) << "layer " << layer;
  }
}

INSTANTIATE_TEST_SUITE_P(Encodings, TrainedFolderAttention,
                         ::testing::Values("none", "sinusoidal", "learned", "rope", "alibi", "t5"));

TEST(CliTrain, BadValuesAreClearErrorsAndWriteNothing) {
  const TempFolder dir("train");
  const fs::path out = dir.path() / "m";
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"train --encoding fourier --out " + out.string(), "--encoding"},
      {"train --task sort --out " + out.string(), "--task"},
      {"train --width 512 --out " + out.string(), "--width"},
      {"train --layers 9 --out " + out.string(), "--layers"},
      {"train --width 64 --heads 5 --out " + out.string(), "heads"},
      {"train --steps 10", "--out"},
      {"train --steps 10 --colour red --out " + out.string(), "unknown option"},
      {"train --steps 10 --out " + out.string() + " --log " + (dir.path() / "nowhere" / "log.csv").string(), "does not exist"},
  };
  for (const Case& c : cases) {
    const RunResult r = run(c.args);
    EXPECT_NE(r.exit_code, 0) << c.args;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_FALSE(fs::exists(out)) << c.args;
  }
}

TEST(CliEval, MatchesExtrapolationAndRefusesWhatCannotBe) {
  const TempFolder dir("train");
  const fs::path rope = dir.path() / "rope", alibi = dir.path() / "alibi";
  ASSERT_EQ(run(tiny("rope", rope)).exit_code, 0);
  ASSERT_EQ(run(tiny("alibi", alibi)).exit_code, 0);

  const fs::path table = dir.path() / "x.csv", png = dir.path() / "x.png";
  const RunResult x = run("export extrapolation --models " + rope.string() + "," + alibi.string() +
                          " --task copy --lengths 6,12,24 --sequences 20 --png " + png.string() + " --csv " + table.string());
  ASSERT_EQ(x.exit_code, 0) << x.output;
  const auto rows = read_csv(table);
  ASSERT_EQ(rows[0], (std::vector<std::string>{"model", "encoding", "scaling", "train_length", "length", "tokens", "loss", "accuracy"}));
  // RoPE as trained and with PI, NTK, dynamic and YaRN; ALiBi as trained: 6 curves × 3 lengths.
  ASSERT_EQ(rows.size(), 1u + 6u * 3u);
  std::map<std::string, int> per_scaling;
  for (std::size_t r = 1; r < rows.size(); ++r) ++per_scaling[rows[r][0] + "/" + rows[r][2]];
  for (const char* key : {"rope/none", "rope/linear", "rope/ntk", "rope/dynamic", "rope/yarn", "alibi/none"})
    EXPECT_EQ(per_scaling[key], 3) << key;
  EXPECT_EQ(read_file(png).substr(1, 3), "PNG");

  // `poslab eval` of one model and scaling gives the same numbers as the table's rows.
  for (const std::string scaling : {"none", "yarn"}) {
    const fs::path e = dir.path() / ("e-" + scaling + ".csv");
    const RunResult r = run("eval --model " + rope.string() + " --task copy --lengths 6,12,24 --sequences 20 --rope-scaling " +
                            scaling + " --csv " + e.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto mine = read_csv(e);
    ASSERT_EQ(mine.size(), 4u);
    for (std::size_t k = 1; k < mine.size(); ++k) {
      bool found = false;
      for (std::size_t r2 = 1; r2 < rows.size(); ++r2)
        if (rows[r2][0] == "rope" && rows[r2][2] == scaling && rows[r2][4] == mine[k][0]) {
          found = true;
          EXPECT_EQ(rows[r2][6], mine[k][1]) << scaling << " length " << mine[k][0];
          EXPECT_EQ(rows[r2][7], mine[k][2]) << scaling << " length " << mine[k][0];
        }
      EXPECT_TRUE(found) << mine[k][0];
    }
  }
  // What cannot be: scaling a model without RoPE, another task, a bad length list, no folder.
  const fs::path none = dir.path() / "none.csv";
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"eval --model " + alibi.string() + " --rope-scaling yarn --csv " + none.string(), "RoPE"},
           {"eval --model " + alibi.string() + " --task recall --csv " + none.string(), "copy task"},
           {"eval --model " + alibi.string() + " --lengths 6,x --csv " + none.string(), "--lengths"},
           {"eval --model " + alibi.string() + " --lengths 6,6 --csv " + none.string(), "twice"},
           {"eval --model " + (dir.path() / "missing").string() + " --csv " + none.string(), "missing"},
           {"export extrapolation --models " + alibi.string() + " --csv " + none.string() + " --task recall", "copy task"},
       }) {
    const RunResult r = run(args);
    EXPECT_NE(r.exit_code, 0) << args;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
    EXPECT_FALSE(fs::exists(none)) << args;
  }
}

TEST(ShippedModels, OnePerEncodingWithinTwelveMegabytesAndTheirTableHolds) {
  const auto models = shipped_models();
  ASSERT_EQ(models.size(), 6u) << "assets/trained should hold copy-{none,sinusoidal,learned,rope,alibi,t5}";
  // The six copy models with their logs (3.2 MB) and the ten length-generalization models of
  // `papers check nope-length` (5.3 MB, assets/trained/length).
  std::uintmax_t bytes = 0;
  for (const auto& entry : fs::recursive_directory_iterator(shipped_models_folder()))
    if (entry.is_regular_file()) bytes += entry.file_size();
  EXPECT_LE(bytes, 12u * 1024u * 1024u);

  // The shipped table is what `poslab eval` measures now at the training length.
  auto table = parse_extrapolation_csv(read_file(shipped_models_folder() / "extrapolation.csv"));
  ASSERT_TRUE(table) << table.error();
  const TempFolder dir("train");
  for (const fs::path& m : models) {
    auto model = load_model_folder(m);
    ASSERT_TRUE(model) << model.error();
    EXPECT_EQ(model->task.kind, TaskKind::Copy);
    EXPECT_EQ(model->train_length, 32);
    const fs::path e = dir.path() / "e.csv";
    const RunResult r = run("eval --model " + m.string() + " --lengths 32,64 --csv " + e.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto mine = read_csv(e);
    const std::string name(to_string(model->model.positions));
    int matched = 0;
    for (const ExtrapolationCurve& c : *table)
      if (c.model == name && c.scaling == RopeScalingType::None)
        for (const EvalRow& row : c.rows)
          for (std::size_t k = 1; k < mine.size(); ++k)
            if (std::to_string(row.length) == mine[k][0]) {
              ++matched;
              EXPECT_NEAR(row.accuracy, std::stod(mine[k][2]), 1e-12) << name << " at " << row.length;
            }
    EXPECT_EQ(matched, 2) << name;
  }
  // Every model but NoPE learns the copy at its training length (NoPE cannot tell the copy's
  // positions apart: that is the point of showing it).
  for (const ExtrapolationCurve& c : *table) {
    if (c.scaling != RopeScalingType::None || c.rows.front().length != 32 || c.positions == PositionKind::None) continue;
    EXPECT_GE(c.rows.front().accuracy, 0.9) << c.model;
  }
}

TEST(ExtrapolationTable, ReadsBackWhatItWrites) {
  ExtrapolationCurve a{"rope", PositionKind::Rope, RopeScalingType::Yarn, 32, {}};
  a.rows.push_back({32, 64, 0.125, 1.0, true, {}});
  a.rows.push_back({64, 128, 2.5, 0.25, true, {}});
  ExtrapolationCurve b{"learned (a,\"b\")", PositionKind::Learned, RopeScalingType::None, 32, {}};
  b.rows.push_back({64, 128, std::nan(""), 0.0, false, {}});
  auto back = parse_extrapolation_csv(extrapolation_csv({a, b}));
  ASSERT_TRUE(back) << back.error();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].model, "rope");
  EXPECT_EQ((*back)[0].scaling, RopeScalingType::Yarn);
  ASSERT_EQ((*back)[0].rows.size(), 2u);
  EXPECT_EQ((*back)[0].rows[1].loss, 2.5);
  EXPECT_EQ((*back)[0].rows[1].accuracy, 0.25);
  EXPECT_EQ((*back)[1].model, "learned (a,\"b\")");
  EXPECT_FALSE((*back)[1].rows[0].supported);
  EXPECT_FALSE(parse_extrapolation_csv("length,loss,accuracy\n32,0.1,1\n"));
  EXPECT_FALSE(parse_extrapolation_csv(extrapolation_csv({a}) + "rope,rope,warp,32,64,128,1,1\n"));
}

}  // namespace
}  // namespace poslab
