// Training throughput of the C++ engine: forward, backward, clipping and AdamW on the default
// copy model (or the sizes given), in tokens read per second, after a few untimed steps. Prints
// one JSON line; bench/train_run.sh runs it beside bench/train_torch.py (the same model, batch
// and threads in PyTorch). Not a test.
//   train_bench [--encoding rope] [--width 64] [--heads 4] [--layers 2] [--mlp 0] [--length 32]
//               [--batch 32] [--steps 100] [--warmup-steps 10]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/train/trainer.hpp"

namespace {

using namespace poslab;

struct Args {
  TrainSettings settings = default_train_settings();
  int timed = 100, untimed = 10;
};

bool parse(int argc, char** argv, Args& a) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const char* value = argv[i + 1];
    if (key == "--encoding") {
      auto kind = parse_position_kind(value);
      if (!kind) return std::fprintf(stderr, "%s\n", kind.error().c_str()), false;
      a.settings.model.positions = *kind;
    } else if (key == "--width") a.settings.model.width = std::atoi(value);
    else if (key == "--heads") a.settings.model.heads = std::atoi(value);
    else if (key == "--layers") a.settings.model.layers = std::atoi(value);
    else if (key == "--mlp") a.settings.model.mlp_width = std::atoi(value);
    else if (key == "--length") a.settings.train_length = std::atoi(value);
    else if (key == "--batch") a.settings.batch = std::atoi(value);
    else if (key == "--steps") a.timed = std::atoi(value);
    else if (key == "--warmup-steps") a.untimed = std::atoi(value);
    else return std::fprintf(stderr, "unknown option %s\n", key.c_str()), false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!parse(argc, argv, a)) return 2;
  TrainSettings& s = a.settings;
  s.steps = a.timed + a.untimed;
  if (auto ok = validate(s); !ok) return std::fprintf(stderr, "%s\n", ok.error().c_str()), 2;
  Trainer<float> trainer(s, initial_params(s));
  // Batches made beforehand: the engine is timed, not the task generator.
  std::vector<Batch> batches;
  for (int i = 0; i < s.steps; ++i) batches.push_back(training_batch(s, i));
  std::vector<double> ms;
  for (int i = 0; i < s.steps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    trainer.step(batches[static_cast<std::size_t>(i)]);
    if (i >= a.untimed) ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  double total = 0.0;
  for (double m : ms) total += m;
  std::sort(ms.begin(), ms.end());
  const double tokens = static_cast<double>(s.batch) * sequence_tokens(s.task, s.train_length);
  std::printf("{\"engine\": \"poslab\", \"threads\": %d, \"tokens_per_step\": %.0f, \"step_ms_median\": %.3f, "
              "\"tokens_per_s\": %.0f}\n",
              omp_get_max_threads(), tokens, ms[ms.size() / 2], tokens * static_cast<double>(ms.size()) / (total / 1000.0));
  return 0;
}
