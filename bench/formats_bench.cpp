// Loading real embeddings, timed: the full GloVe 6B 100-d table as text (341k × 100, about
// 296 MB) and a 2.5 GB safetensors checkpoint opened with 16 rows gathered. Run by
// bench/formats_run.sh, which makes both files and times gensim's loader beside this.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "core/formats/embeddings.hpp"
#include "base/files.hpp"
#include "core/formats/safetensors.hpp"

namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// Times `load` (which returns a Result<EmbeddingTable>) once per iteration. Freeing the table is
// not part of loading it (gensim's timing keeps its table too).
template <typename Load>
void time_loading(benchmark::State& state, Load load) {
  for (auto _ : state) {
    auto table = load();
    if (!table) {
      state.SkipWithError(table.error().c_str());
      return;
    }
    benchmark::DoNotOptimize(table->size());
    state.counters["words"] = table->size();
    state.PauseTiming();
    table = poslab::Error{""};
    state.ResumeTiming();
  }
}

void BM_ParseGloveText(benchmark::State& state) {
  const std::string path = env("POSLAB_BENCH_GLOVE");
  time_loading(state, [&] { return poslab::load_text_embeddings(path); });
}
BENCHMARK(BM_ParseGloveText)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

// The same parse over a memory mapping of the file (how PosLab read text files before it read
// them piece by piece with pread, which turns a file truncated mid-load into an error instead of
// a SIGBUS): the cost of that safety, side by side.
void BM_ParseGloveTextMapped(benchmark::State& state) {
  const std::string path = env("POSLAB_BENCH_GLOVE");
  time_loading(state, [&]() -> poslab::Result<poslab::EmbeddingTable> {
    auto mapped = poslab::MappedFile::map(path);
    if (!mapped) return poslab::Error{mapped.error()};
    return poslab::parse_text_embeddings(mapped->bytes(), path);
  });
}
BENCHMARK(BM_ParseGloveTextMapped)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

void BM_SafetensorsOpenAndGather16(benchmark::State& state) {
  const std::string path = env("POSLAB_BENCH_SAFETENSORS");
  std::vector<std::int64_t> ids;
  for (int k = 0; k < 16; ++k) ids.push_back(static_cast<std::int64_t>(k) * 7919 + 13);
  for (auto _ : state) {
    auto file = poslab::SafetensorsFile::open(path);
    if (!file) {
      state.SkipWithError(file.error().c_str());
      return;
    }
    auto tensor = file->embedding_tensor("");
    if (!tensor) {
      state.SkipWithError(tensor.error().c_str());
      return;
    }
    auto rows = file->rows(**tensor, ids);
    if (!rows) {
      state.SkipWithError(rows.error().c_str());
      return;
    }
    benchmark::DoNotOptimize(rows->sum());
  }
}
BENCHMARK(BM_SafetensorsOpenAndGather16)->Unit(benchmark::kMillisecond)->Iterations(20)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
