// PosLab's tokenizer timed on text files (not a test): bench/tokenizer_run.sh runs it beside
// Hugging Face's tokenizers (bench/tokenizer_hf.js) on the same tokenizer.json and the same texts.
//   tokenizer_bench TOKENIZER.json [--repeat N] TEXT...
// Prints one line per text: its name, bytes, token count, and the least CPU time of N encodings
// in ms (the whole of BpeTokenizer::encode: added tokens, normalizer, pre-tokenizer, model,
// specials). CPU time, not wall time: on a machine shared with other builds the wall clock
// measures the load as much as the work.
#include <algorithm>
#include <ctime>
#include <cstdio>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.hpp"
#include "base/files.hpp"

namespace {

// The CPU time this process has used, in ms (the encoding runs on this thread alone).
double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace poslab;
  if (argc < 3) {
    std::fprintf(stderr, "usage: tokenizer_bench TOKENIZER.json [--repeat N] TEXT...\n");
    return 2;
  }
  auto tokenizer = BpeTokenizer::load(argv[1]);
  if (!tokenizer) {
    std::fprintf(stderr, "%s\n", tokenizer.error().c_str());
    return 1;
  }
  int repeat = 3, first = 2;
  if (std::string(argv[2]) == "--repeat" && argc > 4) repeat = std::max(1, std::stoi(argv[3])), first = 4;
  for (int k = first; k < argc; ++k) {
    const FileKind text_kind{"a benchmark text", 1'000'000'000, FileKind::Content::Text};
    auto text = read_whole_file(argv[k], text_kind);
    if (!text) {
      std::fprintf(stderr, "%s\n", text.error().c_str());
      return 1;
    }
    double best = 1e300;
    std::size_t tokens = 0;
    for (int r = 0; r < repeat; ++r) {
      const double start = cpu_ms();
      auto ids = tokenizer->encode(*text);
      const double ms = cpu_ms() - start;
      if (!ids) {
        std::fprintf(stderr, "%s\n", ids.error().c_str());
        return 1;
      }
      best = std::min(best, ms), tokens = ids->size();
    }
    std::printf("%s %zu %zu %.2f\n", argv[k], text->size(), tokens, best);
  }
  return 0;
}
