// The decoder families on the command line: `info --model` states each folder's positional design,
// every intervention of the families' table changes the model's run (and changes it exactly as the
// core's forward pass, which core_model_forward_test checks against the independent reference),
// and one that does not apply to the model is refused naming what does.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "app_support.hpp"
#include "poslab_process.hpp"

using namespace poslab::app_test;
namespace fs = std::filesystem;

namespace {

std::string model(const std::string& name) { return (fs::path(POSLAB_MODEL_REFERENCE) / name).string(); }

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
