#include "base/memory.hpp"

#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <mutex>

namespace poslab {

namespace {

std::mutex g_mutex;
MemoryBudget g_limit;  // bytes 0: the default

// Physical memory, or the cgroup's limit when it is lower (a container, a CI runner).
double machine_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  double bytes = pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 8e9;
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(path);
    double limit = 0.0;
    if (in >> limit && limit > 0.0 && limit < bytes) bytes = limit;  // "max" reads as nothing
  }
  return bytes;
}

}  // namespace

MemoryBudget memory_budget() {
  {
    std::lock_guard lock(g_mutex);
    if (g_limit.bytes > 0) return g_limit;
  }
  const double machine = machine_bytes();
  return MemoryBudget{static_cast<std::uint64_t>(machine / 2.0), "half of this machine's " + format_bytes(machine)};
}

void set_memory_limit(std::uint64_t bytes, const std::string& source) {
  std::lock_guard lock(g_mutex);
  g_limit = MemoryBudget{bytes, source};
}

Result<std::uint64_t> parse_memory_size(const std::string& text) {
  const auto bad = [&] {
    return Error{"\"" + text + "\" is not a memory size (a number with K, M, G or T: 512M, 8G, 1.5GB)"};
  };
  std::size_t used = 0;
  double value = 0.0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return bad();
  }
  std::string unit = text.substr(used);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.size() > 1 && unit.back() == 'B') unit.pop_back();
  if (unit.size() > 1 && unit.back() == 'I') unit.pop_back();  // KiB, MiB: binary, as K and M are here
  double scale = 1.0;
  if (unit == "K") scale = 1024.0;
  else if (unit == "M") scale = 1024.0 * 1024.0;
  else if (unit == "G") scale = 1024.0 * 1024.0 * 1024.0;
  else if (unit == "T") scale = 1024.0 * 1024.0 * 1024.0 * 1024.0;
  else if (!unit.empty() && unit != "B") return bad();
  const double bytes = value * scale;
  if (!std::isfinite(bytes) || bytes < 1024.0 * 1024.0 || bytes > 1e18)
    return Error{"--memory-limit must be from 1M to 1000000T, not " + text};
  return static_cast<std::uint64_t>(bytes);
}

std::string format_bytes(double bytes) {
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
  int u = 0;
  while (bytes >= 1000.0 && u < 6) bytes /= 1000.0, ++u;
  char out[48];
  if (u == 0) std::snprintf(out, sizeof out, "%.0f bytes", bytes);
  else std::snprintf(out, sizeof out, bytes < 10.0 ? "%.2f %s" : bytes < 100.0 ? "%.1f %s" : "%.0f %s", bytes, units[u]);
  return out;
}

Status check_memory(double need, const std::string& what, const std::string& lower) {
  const MemoryBudget budget = memory_budget();
  if (std::isfinite(need) && need <= static_cast<double>(budget.bytes)) return Ok{};
  return Error{what + " would need " + format_bytes(need) + ", more than the memory limit of " + format_bytes(static_cast<double>(budget.bytes)) +
               " (" + budget.source + "); " + lower + ", or raise --memory-limit"};
}

// Per byte of text: a few copies of the text as it is normalized and split (byte-level BPE
// doubles a non-ASCII byte), up to one 4-byte id per byte (byte fallback), and for each token its
// text as a std::string (32 bytes and its characters) in the results.
double tokenizing_bytes(std::size_t bytes) { return 64.0 * static_cast<double>(bytes); }

Status check_tokenizing_memory(std::size_t bytes) {
  return check_memory(tokenizing_bytes(bytes), "tokenizing a sentence of " + format_bytes(static_cast<double>(bytes)),
                      "use a shorter sentence");
}

}  // namespace poslab
