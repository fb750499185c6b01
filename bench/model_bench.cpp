// A model folder's forward pass timed (not a test): bench/model_run.sh runs it beside the same
// forward in PyTorch (bench/model_forward_torch.py) on the same ids, and prints the ratio.
//   model_bench DIR [--tokens T] [--repeat N] [--warmup W]
//   model_bench DIR --sentence S [--top K] [--repeat N] [--warmup W]
// Prints one JSON object: forward_s_min and median, open_s, rss_anon_peak_mb (anonymous memory:
// the mapped weights are file pages and not counted), threads, and the same logits checksum as the
// PyTorch script (sum of the last position's first 16 logits).
// With --sentence, each run is `poslab predict --sentence S --top K`'s own call (run_model: the
// folder's tokenizer, layer 0's attention kept, the top K of every position, the loss; no logits
// kept), without the command line around it; the JSON then has predict's "ids", "loss" and "top"
// ([{"id", "p"}] per position) instead of the checksum. bench/gemma3_run.sh uses it where
// `poslab predict --model DIR` itself cannot open the folder.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/model/forward.hpp"
#include "core/model/model_run.hpp"

namespace {

double rss_anon_mb() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("RssAnon:", 0) == 0) return std::stod(line.substr(8)) / 1024.0;
  return 0.0;
}

// Samples RssAnon every 5 ms while it lives, keeping the peak.
class PeakSampler {
 public:
  PeakSampler() : thread_([this] {
    while (!stop_) {
      peak_ = std::max(peak_.load(), rss_anon_mb());
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }) {}
  ~PeakSampler() {
    stop_ = true;
    thread_.join();
  }
  double peak() const { return std::max(peak_.load(), rss_anon_mb()); }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<double> peak_{0.0};
  std::thread thread_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: model_bench DIR [--tokens T | --sentence S [--top K]] [--repeat N] [--warmup W] [--precision f32|bf16]\n");
    return 2;
  }
  int tokens = 64, repeat = 3, warmup = 1, top = 1;
  std::string sentence;
  poslab::Precision precision = poslab::Precision::F32;
  for (int k = 2; k + 1 < argc; k += 2) {
    const std::string opt = argv[k];
    if (opt == "--tokens") tokens = std::stoi(argv[k + 1]);
    else if (opt == "--repeat") repeat = std::stoi(argv[k + 1]);
    else if (opt == "--warmup") warmup = std::stoi(argv[k + 1]);
    else if (opt == "--sentence") sentence = argv[k + 1];
    else if (opt == "--top") top = std::stoi(argv[k + 1]);
    else if (opt == "--precision") {
      const std::string v = argv[k + 1];
      if (v != "f32" && v != "bf16") {
        std::fprintf(stderr, "model_bench: --precision must be f32 or bf16\n");
        return 2;
      }
      precision = v == "bf16" ? poslab::Precision::BF16 : poslab::Precision::F32;
    }
  }
  if (repeat < 1 || warmup < 0) {
    std::fprintf(stderr, "model_bench: --repeat must be at least 1 and --warmup at least 0\n");
    return 2;
  }
  PeakSampler sampler;
  const auto t0 = std::chrono::steady_clock::now();
  auto model = poslab::Checkpoint::open(argv[1]);
  if (!model) {
    std::fprintf(stderr, "model_bench: %s\n", model.error().c_str());
    return 1;
  }
  const double open_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!sentence.empty()) {
    poslab::ModelRequest request;
    request.sentence = sentence;
    request.layer = 0;
    request.top_k = top;
    request.precision = precision;
    std::vector<double> times;
    poslab::ForwardResult last;
    for (int r = 0; r < repeat + warmup; ++r) {
      const auto start = std::chrono::steady_clock::now();
      auto run = poslab::run_model(**model, request);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (!run) {
        std::fprintf(stderr, "model_bench: %s\n", run.error().c_str());
        return 1;
      }
      std::fprintf(stderr, "model_bench: forward %d: %.3f s\n", r, s);
      if (r >= warmup) times.push_back(s);
      last = std::move(run->unchanged);
    }
    std::sort(times.begin(), times.end());
    std::printf("{\"forward_s_min\": %.4f, \"forward_s_median\": %.4f, \"open_s\": %.4f, \"threads\": %d, \"tokens\": %zu, "
                "\"rss_anon_peak_mb\": %.1f, \"loss\": %.17g, \"ids\": [",
                times.front(), times[times.size() / 2], open_s, omp_get_max_threads(), last.ids.size(), sampler.peak(), last.loss);
    for (std::size_t t = 0; t < last.ids.size(); ++t) std::printf("%s%d", t ? ", " : "", last.ids[t]);
    std::printf("], \"top\": [");
    for (std::size_t t = 0; t < last.top.size(); ++t) {
      std::printf("%s[", t ? ", " : "");
      for (std::size_t j = 0; j < last.top[t].size(); ++j)
        std::printf("%s{\"id\": %d, \"p\": %.9g}", j ? ", " : "", last.top[t][j].id, last.top[t][j].p);
      std::printf("]");
    }
    std::printf("]}\n");
    return 0;
  }
  const int vocab = (*model)->config().vocab;
  std::vector<int> ids;
  for (int t = 0; t < tokens; ++t) ids.push_back(static_cast<int>((static_cast<long long>(t) * 7919) % vocab));
  poslab::ForwardOptions o;
  o.keep_logits = true;  // T × V floats, 33 MB at T = 64: for the checksum
  o.precision = precision;
  std::vector<double> times;
  double checksum = 0.0;
  for (int r = 0; r < repeat + warmup; ++r) {  // the first run warms the page cache
    const auto start = std::chrono::steady_clock::now();
    auto result = poslab::run_forward(**model, ids, o);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!result) {
      std::fprintf(stderr, "model_bench: %s\n", result.error().c_str());
      return 1;
    }
    std::fprintf(stderr, "model_bench: forward %d: %.3f s\n", r, s);
    if (r >= warmup) times.push_back(s);
    checksum = result->logits.row(tokens - 1).head(16).cast<double>().sum();
  }
  std::sort(times.begin(), times.end());
  std::printf(
      "{\"forward_s_min\": %.4f, \"forward_s_median\": %.4f, \"open_s\": %.4f, \"threads\": %d, \"tokens\": %d, "
      "\"rss_anon_peak_mb\": %.1f, \"logits_checksum\": %.5f}\n",
      times.front(), times[times.size() / 2], open_s, omp_get_max_threads(), tokens, sampler.peak(), checksum);
  return 0;
}
