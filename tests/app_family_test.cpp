// The decoder families on the command line: `info --model` states each folder's positional design,
// every intervention of the families' table changes the model's run (and changes it exactly as the
// core's forward pass, which core_model_forward_test checks against the independent reference),
// and one that does not apply to the model is refused naming what does.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <fstream>
#include <string>
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
      {"smollm3", "--no-positions"},     {"qwen3", "--base 10000"},
  };
  for (const auto& c : cases) {
    const double unchanged = loss_with(c.folder, ""), changed = loss_with(c.folder, c.options);
    EXPECT_GT(std::abs(changed - unchanged), 1e-6 * unchanged) << c.folder << " " << c.options;
  }
  // The model's own setting, said explicitly, changes nothing.
  EXPECT_DOUBLE_EQ(loss_with("phi3", "--rope-factors long"), loss_with("phi3", ""));
  EXPECT_DOUBLE_EQ(loss_with("gptj", "--rope-style interleaved"), loss_with("gptj", ""));
}

TEST(CliFamilies, AnInterventionThatDoesNotApplyIsRefusedNamingWhatDoes) {
  const struct {
    const char* folder;
    const char* options;
    const char* names;
  } cases[] = {
      {"llama", "--window 4", "--window changes sliding windows"},
      {"qwen3", "--alibi-scale 2", "--alibi-scale scales ALiBi's slopes"},
      {"mistral", "--local-base 1000", "--local-base sets the base of Gemma 3's local layers"},
      {"gemma3", "--rope-factors long", "--rope-factors chooses LongRoPE's factors"},
      {"bloom", "--rotary-dim 8", "--rotary-dim sets how many dimensions RoPE rotates"},
      {"bloom", "--base 500", "--base changes RoPE's base"},
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
  const fs::path dir = fs::temp_directory_path() / ("poslab-v5-" + std::to_string(::getpid()));
  fs::remove_all(dir);
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
  const auto unknown = run("info --model " + dir.string());
  EXPECT_NE(unknown.output.find("rope_type \"proportional\" is not supported"), std::string::npos) << unknown.output;
  fs::remove_all(dir);
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
  const fs::path dir = fs::temp_directory_path() / ("poslab-mrope-" + std::to_string(::getpid()));
  fs::create_directories(dir);
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
  fs::remove_all(dir);
}
