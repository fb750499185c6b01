// The decoder families on the command line: `info --model` states each folder's positional design,
// every intervention of the families' table changes the model's run (and changes it exactly as the
// core's forward pass, which core_model_forward_test checks against the independent reference),
// and one that does not apply to the model is refused naming what does.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>
#include <unistd.h>

#include "app_support.hpp"
#include "poslab_process.hpp"

using namespace poslab::app_test;
namespace fs = std::filesystem;

namespace {

std::string model(const std::string& name) { return (fs::path(POSLAB_MODEL_REFERENCE) / name).string(); }

void write_file(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

// predict's loss for a folder with extra options (exit 0 expected).
double loss_with(const std::string& folder, const std::string& options) {
  const auto r = run("predict --backend cpu --model " + model(folder) + " --sentence 'the cat sat on the mat and the dog sat' " + options);
  EXPECT_EQ(r.exit_code, 0) << options << ": " << r.output;
  if (r.exit_code != 0) return 0.0;
  return nlohmann::json::parse(r.output.substr(r.output.find('{')))["loss"].get<double>();
}

}  // namespace

TEST(CliFamilies, InfoStatesEachFoldersPositionalDesign) {
  const struct {
    const char* folder;
    const char* design;
  } cases[] = {
      {"gemma3", "Gemma 3: layers 0–1, 3–4 local: RoPE base 10000, window 4; layers 2, 5 global: RoPE base 1e+06, linear ×8"},
      {"smollm3", "SmolLM3: layers 0–2: RoPE base"},
      {"neox", "on 4 of 16 dimensions"},
      {"gptj", "GPT-J: RoPE base 10000 in every layer · interleaved pairs"},
      {"bloom", "BLOOM: ALiBi (a slope per head) in every layer"},
      {"opt", "OPT: a learned table of"},
      {"phi3", "LongRoPE (short factors up to 8 tokens, long beyond"},
      {"mistral", "Mistral: RoPE base"},
      {"gpt_oss", "GPT-OSS: layer 0 local: RoPE base 150000, yarn ×32 over 256, window 4; layer 1 global: RoPE base 150000, yarn ×32 over 256"},
      {"gpt_oss_bf16", "· a learned sink per head · a mixture of 4 experts, each token routed to 2 (weights: the softmax of the chosen)"},
      {"llama4", "Llama 4 (text): layers 0–2: RoPE base 500000, llama3 ×8, chunks of 4, q and k L2-normed; layer 3: no positions (NoPE), "
                 "queries × (1 + 0.5·ln(floor((p + 1) / 4) + 1)) · interleaved pairs"},
      {"llama4_mm", "Llama 4 Scout / Maverick: layers 0–2"},
      {"deepseek_v3", "DeepSeek-V3: RoPE base 10000, yarn ×4 over 256 in every layer · interleaved pairs on 8 of 24 dimensions · latent "
                      "attention: positions only on that slice, whose key is one for every head (decoupled RoPE); kv rank 32, q rank 48; "
                      "softmax scale × 1.29648 (YaRN's mscale²)"},
      {"deepseek_v2_lite", "(softmax × 2; 2 shared) in layers 1–2"},
      {"gemma4", "Gemma 4: layers 0–1 local: RoPE base 10000, window 3; layer 2 global: RoPE base 1e+06, proportional: 2 of 8 pairs turn, "
                 "heads of 16; layer 3 local: RoPE base 10000, keys and values of layer 1, window 3; layer 4 global: RoPE base 1e+06, "
                 "proportional: 2 of 8 pairs turn, heads of 16, keys and values of layer 2 · rotate-half pairs · per-layer inputs, 4 wide"},
      {"gemma4_moe", "heads of 16, 1 key/value head, values = keys · rotate-half pairs · a mixture of 4 experts, each token routed to 2 "
                     "(weights renormalized, × each expert's scale; beside the dense MLP) in every layer"},
      {"gemma4_mm", "Gemma 4 (multimodal): layers 0–1 local"},
  };
  for (const auto& c : cases) {
    const auto r = run("info --model " + model(c.folder));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto at = r.output.find("design      ");
    ASSERT_NE(at, std::string::npos) << c.folder << ":\n" << r.output;
    const std::string line = r.output.substr(at, r.output.find('\n', at) - at);
    EXPECT_NE(line.find(c.design), std::string::npos) << c.folder << ": " << line;
  }
}

TEST(CliFamilies, EveryInterventionChangesTheRunOfTheModelItAppliesTo) {
  const struct {
    const char* folder;
    const char* options;
  } cases[] = {
      {"mistral", "--window none"},      {"mistral", "--window 2"},          {"gemma3", "--local-base 1000"},
      {"gemma3", "--base 10000"},        {"gemma2", "--window none"},        {"phi3", "--rope-factors short"},
      {"bloom", "--alibi-scale 0.5"},    {"bloom", "--no-positions"},        {"opt", "--position-shift 3"},
      {"opt", "--no-positions"},         {"neox", "--rotary-dim 16"},        {"gptj", "--rope-style half"},
      {"smollm3", "--no-positions"},     {"qwen3", "--base 10000"},         {"gpt_oss", "--sinks off"},
      {"gpt_oss", "--window none"},      {"gpt_oss", "--no-positions"},      {"llama4", "--chunk none"},
      {"llama4", "--chunk 2"},           {"llama4", "--no-positions"},       {"llama4_mm", "--chunk 3"},
      {"deepseek_v3", "--rope-style half"}, {"deepseek_v3", "--no-positions"}, {"deepseek_v2_lite", "--base 500"},
      {"gemma4", "--rotary-dim 8"},      {"gemma4", "--local-base 1000"},    {"gemma4", "--window none"},
      {"gemma4", "--no-positions"},      {"gemma4_moe", "--base 10000"},     {"gemma4_mm", "--rotary-dim 16"},
  };
  std::map<std::string, double> unchanged;  // each folder's own run once
  for (const auto& c : cases) {
    if (!unchanged.count(c.folder)) unchanged[c.folder] = loss_with(c.folder, "");
    const double changed = loss_with(c.folder, c.options);
    EXPECT_GT(std::abs(changed - unchanged[c.folder]), 1e-6 * unchanged[c.folder]) << c.folder << " " << c.options;
  }
  // The model's own setting, said explicitly, changes nothing.
  EXPECT_DOUBLE_EQ(loss_with("phi3", "--rope-factors long"), loss_with("phi3", ""));
  EXPECT_DOUBLE_EQ(loss_with("gptj", "--rope-style interleaved"), loss_with("gptj", ""));
  EXPECT_DOUBLE_EQ(loss_with("gpt_oss", "--sinks on"), loss_with("gpt_oss", ""));
  EXPECT_DOUBLE_EQ(loss_with("llama4", "--chunk 4"), loss_with("llama4", "--chunk model"));
  EXPECT_DOUBLE_EQ(loss_with("gemma4", "--rotary-dim 4"), loss_with("gemma4", "")) << "4 of the full layers' 16 dimensions: its own";
}

// Gemma 4's full layers have heads twice as wide as its sliding ones and scores unscaled: the
// shaders, which take the head width from the input, give the CPU's loss.
TEST(CliFamilies, GemmaFoursLayerShapesRunTheSameOnTheShaders) {
  for (const char* folder : {"gemma4", "gemma4_moe"}) {
    const double cpu = loss_with(folder, "");
    const auto r = run(std::string("predict --backend gpu --model ") + model(folder) + " --sentence 'the cat sat on the mat and the dog sat'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const double gpu = nlohmann::json::parse(r.output.substr(r.output.find('{')))["loss"].get<double>();
    EXPECT_NEAR(gpu, cpu, 1e-5 * cpu) << folder;
  }
}

// DeepSeek's latent attention: in the CSV every seen cell's score is its content part plus its
// position part; without positions the position part is what the unrotated slices give.
TEST(CliFamilies, LatentAttentionSplitsEveryScoreIntoContentAndPosition) {
  const TempFolder dir("family-mla");
  const auto r = run("export attention --backend cpu --model " + model("deepseek_v3") + " --layer 2 --sentence 'the cat sat on the mat' --csv " +
                     (dir / "a.csv").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const CsvTable csv = poslab::test_support::read_csv_file(dir / "a.csv");
  EXPECT_EQ(csv.header, poslab::csv_line_fields("head,query,key,query_token,key_token,score,weight,score_content,score_position"));
  int seen = 0;
  for (const auto& f : csv.rows) {
    const std::string line = poslab::test_support::csv_row_text(f);
    const std::size_t n = f.size();
    if (f[n - 4] == "-inf") continue;  // a masked cell: every part −∞ too
    EXPECT_NEAR(std::stod(f[n - 2]) + std::stod(f[n - 1]), std::stod(f[n - 4]), 1e-5 * (1.0 + std::abs(std::stod(f[n - 4])))) << line;
    ++seen;
  }
  EXPECT_GT(seen, 20);
}

// GPT-OSS's attention as Hugging Face returns it: a row's weights and its `sink` share sum to one;
// with the sinks removed a row's weights alone do, and the column is gone.
TEST(CliFamilies, LearnedSinksTakeTheirShareOfEveryRowInTheCsv) {
  const TempFolder dir("family-sinks");
  for (const char* sinks : {"on", "off"}) {
    const auto r = run("export attention --backend cpu --model " + model("gpt_oss") + " --layer 1 --sentence 'the cat sat on the mat' --sinks " +
                       sinks + " --csv " + (dir / "a.csv").string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const CsvTable csv = poslab::test_support::read_csv_file(dir / "a.csv");
    const bool on = std::string(sinks) == "on";
    EXPECT_EQ(csv.header, poslab::csv_line_fields(std::string("head,query,key,query_token,key_token,score,weight") + (on ? ",sink" : "")));
    std::map<std::pair<int, int>, double> row_sum, sink;
    for (const auto& f : csv.rows) {
      const auto key = std::make_pair(std::stoi(f[0]), std::stoi(f[1]));
      row_sum[key] += std::stod(f[f.size() - (on ? 2 : 1)]);
      if (on) sink[key] = std::stod(f.back());
    }
    ASSERT_FALSE(row_sum.empty());
    double least_sink = 1.0;
    for (const auto& [key, sum] : row_sum) {
      EXPECT_NEAR(sum + (on ? sink[key] : 0.0), 1.0, 1e-5) << "head " << key.first << " query " << key.second;
      if (on) least_sink = std::min(least_sink, sink[key]);
    }
    if (on) EXPECT_GT(least_sink, 0.0) << "every row gives its sink something";
  }
}

// --streaming K,W: in the attention CSV exactly the first K and the last W keys of each query
// keep weight; the loss moves, and the heads figure names the window alone's loss beside it.
TEST(CliFamilies, StreamingLeavesExactlyTheFirstKAndTheLastWKeys) {
  const TempFolder dir("family-streaming");
  const std::string sentence = " --sentence 'the cat sat on the mat and the dog sat on the log'";
  const auto r = run("export attention --backend cpu --model " + model("llama") + " --layer 1 --streaming 2,3" + sentence + " --csv " +
                     (dir / "a.csv").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  int cells = 0;
  for (const auto& f : poslab::test_support::read_csv_file(dir / "a.csv").rows) {
    const std::string line = poslab::test_support::csv_row_text(f);
    const int i = std::stoi(f[1]), j = std::stoi(f[2]);
    const double weight = std::stod(f[6]);
    const bool seen = j <= i && (j < 2 || i - j < 3);
    EXPECT_EQ(weight > 0.0, seen) << line;
    if (!seen) EXPECT_EQ(weight, 0.0) << line;
    ++cells;
  }
  EXPECT_GT(cells, 100);
  EXPECT_GT(std::abs(loss_with("llama", "--streaming 2,3") - loss_with("llama", "")), 1e-6);
  EXPECT_DOUBLE_EQ(loss_with("llama", "--streaming 0,64"), loss_with("llama", "")) << "a window longer than the sentence changes nothing";
  const auto heads = run("export heads --backend cpu --model " + model("llama") + " --layer 1 --streaming 2,3" + sentence + " --csv " +
                         (dir / "h.csv").string() + " --svg " + (dir / "h.svg").string());
  ASSERT_EQ(heads.exit_code, 0) << heads.output;
  EXPECT_NE(read_file(dir / "h.svg").find("the last 3 alone: loss"), std::string::npos);
}

// The score-by-pair lens: in every RoPE family, the parts of a seen cell (its pairs and the
// unrotated rest) sum to the score export attention writes for it, and a masked cell has none.
TEST(CliFamilies, PairScoresSumToEachCellsScoreInEveryRopeFamily) {
  const TempFolder dir("family-pairs");
  const std::string sentence = " --sentence 'the cat sat on the mat and the dog sat on the log'";
  const struct {
    const char* folder;
    int layer, head;
    bool rest;  // dimensions RoPE does not rotate: GPT-NeoX's partial rotary, DeepSeek's content part
  } cases[] = {{"llama", 1, 2, false}, {"neox", 1, 0, true}, {"deepseek_v3", 2, 1, true}, {"gemma4", 2, 3, false},
               {"gpt_oss", 1, 1, false}, {"llama4", 3, 0, false}, {"mistral", 1, 1, false}, {"qwen2_5_vl", 1, 0, false}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.folder);
    const std::string common = " --backend cpu --model " + model(c.folder) + " --layer " + std::to_string(c.layer) + sentence;
    const auto pairs = run("export pair-scores" + common + " --head " + std::to_string(c.head) + " --csv " + (dir / "p.csv").string());
    ASSERT_EQ(pairs.exit_code, 0) << pairs.output;
    const auto attention = run("export attention" + common + " --csv " + (dir / "a.csv").string());
    ASSERT_EQ(attention.exit_code, 0) << attention.output;
    const CsvTable p = poslab::test_support::read_csv_file(dir / "p.csv"), a = poslab::test_support::read_csv_file(dir / "a.csv");
    EXPECT_EQ(p.header, poslab::csv_line_fields("query,key,pair,theta,contribution"));
    std::map<std::pair<int, int>, double> sum;
    bool rest = false;
    for (const auto& f : p.rows) {
      sum[{std::stoi(f[0]), std::stoi(f[1])}] += std::stod(f[4]);
      rest = rest || f[2] == "-1";
    }
    EXPECT_EQ(rest, c.rest);
    int seen = 0;
    for (const auto& f : a.rows) {
      const std::string line = poslab::test_support::csv_row_text(f);
      if (std::stoi(f[0]) != c.head) continue;
      const std::pair<int, int> cell{std::stoi(f[1]), std::stoi(f[2])};
      const std::string score = f[f.size() - (c.folder == std::string("gpt_oss") ? 3 : c.folder == std::string("deepseek_v3") ? 4 : 2)];
      if (score == "-inf") {
        EXPECT_EQ(sum.count(cell), 0u) << "a masked cell has no parts";
        continue;
      }
      ASSERT_EQ(sum.count(cell), 1u) << line;
      EXPECT_NEAR(sum[cell], std::stod(score), 1e-5 * (1.0 + std::abs(std::stod(score)))) << line;
      ++seen;
    }
    EXPECT_GT(seen, 20);
  }
  // One query's row only; a query past the sentence, the mean of the heads and a model without RoPE are refused.
  const std::string llama = " --backend cpu --model " + model("llama") + " --layer 1" + sentence;
  const auto one = run("export pair-scores" + llama + " --query 5 --csv " + (dir / "q.csv").string());
  ASSERT_EQ(one.exit_code, 0) << one.output;
  for (const auto& f : poslab::test_support::read_csv_file(dir / "q.csv").rows) EXPECT_EQ(f[0], "5") << poslab::test_support::csv_row_text(f);
  EXPECT_EQ(run("export pair-scores" + llama + " --query 99 --csv " + (dir / "x.csv").string()).exit_code, 1);
  EXPECT_EQ(run("export pair-scores" + llama + " --head mean --csv " + (dir / "x.csv").string()).exit_code, 2);
  const auto bloom = run("export pair-scores --model " + model("bloom") + " --layer 0" + sentence + " --csv " + (dir / "x.csv").string());
  EXPECT_EQ(bloom.exit_code, 2) << bloom.output;
  EXPECT_NE(bloom.output.find("pair-scores needs a RoPE model"), std::string::npos) << bloom.output;
  EXPECT_FALSE(fs::exists(dir / "x.csv")) << "nothing written for a refused request";
}

// Haviv et al.'s probe: where the sinusoid is added to the embeddings, the residual stream holds
// each token's position well enough for a linear read on sentences the probe was not fitted on;
// with the positions off, nothing but the causal mask is left and the read fails. One row per
// layer; too few sentences are refused.
TEST(CliFamilies, PositionProbeReadsPositionsWhereTheModelPutsThem) {
  const TempFolder dir("family-probe");
  const auto read_r2 = [&](const std::string& options) {
    const auto r = run("export position-probe --backend cpu --model " + model("poslab_sinusoidal") + " " + options + " --csv " + (dir / "p.csv").string() +
                       " --png " + (dir / "p.png").string());
    EXPECT_EQ(r.exit_code, 0) << r.output;
    const CsvTable csv = poslab::test_support::read_csv_file(dir / "p.csv");
    EXPECT_EQ(csv.header, poslab::csv_line_fields("layer,r2,mean_abs_error"));
    std::vector<double> r2;
    for (const auto& f : csv.rows) {
      EXPECT_EQ(std::stoi(f[0]), static_cast<int>(r2.size()));
      EXPECT_GE(std::stod(f[2]), 0.0);
      r2.push_back(std::stod(f[1]));
    }
    return r2;
  };
  const std::vector<double> with = read_r2("");
  ASSERT_EQ(with.size(), 2u) << "one row per layer";
  EXPECT_GT(with[0], 0.5) << "the sinusoid is in the residual stream";
  const std::vector<double> without = read_r2("--no-positions");
  ASSERT_EQ(without.size(), 2u);
  EXPECT_LT(without[0], 0.1);
  write_file(dir / "three.txt", "one sentence\ntwo sentences\n\nthree\n");
  const auto few = run("export position-probe --model " + model("gpt2") + " --text " + (dir / "three.txt").string() + " --csv " + (dir / "x.csv").string());
  EXPECT_EQ(few.exit_code, 1) << few.output;
  EXPECT_NE(few.output.find("at least 4"), std::string::npos) << few.output;
  EXPECT_FALSE(fs::exists(dir / "x.csv"));
}

TEST(CliFamilies, AnInterventionThatDoesNotApplyIsRefusedNamingWhatDoes) {
  const struct {
    const char* folder;
    const char* options;
    const char* names;
  } cases[] = {
      {"llama", "--window 4", "--window changes sliding windows"},
      {"qwen3", "--alibi-scale 2", "--alibi-scale scales ALiBi's slopes"},
      {"mistral", "--local-base 1000", "--local-base sets the base of the local (sliding) layers of Gemma 3 and 4"},
      {"gemma3", "--rope-factors long", "--rope-factors chooses LongRoPE's factors"},
      {"bloom", "--rotary-dim 8", "--rotary-dim sets how many dimensions RoPE rotates"},
      {"bloom", "--base 500", "--base changes RoPE's base"},
      {"llama", "--sinks off", "--sinks off removes learned attention sinks (GPT-OSS)"},
      {"gpt_oss", "--chunk 4", "--chunk changes chunked attention (Llama 4)"},
      {"bert", "--streaming 1,2", "--streaming keeps a causal decoder's first and last tokens"},
  };
  for (const auto& c : cases) {
    const auto r = run("predict --backend cpu --model " + model(c.folder) + " --sentence 'the cat' " + c.options);
    EXPECT_EQ(r.exit_code, 2) << c.folder << " " << c.options << ": " << r.output;
    EXPECT_NE(r.output.find(c.names), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("what applies is"), std::string::npos) << r.output;
  }
  const auto bloom = run("predict --model " + model("bloom") + " --sentence 'the cat' --window 3");
  EXPECT_NE(bloom.output.find("--alibi-scale"), std::string::npos) << "BLOOM's own option is named: " << bloom.output;
}

// transformers 5's config.json form: the base it gives is the one the model runs with, and info
// says where each value came from; a form that disagrees with itself is refused naming both keys.
TEST(CliCheckpoints, AV5ConfigRunsWithItsOwnBaseAndInfoSaysWhereItCameFrom) {
  const auto info = run("info --model " + model("llama_v5"));
  ASSERT_EQ(info.exit_code, 0) << info.output;
  EXPECT_NE(info.output.find("rope from   base 100 from rope_parameters.rope_theta"), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("RoPE base 100 in every layer"), std::string::npos) << info.output;
  const auto gemma = run("info --model " + model("gemma3_v5"));
  EXPECT_NE(gemma.output.find("local base 500 from rope_parameters.sliding_attention.rope_theta"), std::string::npos) << gemma.output;
  // The same folder with the old key beside the new one, disagreeing.
  const TempFolder tmp("family-v5");
  const fs::path dir = tmp / "llama_v5";
  fs::copy(model("llama_v5"), dir);
  auto config = nlohmann::json::parse(read_file(dir / "config.json"));
  config["rope_theta"] = 10000.0;
  write_file(dir / "config.json", config.dump());
  const auto refused = run("predict --backend cpu --model " + dir.string() + " --sentence 'the cat'");
  EXPECT_EQ(refused.exit_code, 1) << refused.output;
  EXPECT_NE(refused.output.find("rope_parameters.rope_theta (100) and rope_theta (10000) disagree"), std::string::npos) << refused.output;
  config.erase("rope_theta");
  config["rope_parameters"] = {{"rope_type", "proportional"}, {"rope_theta", 100.0}, {"partial_rotary_factor", 0.25}};
  write_file(dir / "config.json", config.dump());
  // Gemma 4's proportional RoPE (a share of the pairs turning over the whole head) in a Llama: refused by name.
  const auto unknown = run("info --model " + dir.string());
  EXPECT_NE(unknown.output.find("rope_type \"proportional\" with a partial_rotary_factor below 1"), std::string::npos) << unknown.output;
}

TEST(CliCheckpoints, AMixtureOfExpertsSaysWhichExpertsEachPositionWasRoutedTo) {
  const auto r = run("predict --backend cpu --model " + model("qwen3_moe") + " --sentence 'the cat sat on the mat'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output.substr(r.output.find('{')));
  ASSERT_TRUE(j.contains("experts"));
  ASSERT_EQ(j["experts"].size(), 3u);  // one list per layer
  EXPECT_TRUE(j["experts"][1].empty()) << "layer 1 is in mlp_only_layers: dense";
  ASSERT_EQ(j["experts"][0].size(), j["ids"].size());
  for (const auto& position : j["experts"][0]) {
    ASSERT_EQ(position.size(), 2u);  // num_experts_per_tok
    const double sum = position[0][1].get<double>() + position[1][1].get<double>();
    EXPECT_NEAR(sum, 1.0, 1e-9) << "norm_topk_prob renormalizes the chosen weights";
    EXPECT_GE(position[0][1].get<double>(), position[1][1].get<double>());
  }
  const auto dense = run("predict --backend cpu --model " + model("llama") + " --sentence 'the cat'");
  EXPECT_EQ(dense.output.find("\"experts\""), std::string::npos) << "a dense model has no experts key";
  const auto info = run("info --model " + model("mixtral_window"));
  EXPECT_NE(info.output.find("a mixture of 4 experts, each token routed to 2 (weights renormalized) in every layer"), std::string::npos)
      << info.output;
}

TEST(CliCheckpoints, TheMropeViewDrawsThePairsAndTheIdsOfALayout) {
  const TempFolder dir("family-mrope");
  const auto r = run("export mrope --model " + model("qwen2_5_vl") + " --layout text:2,image:4x6,text:1 --csv " + (dir / "m.csv").string() +
                     " --png " + (dir / "m.png").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // By hand (get_rope_index): text 0, 1; the image's 2 × 3 merged grid from 2, t fixed; the next
  // text after the largest id, 2 + max(2, 3) = 5.
  EXPECT_EQ(read_file(dir / "m.csv"),
            "index,kind,t,h,w\n0,text,0,0,0\n1,text,1,1,1\n2,image,2,2,2\n3,image,2,2,3\n4,image,2,2,4\n5,image,2,3,2\n6,image,2,3,3\n"
            "7,image,2,3,4\n8,text,5,5,5\n");
  EXPECT_TRUE(fs::file_size(dir / "m.png") > 1000);
  const auto flat = run("export mrope --model " + model("llama") + " --csv " + (dir / "x.csv").string());
  EXPECT_EQ(flat.exit_code, 2) << flat.output;
  EXPECT_NE(flat.output.find("mrope needs a model with M-RoPE"), std::string::npos) << flat.output;
  EXPECT_FALSE(fs::exists(dir / "x.csv"));
  const auto odd = run("export mrope --model " + model("qwen3_vl") + " --layout text:2,image:3x4 --csv " + (dir / "y.csv").string());
  EXPECT_EQ(odd.exit_code, 2) << odd.output;
  EXPECT_NE(odd.output.find("multiple of the spatial merge 2"), std::string::npos) << odd.output;
}
