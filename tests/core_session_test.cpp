// Parser test: also built alone and run under ASan and UBSan (parser_tests in tests/CMakeLists.txt).
// Session files: a round trip keeps every choice; bad files change nothing.
#include <gtest/gtest.h>

#include <set>

#include "core/model/model_config.hpp"
#include "core/options.hpp"
#include "core/session.hpp"

#include <nlohmann/json.hpp>

using namespace poslab;

TEST(Session, EveryStateOptionIsSaved) {
  std::set<std::string> saved;
  for (const auto& [name, value] : state_to_options(State{})) saved.insert(name);
  saved.insert("--grid");          // saved when a grid is set
  saved.insert("--model-config");  // an action: its effect is saved as base and scaling
  saved.insert("--model");         // an action: saved as --embeddings DIR and the config it applied
  saved.insert("--patch-x");       // the halves of --patch, which is saved
  saved.insert("--patch-y");
  saved.insert("--no-positions");  // a shorthand: saved as the encoding and the bias it set
  for (const auto& option : state_options()) EXPECT_TRUE(saved.contains(std::string(option.name))) << option.name;
}

TEST(Session, RoundTripKeepsEveryChoice) {
  State s;
  s.embeddings_path = "/data/glove.txt";
  s.model.sentence = "May the force be with you.";
  s.model.encoding = EncodingKind::Binary;
  s.model.binary_values = BinaryValues::PlusMinusOne;
  s.model.rope_style = RopeStyle::Half;
  s.model.base = 500000.0;
  s.model.rotary_dim = 8;
  s.model.rope_fraction = 0.25;
  s.model.scaling = RopeScaling{RopeScalingType::Llama3, 32.0, 8192, 1.0, 4.0, 32.0, 1.0};
  s.model.grid_width = 14;
  s.model.grid_height = 3;
  s.model.rope_2d = Rope2d::Mixed;
  s.model.cls = true;
  s.model.bias = BiasKind::T5;
  s.model.buckets = 16;
  s.model.heads = 4;
  s.model.kv_heads = 2;
  s.model.projection = ProjectionKind::Identity;
  s.model.sigma = 0.037;
  s.model.seed = 12345;
  s.model.causal = true;
  s.model.pad_to = 12;
  s.view.head = 3;
  s.view.value = HeatmapValue::Scores;
  s.backend = Backend::Cpu;
  s.check_against_cpu = false;
  auto loaded = parse_session(session_json(s), "s.json");
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_TRUE(loaded->state == s);
  EXPECT_TRUE(loaded->unknown_keys.empty());
}

TEST(Session, MissingKeysTakeDefaultsAndUnknownKeysAreReported) {
  auto loaded = parse_session(R"({"poslab_session": 1, "theme": "dark",
                                  "state": {"heads": 4, "colour": "red"}})", "s.json");
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  State expected;
  expected.model.heads = 4;
  EXPECT_TRUE(loaded->state == expected);
  EXPECT_EQ(loaded->unknown_keys, (std::vector<std::string>{"theme", "state.colour"}));
}

TEST(Session, WrongTypesAndValuesAreClearErrors) {
  struct Case { const char* json; const char* message; };
  for (const Case& c : {Case{R"({"poslab_session": 1, "state": {"heads": "four"}})", "\"heads\" must be a number"},
                        Case{R"({"poslab_session": 1, "state": {"causal": 1}})", "\"causal\" must be true or false"},
                        Case{R"({"poslab_session": 1, "state": {"encoding": "alibi"}})", "--encoding expects one of"},
                        Case{R"({"poslab_session": 1, "state": {"sentence": 3}})", "\"sentence\" must be a string"},
                        Case{R"({"poslab_session": 99})", "newer PosLab"},
                        Case{R"({"state": {}})", "not a PosLab session"},
                        Case{"{oops", "not valid JSON"}}) {
    auto loaded = parse_session(c.json, "s.json");
    ASSERT_FALSE(loaded.ok()) << c.json;
    EXPECT_NE(loaded.error().find(c.message), std::string::npos) << loaded.error();
  }
}

TEST(Session, ANumberTooLargeForADoubleIsAnError) {
  // Found by the fuzzer: nlohmann throws out_of_range, not parse_error, for 4E444.
  auto s = parse_session(R"({"poslab_session": 1, "--base": 4E444})", "big.json");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("big.json"), std::string::npos);
  ModelSettings m;
  EXPECT_FALSE(apply_model_config(m, R"({"rope_theta": 4E444})", "config.json").ok());
  EXPECT_EQ(m.base, ModelSettings{}.base);
}

// A broken file's message says where and what, in words: not the JSON library's exception name.
TEST(Session, ABrokenFileSaysWhereWithoutTheLibrarysJargon) {
  auto s = parse_session("{\n  \"poslab_session\": 1,\n  \"state\": {\n}", "broken.json");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().find("[json.exception"), std::string::npos) << s.error();
  EXPECT_NE(s.error().find("broken.json: not valid JSON: line 4"), std::string::npos) << s.error();
}

// Issue 36 §6: sessions travel. The files a session reads are stored relative to the session
// file, so that the session and its files can move together; a model in Hugging Face's cache is
// stored by its Hub name and commit, which reopens it on any machine.
TEST(Session, PathsAreStoredRelativeToTheSessionFileAndReadBackFromIt) {
  State s;
  s.embeddings_path = "/data/lab/models/tiny";
  s.vocab_path = "/data/lab/vocab.txt";
  const std::string json = session_json(s, "/data/lab/sessions/s.json");
  const auto doc = nlohmann::json::parse(json);
  EXPECT_EQ(doc["state"]["embeddings"], "../models/tiny");
  EXPECT_EQ(doc["state"]["vocab"], "../vocab.txt");
  // Read from the session's folder, wherever the working folder is.
  auto loaded = parse_session(json, "s.json", "/data/lab/sessions");
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(loaded->state.embeddings_path, "/data/lab/models/tiny");
  EXPECT_EQ(loaded->state.vocab_path, "/data/lab/vocab.txt");
  // Without a session file (what the window shows in its probe), paths stay as they are.
  EXPECT_EQ(nlohmann::json::parse(session_json(s))["state"]["embeddings"], "/data/lab/models/tiny");
}

TEST(Session, AModelFromTheHubCacheIsStoredByItsName) {
  const std::string commit = "0123456789abcdef0123456789abcdef01234567";
  EXPECT_EQ(hub_name_of_snapshot("/home/u/.cache/huggingface/hub/models--EleutherAI--pythia-70m/snapshots/" + commit),
            "EleutherAI/pythia-70m@" + commit);
  EXPECT_EQ(hub_name_of_snapshot("/home/u/.cache/huggingface/hub/models--EleutherAI--pythia-70m/snapshots/" + commit + "/"),
            "EleutherAI/pythia-70m@" + commit);
  EXPECT_EQ(hub_name_of_snapshot("/data/models/pythia"), "");
  EXPECT_EQ(hub_name_of_snapshot("/x/models--a--b/snapshots/main"), "");
  State s;
  s.embeddings_path = "/home/u/.cache/huggingface/hub/models--org--tiny/snapshots/" + commit;
  const auto doc = nlohmann::json::parse(session_json(s, "/tmp/s.json"));
  EXPECT_EQ(doc["state"]["model"], "org/tiny@" + commit);
  EXPECT_FALSE(doc["state"].contains("embeddings"));
}
