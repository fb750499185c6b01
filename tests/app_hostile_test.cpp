// Hostile command lines, one table: outputs that collide, replace an input, cannot be written, or
// are folders where files are wanted (and the reverse), and indices past what the input holds.
// Each case checks the exit code (2: the command line is wrong; 1: the file system refused), that
// the message names the problem, and that the scratch folder holds exactly what it held before,
// byte for byte: no file changed, no partial output, no temporary file left behind.
//
// To see that each check can fail, POSLAB_HOSTILE_SABOTAGE=code|message|files makes every case
// expect a wrong exit code, a message that is not there, or a stray file; and
// POSLAB_HOSTILE_BINARY=path runs another poslab (an older build, to see what the table catches).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "shell.hpp"
#include "temp_folder.hpp"

namespace poslab {
namespace {

namespace fs = std::filesystem;

using Outcome = test_support::RunResult;
using test_support::read_whole_file;

std::string binary() {
  const char* other = std::getenv("POSLAB_HOSTILE_BINARY");
  return other && *other ? other : POSLAB_BINARY;
}

std::string sabotage() {
  const char* s = std::getenv("POSLAB_HOSTILE_SABOTAGE");
  return s ? s : "";
}

// `poslab ARGS` in `dir` through /bin/sh, stdout and stderr together.
Outcome run_in(const fs::path& dir, const std::string& args) {
  // 8 GB at most: a case that tried to take what its files cannot justify fails (std::bad_alloc,
  // exit 134) instead of slowing the machine down. A sanitized poslab (POSLAB_HOSTILE_SANITIZED,
  // as ./setup.sh test runs the table a second time) reserves terabytes of address space for its
  // shadow memory, so there AddressSanitizer's own limits bound it instead.
  const char* sanitized = std::getenv("POSLAB_HOSTILE_SANITIZED");
  const std::string bound = sanitized && *sanitized ? "ASAN_OPTIONS=hard_rss_limit_mb=8192:max_allocation_size_mb=8192 "
                                                     : "ulimit -v 8388608 && ";
  // `timeout`: a poslab that waits on a pipe forever fails its case (exit 124) instead of hanging the table.
  const std::string command = "cd '" + dir.string() + "' && " + bound + "timeout -k 10 120 " + binary() + " " + args + " 2>&1 </dev/null";
  return test_support::run_shell(command);
}

void write_file(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

// Every file and folder under `dir`, hidden ones too, with its bytes (a folder: "<dir>").
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string name = fs::relative(e.path(), dir).string();
    // A pipe is never read (that would wait for a writer), nor a link (it may lead to /dev/zero),
    // nor a sparse file of gigabytes: their kind and size are what must not change.
    files[name] = e.is_symlink()                   ? "<link to " + fs::read_symlink(e.path()).string() + ">"
                  : e.is_directory()               ? "<dir>"
                  : e.is_fifo()                    ? "<fifo>"
                  : fs::file_size(e.path()) > 100'000'000u ? "<large " + std::to_string(fs::file_size(e.path())) + ">"
                                                   : read_whole_file(e.path());
  }
  return files;
}

// What differs between two snapshots, one line per path.
std::string difference(const std::map<std::string, std::string>& before, const std::map<std::string, std::string>& after) {
  std::string out;
  for (const auto& [name, bytes] : after) {
    const auto it = before.find(name);
    if (it == before.end()) out += "  new: " + name + "\n";
    else if (it->second != bytes) out += "  changed: " + name + "\n";
  }
  for (const auto& [name, bytes] : before)
    if (!after.count(name)) out += "  removed: " + name + "\n";
  return out;
}

struct Case {
  std::string args;
  int code;             // 2: a bad flag or value; 1: a bad file or a failed write
  std::string message;  // a part of what the command says
};

// B: every output checked before the work, all written or none.
const std::vector<Case> kOutputCases = {
    {"export attention --csv keep.csv --png /proc/x.png", 1, "--png /proc/x.png: cannot write in /proc"},
    {"export attention --png same.png --svg same.png", 2, "are one file"},
    {"export attention --png keep.png --svg ./keep.png", 2, "are one file"},
    {"export attention --csv keep.csv --save-session keep.csv", 2, "are one file"},
    {"export attention --embeddings emb.txt --csv emb.txt", 2, "an output must not replace what the command reads"},
    {"export attention --csv folder", 1, "--csv folder: is a folder"},
    {"export attention --csv keep.csv --svg nowhere/x.svg", 1, "the folder nowhere does not exist"},
    // A pipe in the scratch folder, not /dev/null: a poslab that renamed over it must not be able
    // to replace a device the whole machine shares (an older build, run as root, did).
    {"export attention --csv pipe", 1, "--csv pipe: is not a plain file"},
    {"export tour --step 1 --png keep.png --csv keep.png", 2, "are one file"},
    {"export all --dir keep.csv", 1, "--dir keep.csv: is a file, not a folder"},
    {"export attention --model model --layer 0 --csv model/tokenizer.json", 2, "must not replace"},
    {"export attention --model model --layer 0 --csv keep.csv --png /proc/m.png", 1, "cannot write in /proc"},
    {"train --steps 5 --out /proc/m", 1, "--out /proc/m: cannot create the folder"},
    {"train --steps 5 --out new-model --log folder", 1, "--log folder: is a folder"},
    {"train --steps 5 --out new-model --log new-model", 2, "are one file"},
    {"train --steps 5 --out keep.csv", 1, "--out keep.csv: is a file, not a folder"},
    {"train --steps 5 --out ''", 2, "--out needs a folder name"},
    {"train --steps 5 --out new-model --log=", 2, "--log needs a file name"},
    {"eval --model model --csv model/config.json", 2, "must not replace"},
    {"eval --model model --csv /proc/e.csv", 1, "cannot write in /proc"},
    {"export extrapolation --models model --png e.png --csv e.png", 2, "are one file"},
    {"export extrapolation --models model --csv model/model.safetensors", 2, "must not replace"},
    {"export patterns --animate base --from 100 --to 200 --frames 2 --gif folder", 1, "--gif folder: is a folder"},
    {"export patterns --animate base --from 100 --to 200 --frames 2 --mp4 /proc/a.mp4", 1, "cannot write in /proc"},
    {"export patterns --animate base --from 100 --to 200 --frames 2 --frames-dir keep.csv", 1, "is a file, not a folder"},
    {"--screenshot keep.png --frame-log ./keep.png", 2, "are one file"},
    {"--screenshot /proc/shot.png", 1, "cannot write in /proc"},
};

// C: an index past what the input holds is an error naming the range, never clamped.
const std::vector<Case> kIndexCases = {
    {"export trajectory --token 99 --png t.png", 2, "--token 99 is out of range: there are 5 tokens in the sentence (0 to 4)"},
    {"export trajectory --sentence 'one two' --token 2 --csv t.csv", 2, "(0 to 1)"},
    {"export trajectory --plane dims --dims 0,100 --png t.png", 2, "--dims 100 is out of range: there are 100 dimensions (0 to 99)"},
    {"export rope2d --rope-pair 32 --png t.png", 2, "--rope-pair 32 is out of range: there are 32 pairs"},
    {"export rope-image --patch 14,0 --png t.png", 2, "--patch 14 is out of range: there are 14 patch columns (0 to 13)"},
    {"export rope-image --image-grid 4x4 --patch-y 4 --png t.png", 2, "--patch-y 4 is out of range: there are 4 patch rows (0 to 3)"},
    {"export all --dir out --token 99", 2, "--token 99 is out of range"},
    {"export attention --head 5 --png t.png", 2, "--head 5 is out of range: there are 5 heads (0 to 4)"},
    {"export attention --model model --layer 2 --png t.png", 2, "--layer 2 is out of range: there are 2 layers in the model (0 to 1)"},
    {"export heads --model model --layer 0 --head 4 --png t.png", 2, "--head 4 is out of range: there are 4 heads in the model (0 to 3)"},
    {"predict --model model --layer 7", 2, "--layer 7 is out of range"},
    {"export trajectory --animate token --from 0 --to 9 --frames 2 --gif a.gif", 2, "frame 1 (token = 9): --token 9 is out of range"},
    {"export attention --animate head --from 0 --to 7 --frames 2 --gif a.gif", 2, "frame 1 (head = 7): --head 7 is out of range"},
    {"export tour --step 99 --png t.png", 2, "--step must be between 1 and"},
};

// Files that lie (model folders, embeddings, sessions) and values without meaning: a clear error
// naming the file or the key, never an abort, a NaN printed as an answer, or an allocation the
// file's own size cannot justify. Every case runs under `ulimit -v` (see run_in), so a blow-up
// fails its case instead of the machine.
const std::vector<Case> kFileCases = {
    {"predict --model bad-theta --sentence abc", 1, "\"rope_theta\" must be greater than 1"},
    {"predict --model negative-theta --sentence abc", 1, "\"rope_theta\" must be greater than 1"},
    {"predict --model bad-eps --sentence abc", 1, "\"rms_norm_eps\" must be greater than 0"},
    {"predict --model many-layers --sentence abc", 1, "config.json says 100000000 layers, but the files hold 2"},
    {"export heads --model many-layers --layer 0 --png h.png", 1, "config.json says 100000000 layers"},
    {"predict --model nan-weight --sentence abcd", 1, "not finite (NaN or infinity) after layer 0"},
    {"export attention --model nan-weight --layer 0 --csv a.csv", 1, "not finite"},
    {"eval --model long-train", 1, "would need"},
    // 2·10⁹ would wrap to "−294967296 tokens" in an int: refused by name before any arithmetic.
    {"eval --model huge-train", 1, "\"poslab_train_length\" is 2000000000, more than PosLab reads"},
    {"eval --model large-train", 1, "poslab_train_length 1000000000 is out of range (1 to 16777216)"},
    {"export attention --embeddings wide.txt --csv w.csv", 1, "attention over 1000000-dimensional embeddings"},
    {"export attention --embeddings wide20k.txt --csv w.csv --memory-limit 4G", 1, "would need 12.8 GB, more than the memory limit"},
    {"export attention --session broken.json --csv s.csv", 1, "broken.json"},
    {"export attention --session zero-base.json --csv s.csv", 1, "--base must be greater than 1"},
    // A tokenizer.json with a component PosLab does not implement is refused by name, whether read
    // alone or with its model, and a SentencePiece charsmap too short for its header is named as
    // such; a sentence that is not UTF-8 is an error, not bytes pushed through.
    {"tokens --tokenizer precompiled.json --sentence abc", 1, "precompiled_charsmap is shorter than its 4-byte header"},
    {"predict --model unknown-pre-tokenizer --sentence abc", 1, "pre-tokenizer UnicodeScripts is not supported"},
    {"tokens --tokenizer model/tokenizer.json --sentence \"$(printf 'ab\\377c')\"", 1, "not valid UTF-8"},
};

// Files that are no files or are too large for their kind (issue 36): each refused before it is
// read, by the file's name and the kind's limit — never read whole into memory (exit 134 under
// the table's 8 GB), never waited on (a pipe), never taken as valid when padded with NUL bytes.
const std::vector<Case> kReadCases = {
    {"export attention --session /dev/zero --csv s.csv", 1, "/dev/zero: is not a regular file"},
    {"export attention --session pipe --csv s.csv", 1, "pipe: is not a regular file"},
    {"export attention --session big-session.json --csv s.csv", 1,
     "big-session.json: is 3 GB, more than the 64 MB a session may be"},
    {"export attention --model-config /dev/zero --csv s.csv", 1, "/dev/zero: is not a regular file"},
    {"tokens --tokenizer /dev/zero --sentence abc", 1, "/dev/zero: is not a regular file"},
    {"tokens --tokenizer padded-6g.json --sentence abc", 1, "padded-6g.json: is 6 GB, more than the 512 MB a tokenizer.json may be"},
    {"tokens --tokenizer padded.json --sentence abc", 1, "padded.json: not valid JSON: a NUL byte at byte"},
    {"export attention --embeddings m.npy --vocab /dev/zero --csv s.csv", 1, "/dev/zero: is not a regular file"},
    {"export attention --embeddings pipe --csv s.csv", 1, "pipe: is not a regular file"},
    {"export attention --encoding learned --learned-file /dev/zero --csv s.csv", 1, "/dev/zero: is not a regular file"},
    {"predict --model zero-tokenizer --sentence abc", 1, "tokenizer.json: is not a regular file"},
    {"predict --model pipe-config --sentence abc", 1, "config.json: is not a regular file"},
    {"predict --model sparse-config --sentence abc", 1, "config.json: is 20 GB, more than the 64 MB a JSON configuration file may be"},
    // The tokenizer: a normalizer that multiplies text, a sentence too long for the memory
    // tokenizing it takes (refused from its length, before the work), strictness as tokenizers'.
    {"tokens --tokenizer blowup.json --sentence aaaa", 1, "normalizer Replace would make"},
    {"export attention --session long-sentence.json --csv s.csv --memory-limit 16M", 1,
     "tokenizing a sentence of 1.00 MB would need 64.0 MB, more than the memory limit"},
    {"tokens --tokenizer two-char-delimiter.json --sentence abc", 1, "CharDelimiterSplit: the delimiter must be one character"},
};

// Flag sets: each value inside its own range, the run too big together; and interventions that
// change nothing on this model.
const std::vector<Case> kValueCases = {
    {"train --batch 4096 --train-length 1024 --width 256 --layers 4 --out big --memory-limit 8G", 1,
     "would need"},
    {"train --batch 4096 --train-length 1024 --width 256 --layers 4 --out big --memory-limit 8G", 1,
     "lower --batch, --train-length, --width or --layers, or raise --memory-limit"},
    // A layer's T × T weights kept for the heads figure (predict keeps none, and runs this length).
    {"export heads --model model --layer 0 --csv heads.csv --sentence " + std::string(20000, 'a') + " --memory-limit 256M", 1,
     "the forward pass over 20000 tokens would need"},
    {"predict --model model --sentence abc --memory-limit 12X", 2, "is not a memory size"},
    {"predict --model model --sentence abc --memory-limit 10K", 2, "--memory-limit must be from 1M"},
    {"predict --model model --sentence abc --base 0", 2, "--base must be greater than 1"},
    {"export attention --base -5 --csv b.csv", 2, "--base must be greater than 1"},
    {"predict --model alibi --sentence abc --base 500", 2, "this model's positions are ALiBi's slopes: what applies is --no-positions"},
    {"predict --model alibi --sentence abc --rope-scaling linear", 2, "--rope-scaling scales RoPE's frequencies"},
    {"predict --model alibi --sentence abc --position-shift 3", 2, "a relative bias cannot see"},
    {"predict --model model --sentence abc --bias alibi", 2, "--bias cannot give a checkpoint another kind of positions"},
};

// Issue 36 §5: every flag acts or is refused, the same way in every command. Options that act on
// a model folder only, without one; --no-positions beside what it turns off; values past what
// the model holds, named; each command's own --help; the views an unknown view's message lists.
const std::vector<Case> kFlagCases = {
    {"export attention --window 4 --csv f.csv", 2, "--window changes a model folder's own positions and needs one"},
    {"export attention --local-base 1000 --csv f.csv", 2, "--local-base changes a model folder's own positions"},
    {"export attention --rope-factors short --csv f.csv", 2, "--rope-factors changes a model folder's own positions"},
    {"export attention --alibi-scale 2 --csv f.csv", 2, "--alibi-scale changes a model folder's own positions"},
    {"export patterns --position-shift 3 --csv f.csv", 2, "--position-shift changes a model folder's own positions"},
    {"export attention --stack cross --csv f.csv", 2, "--stack changes a model folder's own positions and needs one"},
    {"export attention --target 'a b' --csv f.csv", 2, "--target changes a model folder's own positions"},
    {"export attention --position-shift 3 --animate base --from 100 --to 1000 --frames 2 --gif f.gif", 2,
     "--position-shift changes a model folder's own positions"},
    {"info --window 4", 2, "--window changes a model folder's own positions"},
    {"--window 4 --screenshot f.png", 2, "--window changes a model folder's own positions"},
    {"export attention --no-positions --base 500 --csv f.csv", 2, "--no-positions turns every position off, and --base"},
    {"export attention --base 500 --no-positions --csv f.csv", 2, "--no-positions turns every position off, and --base"},
    {"export attention --no-positions --encoding rope --csv f.csv", 2, "and --encoding rope gives some"},
    {"predict --model model --sentence abc --no-positions --rope-scaling linear", 2, "--no-positions turns every position off"},
    {"predict --model model --sentence abc --rotary-dim 1000", 2, "--rotary-dim 1000 is out of range"},
    {"export heads --model model --layer 0 --rotary-dim 3 --csv f.csv", 2, "--rotary-dim 3 is out of range"},
    {"export frobnicate --csv f.csv", 2, "pair-scores, position-probe, training, extrapolation, all, paper"},
    {"export attention --help", 0, "poslab export attention --model DIR --layer L"},
    {"export attention --help", 0, "--window none|N|model"},
    {"export training --help", 0, "poslab export training --model ORG/NAME"},
    {"export all --help", 0, "poslab export all --dir DIR"},
    {"export extrapolation --help", 0, "poslab export extrapolation --models"},
    {"predict --help", 0, "poslab predict --model DIR"},
    {"train --help", 0, "poslab train [--task copy|recall|reverse]"},
    {"eval --help", 0, "poslab eval --model DIR"},
    {"info --help", 0, "poslab info [--embeddings F"},
    {"tokens --help", 0, "poslab tokens --tokenizer"},
    {"tour --help", 0, "poslab tour --list"},
};

class HostileCommandLines : public ::testing::Test {
 protected:
  // A scratch folder with files to protect, a folder, an input file and a tiny trained model.
  static void SetUpTestSuite() {
    folder_ = std::make_unique<test_support::TempFolder>("hostile");
    dir_ = folder_->path();
    fs::create_directories(dir_ / "folder");
    write_file(dir_ / "keep.csv", "a,b\n1,2\n");
    write_file(dir_ / "keep.png", "not really a png, but nobody may replace it");
    write_file(dir_ / "emb.txt", "dog 0.1 0.2\ncat 0.3 0.4\n");
    write_file(dir_ / "folder" / "inside.txt", "inside");
    ASSERT_EQ(::mkfifo((dir_ / "pipe").c_str(), 0644), 0);
    const Outcome trained = run_in(dir_, "train --steps 2 --train-length 4 --out model");
    ASSERT_EQ(trained.exit_code, 0) << trained.output;
    const Outcome alibi = run_in(dir_, "train --steps 2 --train-length 4 --encoding alibi --out alibi");
    ASSERT_EQ(alibi.exit_code, 0) << alibi.output;
    make_lying_files();
  }

  // Copies of the trained model whose config.json says `key` = `value` (JSON text).
  static void model_with(const std::string& name, const std::string& key, const std::string& value) {
    fs::copy(dir_ / "model", dir_ / name, fs::copy_options::recursive);
    nlohmann::ordered_json config = nlohmann::ordered_json::parse(read_whole_file(dir_ / name / "config.json"));
    config[key] = nlohmann::ordered_json::parse(value);
    write_file(dir_ / name / "config.json", config.dump(2));
  }

  static void make_lying_files() {
    model_with("bad-theta", "rope_theta", "0");
    model_with("negative-theta", "rope_theta", "-10000");
    model_with("bad-eps", "rms_norm_eps", "-1");
    model_with("many-layers", "num_hidden_layers", "100000000");
    model_with("long-train", "poslab_train_length", "100000");
    model_with("huge-train", "poslab_train_length", "2000000000");
    model_with("large-train", "poslab_train_length", "1000000000");
    // One NaN in layer 0's up projection (F32: the trained model's dtype).
    fs::copy(dir_ / "model", dir_ / "nan-weight", fs::copy_options::recursive);
    std::string weights = read_whole_file(dir_ / "nan-weight" / "model.safetensors");
    std::uint64_t header = 0;
    std::memcpy(&header, weights.data(), 8);
    const std::string name = "\"model.layers.0.mlp.up_proj.weight\"";
    const auto at = weights.find(name);
    const auto offsets = weights.find("data_offsets", at);
    const std::uint64_t begin = std::stoull(weights.substr(weights.find('[', offsets) + 1));
    const float nan = std::nanf("");
    std::memcpy(weights.data() + 8 + header + begin, &nan, 4);
    write_file(dir_ / "nan-weight" / "model.safetensors", weights);
    // Two rows of a million numbers (the d × d projections would be 32 TB); three of 20 000.
    for (const auto& [file, dims, rows] : {std::tuple{"wide.txt", 1000000, 2}, std::tuple{"wide20k.txt", 20000, 3}}) {
      std::string text;
      for (int r = 0; r < rows; ++r) {
        text += r == 0 ? "the" : r == 1 ? "dog" : "cat";
        for (int k = 0; k < dims; ++k) text += k % 2 ? " 0.5" : " -1";
        text += "\n";
      }
      write_file(dir_ / file, text);
    }
    write_file(dir_ / "broken.json", "{\"poslab_session\": 1, \"state\": {\"heads\": ");
    write_file(dir_ / "zero-base.json", "{\"poslab_session\": 1, \"state\": {\"base\": 0.0}}");
    // The trained model's tokenizer.json with a charsmap of 3 bytes, or a pre-tokenizer it cannot read.
    auto tokenizer = nlohmann::json::parse(read_whole_file(dir_ / "model" / "tokenizer.json"));
    tokenizer["normalizer"] = {{"type", "Precompiled"}, {"precompiled_charsmap", "AAAA"}};
    write_file(dir_ / "precompiled.json", tokenizer.dump());
    fs::copy(dir_ / "model", dir_ / "unknown-pre-tokenizer", fs::copy_options::recursive);
    tokenizer["normalizer"] = nullptr;
    tokenizer["pre_tokenizer"] = {{"type", "UnicodeScripts"}};
    write_file(dir_ / "unknown-pre-tokenizer" / "tokenizer.json", tokenizer.dump());
    make_unreadable_files();
  }

  // Files that are no files, or far larger than their kind (sparse: they take no disk).
  static void make_unreadable_files() {
    const auto sparse = [](const std::string& name, std::uintmax_t size, const std::string& start) {
      write_file(dir_ / name, start);
      fs::resize_file(dir_ / name, size);
    };
    const std::string tokenizer = read_whole_file(dir_ / "model" / "tokenizer.json");
    sparse("big-session.json", 3'000'000'000, "{\"poslab_session\": 1, \"state\": {\"sentence\": \"");
    sparse("padded-6g.json", 6'000'000'000, tokenizer);
    write_file(dir_ / "padded.json", tokenizer + std::string(4096, '\0'));
    fs::copy(dir_ / "model", dir_ / "zero-tokenizer", fs::copy_options::recursive);
    fs::remove(dir_ / "zero-tokenizer" / "tokenizer.json");
    fs::create_symlink("/dev/zero", dir_ / "zero-tokenizer" / "tokenizer.json");
    fs::copy(dir_ / "model", dir_ / "pipe-config", fs::copy_options::recursive);
    fs::remove(dir_ / "pipe-config" / "config.json");
    ASSERT_EQ(::mkfifo((dir_ / "pipe-config" / "config.json").c_str(), 0644), 0);
    fs::copy(dir_ / "model", dir_ / "sparse-config", fs::copy_options::recursive);
    sparse("sparse-config/config.json", 20'000'000'000, "{");
    // A 2 × 2 float32 matrix (NumPy format 1.0) to give --vocab to.
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
    header += std::string(63 - (10 + header.size()) % 64, ' ') + "\n";  // the data starts at a multiple of 64
    std::string npy = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header;
    npy += std::string(16, '\0');
    write_file(dir_ / "m.npy", npy);
    auto json = nlohmann::json::parse(tokenizer);
    const nlohmann::json replace = {{"type", "Replace"}, {"pattern", {{"String", "a"}}}, {"content", std::string(1000, 'a')}};
    json["normalizer"] = {{"type", "Sequence"}, {"normalizers", {replace, replace, replace}}};
    write_file(dir_ / "blowup.json", json.dump());
    json["normalizer"] = nullptr;
    json["pre_tokenizer"] = {{"type", "CharDelimiterSplit"}, {"delimiter", "ab"}};
    write_file(dir_ / "two-char-delimiter.json", json.dump());
    write_file(dir_ / "long-sentence.json",
               "{\"poslab_session\": 1, \"state\": {\"sentence\": \"" + std::string(1'000'000, 'a') + "\"}}");
  }
  static void TearDownTestSuite() { folder_.reset(); }

  static void check(const std::vector<Case>& cases) {
    const std::string s = sabotage();
    for (const Case& c : cases) {
      const auto before = snapshot(dir_);
      const Outcome r = run_in(dir_, c.args);
      if (s == "files") write_file(dir_ / ".stray.poslab-tmp", "x");  // as a leftover temporary file would be
      const auto after = snapshot(dir_);
      const int code = s == "code" ? 3 - c.code : c.code;
      const std::string message = s == "message" ? c.message + " (sabotaged)" : c.message;
      EXPECT_EQ(r.exit_code, code) << "poslab " << c.args << "\n" << r.output;
      EXPECT_NE(r.output.find(message), std::string::npos) << "poslab " << c.args << "\nsays:\n" << r.output;
      const std::string diff = difference(before, after);
      EXPECT_TRUE(diff.empty()) << "poslab " << c.args << " changed the folder:\n" << diff;
      // Put it back as it was, so one case's damage does not fail the next.
      for (const auto& [name, bytes] : after)
        if (!before.count(name)) fs::remove_all(dir_ / name);
      for (const auto& [name, bytes] : before)
        if (bytes == "<fifo>" && (!after.count(name) || after.at(name) != bytes)) {
          fs::remove(dir_ / name);
          ::mkfifo((dir_ / name).c_str(), 0644);
        } else if (bytes != "<dir>" && bytes != "<fifo>" && !bytes.starts_with("<link to ") && !bytes.starts_with("<large ") &&
                   (!after.count(name) || after.at(name) != bytes)) {
          write_file(dir_ / name, bytes);
        }
    }
  }

  static std::unique_ptr<test_support::TempFolder> folder_;  // the suite's, made once for every case
  static fs::path dir_;
};

std::unique_ptr<test_support::TempFolder> HostileCommandLines::folder_;
fs::path HostileCommandLines::dir_;

TEST_F(HostileCommandLines, OutputsAreCheckedFirstAndWrittenAllOrNone) { check(kOutputCases); }

TEST_F(HostileCommandLines, IndicesPastTheInputAreErrorsNamingTheRange) { check(kIndexCases); }

TEST_F(HostileCommandLines, FilesThatLieAreClearErrorsNotAbortsOrNaN) { check(kFileCases); }

TEST_F(HostileCommandLines, ValuesWithoutMeaningAndRunsTooBigAreRefusedFirst) { check(kValueCases); }

TEST_F(HostileCommandLines, FilesThatAreNoFilesOrTooLargeAreRefusedBeforeReading) { check(kReadCases); }

TEST_F(HostileCommandLines, EveryFlagActsOrIsRefusedTheSameWayEverywhere) { check(kFlagCases); }

// A command's --help is that command's usage, not the whole manual.
TEST_F(HostileCommandLines, ACommandsHelpIsItsOwn) {
  const Outcome predict = run_in(dir_, "predict --help");
  ASSERT_EQ(predict.exit_code, 0) << predict.output;
  EXPECT_EQ(predict.output.find("poslab train"), std::string::npos) << predict.output;
  EXPECT_NE(predict.output.find("state options:"), std::string::npos) << predict.output;
  const Outcome training = run_in(dir_, "export training --layer 3 --help");
  ASSERT_EQ(training.exit_code, 0) << training.output;
  EXPECT_EQ(training.output.find("poslab predict"), std::string::npos) << training.output;
}

// A session saved with --model DIR stores the folder relative to the session file: opened from
// another working folder, it finds the model; a folder that is gone is named.
TEST_F(HostileCommandLines, ASessionFindsItsModelFromAnyFolder) {
  const test_support::TempFolder elsewhere("hostile-elsewhere");  // beside dir_, in the same temporary folder
  const Outcome saved = run_in(dir_, "export attention --model model --layer 0 --backend cpu --csv " + (elsewhere / "a.csv").string() +
                                         " --save-session " + (elsewhere / "s.json").string());
  ASSERT_EQ(saved.exit_code, 0) << saved.output;
  const auto session = nlohmann::json::parse(read_whole_file(elsewhere / "s.json"));
  EXPECT_EQ(session["state"]["embeddings"], "../" + dir_.filename().string() + "/model") << session.dump(2);
  const Outcome reopened = run_in(elsewhere, "export attention --session s.json --csv b.csv");
  ASSERT_EQ(reopened.exit_code, 0) << reopened.output;
  EXPECT_EQ(read_whole_file(elsewhere / "b.csv"), read_whole_file(elsewhere / "a.csv"));
  // The model moved away: the message names the folder it looked for.
  fs::create_directories(elsewhere / "sub");
  fs::copy_file(elsewhere / "s.json", elsewhere / "sub" / "s.json");
  const Outcome gone = run_in(elsewhere / "sub", "export attention --session s.json --csv b.csv");
  EXPECT_EQ(gone.exit_code, 1) << gone.output;
  EXPECT_NE(gone.output.find((elsewhere / dir_.filename() / "model").string()), std::string::npos) << gone.output;
}

// The window says what the command line refuses, instead of running without it in silence.
TEST_F(HostileCommandLines, TheWindowSaysWhatTheCommandLineRefuses) {
  const test_support::TempFolder tmp("hostile-shot");
  const fs::path shot = tmp / "shot.png";
  // Under the sanitized build, leak checking off as in tests/gui_monkey.sh: the GL driver's own
  // allocations at exit are not ours, and nothing a suppression can name.
  const Outcome r = test_support::run_shell("cd '" + dir_.string() + "' && ASAN_OPTIONS=detect_leaks=0 xvfb-run -a -s '-screen 0 1280x900x24' " + binary() +
                                            " --model model --layer 0 --window 4 --view model --size 900x700 --frames 3 --screenshot " +
                                            shot.string() + " 2>&1 </dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("--window changes sliding windows"), std::string::npos) << r.output;
}

// The same checks hold when the command succeeds: the files arrive and nothing else does.
TEST_F(HostileCommandLines, ASuccessfulExportLeavesOnlyItsFiles) {
  const auto before = snapshot(dir_);
  const Outcome r = run_in(dir_, "export attention --csv keep.csv --svg fresh.svg --save-session fresh.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string diff = difference(before, snapshot(dir_));
  EXPECT_EQ(diff, "  new: fresh.json\n  new: fresh.svg\n  changed: keep.csv\n");
  fs::remove(dir_ / "fresh.svg");
  fs::remove(dir_ / "fresh.json");
  write_file(dir_ / "keep.csv", "a,b\n1,2\n");
}

}  // namespace
}  // namespace poslab
