// Real model folders (written by tests/reference/make_model_reference.py) on the command line and
// in the Model tab: predictions, the model's own attention, changed positions beside the unchanged.
#include <gtest/gtest.h>

#include <gtest/gtest.h>
#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include "core/workspace.hpp"
#include "core/model/forward.hpp"
#include <nlohmann/json.hpp>
#include <cmath>
#include "plot/render.hpp"
#include "figures/assets.hpp"
#include "core/tour/tour.hpp"
#include "figures/export.hpp"
#include "gui/views/tour_view.hpp"
#include "plot/draw.hpp"
#include "poslab_process.hpp"
#include "temp_folder.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include "app_support.hpp"

using namespace poslab;
using namespace poslab::app_test;
namespace fs = std::filesystem;

// --- Real model folders (written by tests/reference/make_model_reference.py) ------------------

namespace {

fs::path model_dir(const std::string& name) { return fs::path(POSLAB_MODEL_REFERENCE) / name; }

// The model's own forward pass in the core, which core_model_forward_test checks against NumPy.
ForwardResult core_forward(const std::string& model, const std::string& sentence, const PositionIntervention& v = {},
                           int layer = 0) {
  auto m = Checkpoint::open(model_dir(model));
  EXPECT_TRUE(m) << (m ? "" : m.error());
  auto ids = model_tokens(**m, sentence);
  EXPECT_TRUE(ids);
  ForwardOptions o;
  o.intervention = v;
  o.keep_layers = {layer};
  auto r = run_forward(**m, *ids, o);
  EXPECT_TRUE(r);
  return *r;
}

}  // namespace

TEST(CliModel, PredictPrintsTheTopTokensAndTheLossAsJson) {
  const auto r = run("predict --model " + model_dir("llama").string() + " --sentence 'The dog chased another dog' --top 3 --backend cpu");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto json = nlohmann::json::parse(r.output.substr(r.output.find('{')));
  const auto reference = nlohmann::json::parse(read_file(fs::path(POSLAB_MODEL_REFERENCE) / "llama.reference.json"));
  EXPECT_EQ(json["ids"], reference["texts"]["The dog chased another dog"]);  // BOS first, the model's own BPE
  EXPECT_EQ(json["tokens"][0], "<|begin_of_text|>");
  const ForwardResult core = core_forward("llama", "The dog chased another dog");
  EXPECT_NEAR(json["loss"].get<double>(), core.loss, 1e-9 * core.loss);
  EXPECT_NEAR(json["perplexity"].get<double>(), std::exp(core.loss), 1e-6 * std::exp(core.loss));
  ASSERT_EQ(json["top"].size(), json["ids"].size());
  for (std::size_t t = 0; t < json["top"].size(); ++t) {
    ASSERT_EQ(json["top"][t].size(), 3u);
    EXPECT_EQ(json["top"][t][0]["id"], core.top[t][0].id);
    EXPECT_GE(json["top"][t][0]["p"].get<double>(), json["top"][t][1]["p"].get<double>());
  }
  // The keys in the documented order.
  const std::string out = r.output.substr(r.output.find('{'));
  EXPECT_LT(out.find("\"ids\""), out.find("\"tokens\""));
  EXPECT_LT(out.find("\"loss\""), out.find("\"top\""));
}

TEST(CliModel, AttentionOfALayerIsTheModelsOwnOnTheGpuAndTheCpu) {
  const TempFolder dir("app");
  for (const char* backend : {"gpu", "cpu"}) {
    const fs::path csv = dir / (std::string("model-attention-") + backend + ".csv");
    const auto r = run("export attention --model " + model_dir("qwen2").string() + " --layer 1 --backend " + backend +
                       " --csv " + csv.string() + " --png " + (dir / "model-attention.png").string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const ForwardResult core = core_forward("qwen2", "The dog chased another dog", {}, 1);
    const auto cells = parse_attention_csv(read_file(csv));
    const LayerAttention& layer = *core.layer(1);
    const int T = static_cast<int>(core.tokens.size());
    ASSERT_EQ(cells.size(), layer.weights.size() * static_cast<std::size_t>(T * T));
    for (const auto& [key, value] : cells) EXPECT_NEAR(value.second, layer.weights[static_cast<std::size_t>(key[0])](key[1], key[2]), 1e-5);  // the GPU path of the earlier layers rounds differently
  }
  const auto png = read_png(dir / "model-attention.png");
  EXPECT_GT(distinct_colors(png), 50u);
}

TEST(CliModel, AChangeOfPositionsIsDrawnBesideTheUnchangedModel) {
  const TempFolder dir("app");
  const std::string llama = model_dir("llama").string();
  ASSERT_EQ(run("export attention --model " + llama + " --layer 1 --png " + (dir / "same.png").string()).exit_code, 0);
  struct Case {
    std::string option;
    PositionIntervention v;
  };
  PositionIntervention off, interleaved, base, linear;
  off.positions_off = true;
  interleaved.pairing = RopeStyle::Interleaved;
  base.rope_theta = 100.0;
  linear.scaling = RopeScaling{RopeScalingType::Linear, 4.0};
  for (const Case& c : {Case{"--encoding none", off}, Case{"--rope-style interleaved", interleaved}, Case{"--base 100", base},
                        Case{"--rope-scaling linear --factor 4", linear}}) {
    SCOPED_TRACE(c.option);
    const fs::path csv = dir / "changed.csv";
    const auto r = run("export attention --model " + llama + " --layer 1 " + c.option + " --csv " + csv.string() + " --png " +
                       (dir / "changed.png").string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_GT(read_png(dir / "changed.png").width, read_png(dir / "same.png").width * 3 / 2);  // two figures side by side
    const ForwardResult changed = core_forward("llama", "The dog chased another dog", c.v, 1);
    const ForwardResult same = core_forward("llama", "The dog chased another dog", {}, 1);
    double moved = 0.0;
    for (const auto& [key, value] : parse_attention_csv(read_file(csv))) {
      const auto h = static_cast<std::size_t>(key[0]);
      EXPECT_NEAR(value.second, changed.layer(1)->weights[h](key[1], key[2]), 1e-5);  // the GPU path of the earlier layers rounds differently
      moved = std::max(moved, static_cast<double>(std::abs(value.second - same.layer(1)->weights[h](key[1], key[2]))));
    }
    EXPECT_GT(moved, 1e-3);  // the change is visible in the weights
  }
}

TEST(CliModel, HeadsAndFrequencyUsageExport) {
  const TempFolder dir("app");
  auto r = run("export heads --model " + model_dir("llama").string() + " --layer 0 --png " + (dir / "heads.png").string() +
               " --csv " + (dir / "heads.csv").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto png = read_png(dir / "heads.png");
  EXPECT_GT(png.width, 8 * 120);  // eight thumbnails in a row
  const CsvTable heads = test_support::read_csv_file(dir / "heads.csv");
  EXPECT_EQ(heads.header, csv_line_fields("head,sink,mean_distance,previous_token,induction"));
  EXPECT_EQ(heads.rows.size(), 8u);

  r = run("export frequency-usage --model " + model_dir("qwen2").string() + " --layer 1 --csv " + (dir / "fu.csv").string() +
          " --png " + (dir / "fu.png").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const ForwardResult core = core_forward("qwen2", "The dog chased another dog", {}, 1);
  const CsvTable usage = test_support::read_csv_file(dir / "fu.csv");
  EXPECT_EQ(usage.header, csv_line_fields("head,pair,usage"));
  for (const auto& f : usage.rows) {
    ASSERT_EQ(f.size(), 3u) << test_support::csv_row_text(f);
    const float u = std::stof(f[2]);
    EXPECT_NEAR(u, core.layer(1)->frequency_usage(std::stoi(f[0]), std::stoi(f[1])), 1e-5f * u);
  }
  EXPECT_EQ(usage.rows.size(), 4u * 8u);  // 4 heads × 8 pairs of d_h 16
}

// StreamingLLM's attention sinks, every layer and head at once (issue 33's lens): each share is
// the mean over the queries of that head's weight on the first token, as the layer's own
// attention (kept alone, in the core) gives it.
TEST(CliModel, SinksExportEveryLayersWeightOnTheFirstToken) {
  const TempFolder dir("app");
  const std::string sentence = "The dog chased another dog";
  const auto r = run("export sinks --model " + model_dir("llama").string() + " --sentence '" + sentence + "' --csv " +
                     (dir / "sinks.csv").string() + " --png " + (dir / "sinks.png").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GT(read_png(dir / "sinks.png").width, 200);
  const CsvTable csv = test_support::read_csv_file(dir / "sinks.csv");
  EXPECT_EQ(csv.header, csv_line_fields("layer,head,sink"));
  std::map<std::pair<int, int>, float> shares;
  for (const auto& f : csv.rows) {
    ASSERT_EQ(f.size(), 3u) << test_support::csv_row_text(f);
    shares[{std::stoi(f[0]), std::stoi(f[1])}] = std::stof(f[2]);
  }
  auto model = Checkpoint::open(model_dir("llama"));
  ASSERT_TRUE(model);
  const TransformerConfig& c = (*model)->config();
  ASSERT_EQ(shares.size(), static_cast<std::size_t>(c.layers * c.heads));
  for (int l = 0; l < c.layers; ++l) {
    const ForwardResult f = core_forward("llama", sentence, {}, l);
    for (int h = 0; h < c.heads; ++h) {
      const Matrix& A = f.layer(l)->weights[static_cast<std::size_t>(h)];
      const float share = shares[{l, h}];
      EXPECT_NEAR(share, A.col(0).mean(), 1e-5) << "layer " << l << " head " << h;
    }
  }
}

TEST(CliModel, ModelErrorsAreClear) {
  const TempFolder dir("app");
  auto r = run("export attention --model " + model_dir("llama").string() + " --layer 7 --csv " + (dir / "x.csv").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("2 layers"), std::string::npos) << r.output;
  r = run("export heads --layer 0 --png " + (dir / "x.png").string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--model DIR"), std::string::npos) << r.output;
  r = run("export frequency-usage --model " + model_dir("gpt2").string() + " --layer 0 --csv " + (dir / "x.csv").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("learned positions"), std::string::npos) << r.output;
  r = run("predict --model " + model_dir("bad_shape").string() + " --sentence hi");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("k_proj"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "x.csv"));
}

// The Model tab under Xvfb: the model runs on its worker thread, and the screenshot (taken once
// the run is done) shows every head of the layer; the Attention tab then shows the model's own
// layer, not the embeddings with random projections.
TEST(GuiModel, TheModelTabShowsEveryHeadAndTheAttentionTabTheModelsLayer) {
  const TempFolder tmp("app");
  const fs::path dir = tmp / "gui-model";
  fs::create_directories(dir);
  const std::string llama = model_dir("llama").string();
  auto shoot = [&](const std::string& args, const fs::path& out) {
    const std::string command = "xvfb-run -a -s '-screen 0 1600x1000x24' " + std::string(POSLAB_BINARY) +
                                " --size 1280x800 --frames 6 --model " + llama + " " + args + " --screenshot " + out.string() + " 2>&1";
    return std::system(command.c_str());
  };
  ASSERT_EQ(shoot("--layer 1 --view heads", dir / "heads.png"), 0);
  const auto heads = read_png(dir / "heads.png");
  ASSERT_EQ(heads.width, 1280);
  // The small multiples: a white figure with eight viridis thumbnails in the upper right part.
  std::size_t white = 0, viridis = 0;
  for (int y = 200; y < 560; ++y)
    for (int x = 420; x < 1260; ++x) {
      const std::size_t i = (static_cast<std::size_t>(y) * 1280 + static_cast<std::size_t>(x)) * 4;
      const int r = static_cast<unsigned char>(heads.rgba[i]), g = static_cast<unsigned char>(heads.rgba[i + 1]),
                b = static_cast<unsigned char>(heads.rgba[i + 2]);
      white += r > 245 && g > 245 && b > 245;
      viridis += (r < 80 && b > 60 && b > g) || (g > 150 && b < 140 && g > b + 40);  // purple-blue or yellow-green cells
    }
  EXPECT_GT(white, 50000u);
  EXPECT_GT(viridis, 20000u);
  ASSERT_EQ(shoot("--layer 1 --view attention", dir / "model-layer.png"), 0);
  ASSERT_EQ(shoot("--view attention", dir / "embeddings.png"), 0);
  EXPECT_NE(read_png(dir / "model-layer.png").rgba, read_png(dir / "embeddings.png").rgba);
}

// Moving every position by K: RoPE's scores depend on m − n only, so a RoPE model's attention
// stays (up to rounding); GPT-2's learned table gives other vectors, and its attention moves.
TEST(CliModel, APositionShiftMovesLearnedPositionsButNotRope) {
  const TempFolder dir("app");
  auto max_change = [&](const std::string& model) {
    const fs::path a = dir / (model + "-same.csv"), b = dir / (model + "-shift.csv");
    EXPECT_EQ(run("export attention --backend cpu --model " + model_dir(model).string() + " --layer 1 --csv " + a.string()).exit_code, 0);
    EXPECT_EQ(run("export attention --backend cpu --model " + model_dir(model).string() + " --layer 1 --position-shift 40 --csv " +
                  b.string()).exit_code, 0);
    const auto x = parse_attention_csv(read_file(a)), y = parse_attention_csv(read_file(b));
    double worst = 0.0;
    for (const auto& [key, value] : x) worst = std::max(worst, static_cast<double>(std::abs(value.second - y.at(key).second)));
    return worst;
  };
  EXPECT_LT(max_change("qwen2"), 1e-4);
  EXPECT_GT(max_change("gpt2"), 1e-2);
}

// The matrix products run on the CPU's best instruction set, or a lower one POSLAB_ISA names: the
// predictions are the same and the loss differs only by rounding; `poslab info` names the set in use.
TEST(CliModel, EveryInstructionSetPredictsTheSameUpToRounding) {
  const std::string args = "predict --model " + model_dir("llama").string() + " --sentence 'The dog chased another dog' --top 3 --backend cpu";
  const auto best = run(args);
  ASSERT_EQ(best.exit_code, 0) << best.output;
  const auto reference = nlohmann::json::parse(best.output.substr(best.output.find('{')));
  for (const char* isa : {"baseline", "avx2"}) {
    const auto r = run(args, std::string("POSLAB_ISA=") + isa);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto json = nlohmann::json::parse(r.output.substr(r.output.find('{')));
    EXPECT_NEAR(json["loss"].get<double>(), reference["loss"].get<double>(), 1e-5 * reference["loss"].get<double>()) << isa;
    for (std::size_t t = 0; t < json["top"].size(); ++t) EXPECT_EQ(json["top"][t][0]["id"], reference["top"][t][0]["id"]) << isa;
  }
  const auto info = run("info", "POSLAB_ISA=baseline");
  EXPECT_NE(info.output.find("cpu         products on x86-64 (SSE2)"), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("bf16        BF16 activations multiplied as floats"), std::string::npos) << info.output;
  const auto wrong = run("info", "POSLAB_ISA=avx9");
  EXPECT_NE(wrong.output.find("POSLAB_ISA: unknown instruction set \"avx9\""), std::string::npos) << wrong.output;
}

// --- Memory: what a run is estimated to need, against what it takes --------------------------

namespace {

// The peak of a command's anonymous memory (RssAnon: the mapped weights are file pages and not
// counted), sampled every millisecond until the command ends, in bytes.
double peak_anonymous_bytes(const std::string& args) {
  // poslab itself, not a shell around it (whose memory is not the run's): the arguments split at
  // spaces, which these commands' arguments have none of.
  std::vector<std::string> words = {POSLAB_BINARY};
  std::istringstream split(args);
  for (std::string w; split >> w;) words.push_back(w);
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&quiet, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, POSLAB_BINARY, &quiet, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&quiet);
  if (spawned != 0) return -1.0;
  double peak = 0.0;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);)
      if (line.starts_with("RssAnon:")) peak = std::max(peak, 1024.0 * std::stod(line.substr(8)));
    usleep(1000);
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? peak : -1.0;
}

// What the command's refusal under a 1 MB limit says it would need ("would need 146 MB, more
// than …"); 0 when it runs within that.
double estimated_bytes(const std::string& args) {
  const RunResult r = run(args + " --memory-limit 1M");
  const auto at = r.output.find("would need ");
  if (at == std::string::npos) return r.exit_code == 0 ? 0.0 : -1.0;
  std::istringstream words(r.output.substr(at + 11));
  double number = 0.0;
  std::string unit;
  words >> number >> unit;
  if (unit.ends_with(',')) unit.pop_back();
  const std::map<std::string, double> units = {{"B", 1.0}, {"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}};
  return units.contains(unit) ? number * units.at(unit) : -1.0;
}

}  // namespace

// "Memory as the work needs it": for a 2,048-token sentence, what the forward pass is estimated
// to take beyond a 4-token one, against what the process takes beyond it (the same command on the
// short sentence: the libraries, OpenGL, the model's small tables), within 1.5× either way. The
// shipped copy model has 4 heads, so one layer's T × T matrices are 67 MB each.
TEST(CliModel, MemoryEstimatesMatchWhatARunTakes) {
  const fs::path model = fs::path(POSLAB_BINARY).parent_path() / "assets" / "trained" / "copy-rope";
  const TempFolder dir("memory");
  std::string long_sentence;
  for (int i = 0; i < 2048; ++i) long_sentence += "abcdefghijklmnop"[i % 16];
  const std::string csv = (dir.path() / "out.csv").string(), png = (dir.path() / "out.png").string();
  struct Case {
    std::string command;  // SENTENCE stands for the sentence
    double slack;         // bytes measured beyond 1.5× that are not the run's (allocator and stack noise)
  };
  const Case cases[] = {
      {"predict --model " + model.string() + " --sentence SENTENCE --top 1", 16e6},
      {"export heads --model " + model.string() + " --layer 0 --sentence SENTENCE --csv " + csv, 8e6},
      {"export attention --model " + model.string() + " --layer 1 --sentence SENTENCE --png " + png, 8e6},
  };
  const auto with = [](std::string args, const std::string& sentence) { return args.replace(args.find("SENTENCE"), 8, sentence); };
  for (const Case& c : cases) {
    const double estimate = estimated_bytes(with(c.command, long_sentence)) - estimated_bytes(with(c.command, "abcd"));
    const double measured = peak_anonymous_bytes(with(c.command, long_sentence)) - peak_anonymous_bytes(with(c.command, "abcd"));
    ASSERT_GT(estimate, 0.0) << c.command;
    EXPECT_LE(measured, 1.5 * estimate + c.slack) << c.command << ": estimated " << estimate / 1e6 << " MB, took " << measured / 1e6 << " MB";
    EXPECT_GE(measured, estimate / 1.5 - c.slack) << c.command << ": estimated " << estimate / 1e6 << " MB, took " << measured / 1e6 << " MB";
  }
  // predict keeps no layer's matrices: less than one head's T × T scores beyond the short run.
  EXPECT_LT(estimated_bytes(with(cases[0].command, long_sentence)), 2048.0 * 2048.0 * 4.0);
}
