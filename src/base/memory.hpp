#pragma once
// Memory a run would take, estimated before it starts and checked against one budget: by default
// half of what the machine (or its cgroup) has, `--memory-limit` to change it. A run over budget is
// refused with what it would need and the option that lowers it, so that no std::bad_alloc ever
// reaches the user and no run drags the machine into swap.
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/result.hpp"

namespace poslab {

struct MemoryBudget {
  std::uint64_t bytes = 0;
  std::string source;  // "half of this machine's 23.4 GB", "--memory-limit 8G"
};

// The process's budget: the limit set last, else the default.
MemoryBudget memory_budget();
// `bytes` 0 returns to the default; `source` is said in messages.
void set_memory_limit(std::uint64_t bytes, const std::string& source);

// "8G", "512M", "1.5GB", "2048" (bytes), "64KiB": a size of at least 1 MB.
Result<std::uint64_t> parse_memory_size(const std::string& text);
// "12.6 GB", "512 MB", "3.1 kB": decimal units, three significant digits.
std::string format_bytes(double bytes);

// Ok when `need` bytes fit the budget; else an error: "<what> would need <need>, more than the
// memory limit of <budget> (<source>); <lower>, or raise --memory-limit".
Status check_memory(double need, const std::string& what, const std::string& lower);

// What tokenizing a text of `bytes` bytes may take at most, known before the work from the length
// alone: the normalized copies, the pieces, the ids and each token's text for display.
double tokenizing_bytes(std::size_t bytes);
// check_memory for tokenizing a sentence of `bytes` bytes ("tokenizing a sentence of 1.00 GB").
Status check_tokenizing_memory(std::size_t bytes);


}  // namespace poslab
