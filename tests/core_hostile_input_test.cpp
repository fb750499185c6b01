// Parser test: also built alone and run under ASan and UBSan (parser_tests in tests/CMakeLists.txt).
// Hostile input to the readers and the tokenizer (issue 36): every file read whole must be a
// regular file within its kind's limit, checked before a byte is read (a pipe, /dev/zero, a sparse
// file of gigabytes, a tokenizer padded with NUL bytes); a normalizer may not multiply text; the
// tokenizer's work grows linearly in the text; and it refuses what Hugging Face's tokenizers
// refuses. Nothing here depends on the machine's speed: a pipe is given a generous deadline only
// so that a regression fails instead of hanging, and linearity is counted in bytes of work.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <nlohmann/json.hpp>
#include <string>

#include "tokenizer/tokenizer.hpp"
#include "base/files.hpp"
#include "core/formats/formats.hpp"
#include "core/formats/npy.hpp"
#include "core/model/model_config.hpp"
#include "core/formats/tokenizer.hpp"
#include "base/memory.hpp"
#include "core/model/checkpoint.hpp"
#include "core/session.hpp"
#include "tiny_tokenizer.hpp"
#include "temp_folder.hpp"

using namespace poslab;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A scratch folder (test_support::TempFolder) and the hostile files made in it.
class Scratch {
 public:
  fs::path path(const std::string& name) const { return dir_ / name; }
  fs::path write(const std::string& name, const std::string& bytes) const {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
    return dir_ / name;
  }
  fs::path fifo(const std::string& name) const {
    EXPECT_EQ(::mkfifo((dir_ / name).c_str(), 0644), 0);
    return dir_ / name;
  }
  // A file of `size` bytes that takes no room on disk (and is never read).
  fs::path sparse(const std::string& name, std::uint64_t size, const std::string& start = {}) const {
    write(name, start);
    fs::resize_file(dir_ / name, size);
    return dir_ / name;
  }

 private:
  test_support::TempFolder dir_{"hostile-input"};
};

// Bytes this process has read through read(2) and the like so far (/proc/self/io's rchar).
std::uint64_t bytes_read_so_far() {
  std::ifstream io("/proc/self/io");
  std::string key;
  std::uint64_t value = 0;
  while (io >> key >> value)
    if (key == "rchar:") return value;
  return 0;
}

// Runs `read` (which reads the pipe `fifo`) with a deadline: if it is still waiting after it (a
// reader that opens a pipe without O_NONBLOCK waits for a writer forever), the test fails and
// opens the pipe for writing itself, so that the read ends and the test does not hang.
std::string error_of_pipe_read(const fs::path& fifo, const std::function<std::string()>& read) {
  auto future = std::async(std::launch::async, read);
  if (future.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    ADD_FAILURE() << fifo << " was still being read after 60 s: a pipe must be refused, not waited on";
    const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);  // the reader sees the end of the file
  }
  return future.get();
}

template <class T>
std::string error_of(const Result<T>& r) {
  return r.ok() ? std::string("(accepted)") : r.error();
}
std::string error_of(const Status& s) { return s.ok() ? std::string("(accepted)") : s.error(); }

// Every reader of a whole file, by what the user names: the error it gives for `path`.
std::vector<std::pair<std::string, std::function<std::string(const fs::path&)>>> readers() {
  return {
      {"--session", [](const fs::path& p) { return error_of(load_session(p)); }},
      {"--model-config", [](const fs::path& p) {
         ModelSettings settings;
         return error_of(load_model_config(settings, p));
       }},
      {"tokens --tokenizer", [](const fs::path& p) { return error_of(BpeTokenizer::load(p)); }},
      {"--learned-file", [](const fs::path& p) { return error_of(load_npy_matrix(p)); }},
      {"--embeddings (word2vec .bin)", [](const fs::path& p) { return error_of(load_word2vec_binary(p)); }},
      {"--embeddings (any)", [](const fs::path& p) { return error_of(load_embeddings_file(p, {})); }},
  };
}

const std::string kNotRegular = "is not a regular file";

}  // namespace

TEST(HostileFiles, DevZeroIsRefusedByEveryReader) {
  for (const auto& [flag, read] : readers()) {
    const std::string error = read("/dev/zero");
    EXPECT_NE(error.find("/dev/zero: " + kNotRegular), std::string::npos) << flag << ": " << error;
  }
}

TEST(HostileFiles, APipeIsRefusedPromptlyByEveryReader) {
  const Scratch scratch;
  const fs::path fifo = scratch.fifo("pipe");
  for (const auto& [flag, read] : readers()) {
    const std::string error = error_of_pipe_read(fifo, [&, read = read] { return read(fifo); });
    EXPECT_NE(error.find(kNotRegular), std::string::npos) << flag << ": " << error;
  }
}

TEST(HostileFiles, ASparseFileOverTheLimitIsRefusedBySizeWithoutReadingIt) {
  const Scratch scratch;
  const std::uint64_t before = bytes_read_so_far();
  const auto config = scratch.sparse("config.json", 20'000'000'000, "{");
  const auto session = scratch.sparse("session.json", 3'000'000'000, "{");
  const auto tokenizer = scratch.sparse("tokenizer.json", 6'000'000'000, tokenizer_json(false, false));
  const auto vocab = scratch.sparse("vocab.txt", 2'000'000'000, "a\n");
  EXPECT_EQ(error_of(read_whole_file(config, kJsonConfigFile)),
            config.string() + ": is 20 GB, more than the 64 MB a JSON configuration file may be");
  EXPECT_NE(error_of(load_session(session)).find("is 3 GB, more than the 64 MB a session may be"), std::string::npos);
  EXPECT_NE(error_of(BpeTokenizer::load(tokenizer)).find("is 6 GB, more than the 512 MB a tokenizer.json may be"),
            std::string::npos);
  EXPECT_NE(error_of(read_whole_file(vocab, kVocabularyFile)).find("more than the 1 GB a vocabulary may be"), std::string::npos);
  // Refused by the size alone: far less than a megabyte was read for all four.
  EXPECT_LT(bytes_read_so_far() - before, 1'000'000u);
}

TEST(HostileFiles, AModelFolderWithATamperedTokenizerOrAPipeForItsConfig) {
  const Scratch scratch;
  fs::create_directories(scratch.path("model"));
  scratch.write("model/config.json", R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 8,
      "intermediate_size": 16, "num_attention_heads": 2, "num_key_value_heads": 2, "num_hidden_layers": 1, "vocab_size": 14,
      "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "max_position_embeddings": 64})");
  scratch.write("model/model.safetensors", "");  // only its existence matters: the tokenizer is read first
  fs::create_symlink("/dev/zero", scratch.path("model/tokenizer.json"));
  EXPECT_NE(error_of(Checkpoint::open(scratch.path("model"))).find(kNotRegular), std::string::npos);
  EXPECT_NE(error_of(load_model_folder(scratch.path("model"), {})).find("tokenizer.json: " + kNotRegular), std::string::npos);

  fs::create_directories(scratch.path("piped"));
  const fs::path fifo = scratch.fifo("piped/config.json");
  const std::string error = error_of_pipe_read(fifo, [&] { return error_of(Checkpoint::open(scratch.path("piped"))); });
  EXPECT_NE(error.find(kNotRegular), std::string::npos) << error;
}

TEST(HostileFiles, JsonWithNulBytesIsNotValidJson) {
  const Scratch scratch;
  // A tokenizer.json padded with NUL bytes: nlohmann's parser alone would stop at the first one
  // and accept it.
  const auto padded = scratch.write("tokenizer.json", tokenizer_json(false, false) + std::string(4096, '\0'));
  const std::string error = error_of(BpeTokenizer::load(padded));
  EXPECT_NE(error.find("not valid JSON: a NUL byte at byte"), std::string::npos) << error;
  EXPECT_NE(error_of(BpeTokenizer::parse(tokenizer_json(false, false) + '\0', "", "t.json")).find("not valid JSON"),
            std::string::npos);
  EXPECT_NE(error_of(load_session(scratch.write("s.json", std::string("{}\0\0", 4)))).find("not valid JSON"), std::string::npos);
  // Binary kinds may hold NUL bytes.
  EXPECT_TRUE(read_whole_file(scratch.write("m.bin", std::string("\0\1", 2)), kMatrixFile).ok());
}

TEST(HostileFiles, LimitsAreNamedInReadableUnits) {
  EXPECT_EQ(file_size_text(64'000'000), "64 MB");
  EXPECT_EQ(file_size_text(6'442'450'944), "6.44 GB");
  EXPECT_EQ(file_size_text(999), "999 bytes");
}

namespace {

json tiny() { return json::parse(tokenizer_json(false, false)); }

Result<std::vector<int>> encode_with(const json& tokenizer, const std::string& text, std::vector<std::string>* unknown = nullptr) {
  auto t = BpeTokenizer::parse(tokenizer.dump(), "", "t.json");
  if (!t) return Error{t.error()};
  return t->encode(text, unknown);
}

}  // namespace


TEST(HostileTokenizer, ASentenceWithoutTokensNamesWhatTheVocabularyLacks) {
  std::vector<std::string> unknown;
  const auto ids = encode_with(tiny(), "xyx\u2603", &unknown);
  ASSERT_TRUE(ids.ok());
  EXPECT_TRUE(ids->empty());
  EXPECT_EQ(no_tokens_message("sentence", unknown, "type a few words"),
            "the sentence has no tokens: the vocabulary has no token for \"x\", \"y\", \"\u2603\"");
  EXPECT_EQ(no_tokens_message("sentence", {}, "type a few words"), "the sentence has no tokens: type a few words");
}

TEST(HostileTokenizer, TheMemoryTokenizingTakesIsCheckedFromTheLengthFirst) {
  set_memory_limit(16'000'000, "--memory-limit 16M");
  EXPECT_TRUE(check_tokenizing_memory(100'000).ok());
  const Status s = check_tokenizing_memory(1'000'000);
  set_memory_limit(0, "");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("tokenizing a sentence of 1.00 MB would need 64.0 MB, more than the memory limit"), std::string::npos)
      << s.error();
}
