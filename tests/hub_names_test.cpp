// Model names and the cache's paths: every name that would leave the cache is refused before a
// path is built from it; the cache root comes from the same variables as huggingface_hub's.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "hub/hub_cache.hpp"
#include "hub/model_name.hpp"
#include "hub/resolve.hpp"
#include "temp_folder.hpp"

namespace poslab::hub {
namespace {

namespace fs = std::filesystem;

TEST(HubNames, ParsesOrgNameAndRevision) {
  auto plain = parse_model_name("EleutherAI/pythia-70m");
  ASSERT_TRUE(plain) << plain.error();
  EXPECT_EQ(plain->org, "EleutherAI");
  EXPECT_EQ(plain->name, "pythia-70m");
  EXPECT_EQ(plain->revision, "main");
  auto step = parse_model_name("EleutherAI/pythia-70m@step1000");
  ASSERT_TRUE(step);
  EXPECT_EQ(step->revision, "step1000");
  auto pr = parse_model_name("org/model.v2_x@refs/pr/1");
  ASSERT_TRUE(pr) << pr.error();
  EXPECT_EQ(pr->revision, "refs/pr/1");
}

TEST(HubNames, RefusesNamesThatWouldLeaveTheCache) {
  for (const char* bad : {"../x", "org/..", "org/na..me", "org/name@../../etc", "org/name@/abs", "org/name@a//b",
                          "org/name@", "/org/name", "org//name", "a/b/c", "org/na me", "org/name@a/../b", "org/-x",
                          "or--g/name", "org/name@.hidden", "org/n\\x"})
    EXPECT_FALSE(parse_model_name(bad)) << bad;
  for (const char* bad : {"../etc/passwd", "/etc/passwd", "a/../../b", "a//b", "", "a\\b", "a/./b", "x\ny"})
    EXPECT_TRUE(unsafe_file_name(bad).has_value()) << bad;
  for (const char* good : {"config.json", "model-00001-of-00002.safetensors", "onnx/model.safetensors"})
    EXPECT_FALSE(unsafe_file_name(good).has_value()) << good;
  for (const char* bad : {"..", "a/b", "", "x.y", "../blob"}) EXPECT_FALSE(is_safe_blob_name(bad)) << bad;
  EXPECT_TRUE(is_safe_blob_name("f03a499fb838632937e7118809de93a22d036e17c993859c16d93cb34ff92376"));
}

TEST(HubNames, APathThatExistsIsAFolderEvenWhenShapedLikeAName) {
  const test_support::TempFolder dir("hub-names");
  fs::create_directories(dir / "org" / "name");
  const fs::path old = fs::current_path();
  fs::current_path(dir);
  EXPECT_FALSE(looks_like_model_name("org/name"));
  EXPECT_TRUE(looks_like_model_name("org/other"));
  auto resolved = resolve_model_argument("org/name", NameResolution{});
  ASSERT_TRUE(resolved);
  EXPECT_EQ(*resolved, fs::path("org/name"));
  fs::current_path(old);
  EXPECT_FALSE(looks_like_model_name("./org/name"));
  EXPECT_FALSE(looks_like_model_name("/abs/name"));
  EXPECT_FALSE(looks_like_model_name("plain"));
}

TEST(HubNames, CommitHashesAreFortyLowercaseHexDigits) {
  EXPECT_TRUE(is_commit_hash("03be3c95ed033ecff5198f96b924d668a9510f01"));
  EXPECT_FALSE(is_commit_hash("03BE3C95ED033ECFF5198F96B924D668A9510F01"));
  EXPECT_FALSE(is_commit_hash("main"));
  EXPECT_FALSE(is_commit_hash("03be3c95ed033ecff5198f96b924d668a9510f0"));
}

TEST(HubCache, RootFollowsHuggingFaceVariables) {
  for (const char* v : {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME"}) ::unsetenv(v);
  ::setenv("HF_HUB_CACHE", "/tmp/a-hub-cache", 1);
  EXPECT_EQ(default_cache_root(), fs::path("/tmp/a-hub-cache"));
  ::unsetenv("HF_HUB_CACHE");
  ::setenv("HF_HOME", "/tmp/a-hf-home", 1);
  EXPECT_EQ(default_cache_root(), fs::path("/tmp/a-hf-home/hub"));
  EXPECT_EQ(hf_home(), fs::path("/tmp/a-hf-home"));
  ::unsetenv("HF_HOME");
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(default_cache_root(), fs::path("/tmp/xdg/huggingface/hub"));
  ::unsetenv("XDG_CACHE_HOME");
  const std::string home = std::getenv("HOME") ? std::getenv("HOME") : "";
  ::setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(default_cache_root(), fs::path("/home/someone/.cache/huggingface/hub"));
  ::setenv("HOME", home.c_str(), 1);
}

TEST(HubCache, PathsAreHuggingFacesAndOnlyTheFilesPosLabReadsAreWanted) {
  const HubCache cache("/c");
  const auto m = *parse_model_name("EleutherAI/pythia-70m@step1000");
  EXPECT_EQ(cache.repo(m), fs::path("/c/models--EleutherAI--pythia-70m"));
  EXPECT_EQ(cache.blob(m, "abc"), fs::path("/c/models--EleutherAI--pythia-70m/blobs/abc"));
  EXPECT_EQ(cache.incomplete(m, "abc"), fs::path("/c/models--EleutherAI--pythia-70m/blobs/abc.incomplete"));
  EXPECT_EQ(cache.snapshot(m, "c0"), fs::path("/c/models--EleutherAI--pythia-70m/snapshots/c0"));
  EXPECT_EQ(cache.lock_file(m, "abc"), fs::path("/c/.locks/models--EleutherAI--pythia-70m/abc.lock"));
  EXPECT_EQ(cache.no_exist(m, "c0", "tokenizer.json"), fs::path("/c/models--EleutherAI--pythia-70m/.no_exist/c0/tokenizer.json"));
  for (const char* yes : {"config.json", "tokenizer.json", "tokenizer_config.json", "model.safetensors",
                          "model-00001-of-00002.safetensors", "model.safetensors.index.json"})
    EXPECT_TRUE(is_wanted_file(yes)) << yes;
  for (const char* no : {"pytorch_model.bin", "README.md", "onnx/model.safetensors", "tf_model.h5", "flax_model.msgpack",
                         "vocab.json", "merges.txt"})
    EXPECT_FALSE(is_wanted_file(no)) << no;
}

}  // namespace
}  // namespace poslab::hub
