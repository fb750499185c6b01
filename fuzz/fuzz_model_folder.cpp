// libFuzzer target: a whole model folder at once. The input is config.json's text, a zero byte,
// then model.safetensors' bytes, so that a mutation can make the two disagree (a layer count the
// tensors do not hold, a vocabulary larger than the embedding table, a dtype against a shape),
// which fuzzing either file alone never does. Each input is written to a folder of its own
// process, opened as a checkpoint and, when it opens, run forward over a few tokens, and read by
// the training folder reader too. The memory budget is small, so a size the files cannot justify
// must be refused before it is allocated (libFuzzer's -rss_limit_mb fails the run otherwise).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/memory.hpp"
#include "core/model/forward.hpp"
#include "core/train/folder.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path& folder() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("poslab-fuzz-model-" + std::to_string(::getpid()));
    fs::create_directories(d);
    poslab::set_memory_limit(256ull << 20, "the fuzzer's 256 MB");
    return d;
  }();
  return dir;
}

void write(const fs::path& p, const char* data, std::size_t size) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(data, static_cast<std::streamsize>(size));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const char* bytes = reinterpret_cast<const char*>(data);
  const void* zero = std::memchr(bytes, 0, size);
  if (!zero) return 0;
  const std::size_t config_size = static_cast<std::size_t>(static_cast<const char*>(zero) - bytes);
  write(folder() / "config.json", bytes, config_size);
  write(folder() / "model.safetensors", bytes + config_size + 1, size - config_size - 1);

  if (auto model = poslab::Checkpoint::open(folder())) {
    const int vocab = (*model)->config().vocab;
    std::vector<int> ids = {0, vocab > 1 ? 1 : 0, 0, vocab > 2 ? 2 : 0};
    poslab::ForwardOptions options;
    options.all_layers = true;
    options.top_k = 2;
    (void)poslab::run_forward(**model, ids, options);
    options.intervention.positions_off = true;
    options.intervention.position_shift = 1;
    (void)poslab::run_forward(**model, ids, options);
  }
  (void)poslab::load_model_folder(folder());
  return 0;
}
