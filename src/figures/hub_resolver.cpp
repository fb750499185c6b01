// A --model ORG/NAME resolved by fetching into Hugging Face's cache, reported on stderr.
#include "figures/hub_resolver.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "core/model_resolver.hpp"
#include "hub/resolve.hpp"

namespace poslab {

StderrProgress::StderrProgress() : terminal(::isatty(2) != 0) {}

void StderrProgress::operator()(const hub::DownloadProgress& p) {
  if (terminal) {
    // Redrawn ten times a second at most, and once more when a file is done.
    const auto now = std::chrono::steady_clock::now();
    if (now - drawn < std::chrono::milliseconds(100) && p.files_done == files_reported) return;
    drawn = now;
    files_reported = p.files_done;
    const double share = p.total_bytes ? static_cast<double>(p.done_bytes) / static_cast<double>(p.total_bytes) : 1.0;
    const int filled = static_cast<int>(share * 30.0 + 0.5);
    std::fprintf(stderr, "\r  [%.*s%.*s] %3.0f%%  %s / %s  %-40.40s", filled, "##############################", 30 - filled,
                 "                              ", 100.0 * share, hub::format_bytes(p.done_bytes).c_str(),
                 hub::format_bytes(p.total_bytes).c_str(), p.file.c_str());
    return;
  }
  if (p.files_done == files_reported) return;
  files_reported = p.files_done;
  std::fprintf(stderr, "poslab: downloaded %d/%d files of %s, %s of %s\n", p.files_done, p.files_total, p.model.text().c_str(),
               hub::format_bytes(p.done_bytes).c_str(), hub::format_bytes(p.total_bytes).c_str());
}

void StderrProgress::finished() {
  if (terminal) std::fprintf(stderr, "\n");
  files_reported = 0;
}

// After a bar drawn in place, a new line first.
void say_waiting(const std::string& what) {
  static std::mutex m;  // two downloads may wait at once
  std::lock_guard lock(m);
  std::fprintf(stderr, "%sposlab: waiting: %s\n", ::isatty(2) ? "\n" : "", what.c_str());
}

namespace {

void say_plan(const hub::FetchPlan& plan) {
  int downloads = 0;
  for (const auto& f : plan.files) downloads += !f.have_blob;
  std::fprintf(stderr, "poslab: downloading %s (commit %s) into %s: %d file%s, %s\n", plan.model.text().c_str(),
               plan.commit.substr(0, 12).c_str(), hub::HubSettings::from_environment().cache.root().c_str(), downloads,
               downloads == 1 ? "" : "s", hub::format_bytes(plan.bytes_to_download()).c_str());
}

}  // namespace

void install_command_line_resolver() {
  auto progress = std::make_shared<StderrProgress>();
  hub::NameResolution r;
  r.starting = say_plan;
  r.progress = [progress](const hub::DownloadProgress& p) { (*progress)(p); };
  r.finished = [progress] { progress->finished(); };
  r.note = [](const std::string& note) { std::fprintf(stderr, "poslab: note: %s\n", note.c_str()); };
  r.waiting = say_waiting;
  install_model_resolver([r](std::string_view text) { return hub::resolve_model_argument(text, r); });
}

}  // namespace poslab
