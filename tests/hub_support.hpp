#pragma once
// The small Hub of tests/hub/fake_hub.py, run for a test: started on 127.0.0.1 (two ports, the
// Hub and its "CDN"), waited for until both listen, stopped (by its own pid) when the test ends.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "shell.hpp"

namespace poslab::test_support {

class FakeHub {
 public:
  // `options`: extra serve flags ("--cut-after 40000", "--token T", "--rate 200000").
  explicit FakeHub(std::filesystem::path dir, std::vector<std::string> options = {}) : dir_(std::move(dir)) {
    std::filesystem::create_directories(dir_ / "root");
    std::vector<std::string> args = {"/usr/bin/python3", POSLAB_FAKE_HUB, "serve", (dir_ / "root").string(),
                                     "--ports", (dir_ / "ports").string(), "--log", log_path().string()};
    args.insert(args.end(), options.begin(), options.end());
    pid_ = ::fork();
    if (pid_ == 0) {
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    // Wait for the condition (both ports written), bounded only against a server that never starts.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!std::filesystem::exists(dir_ / "ports") && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::ifstream in(dir_ / "ports");
    in >> hub_port_ >> cdn_port_;
  }
  ~FakeHub() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  FakeHub(const FakeHub&) = delete;
  FakeHub& operator=(const FakeHub&) = delete;

  bool running() const { return hub_port_ > 0; }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(hub_port_); }
  int cdn_port() const { return cdn_port_; }
  std::filesystem::path log_path() const { return dir_ / "requests.log"; }

  // FOLDER's files as a new commit of REPO; `flags`: "--tag step10", "--ref main", "--gated". Its hash.
  std::string publish(const std::string& repo, const std::filesystem::path& folder, const std::string& flags = "") const {
    const auto r = run_shell("/usr/bin/python3 '" + std::string(POSLAB_FAKE_HUB) + "' publish '" + (dir_ / "root").string() + "' " +
                             repo + " '" + folder.string() + "' " + flags);
    std::string commit = r.output;
    while (!commit.empty() && (commit.back() == '\n' || commit.back() == '\r')) commit.pop_back();
    return commit;
  }
  // Names the repository's listing adds beyond its files (a hostile Hub).
  void list_extra_names(const std::string& repo, const std::vector<std::string>& names) const {
    std::ofstream(dir_ / "root" / repo / "extra_siblings.json") << nlohmann::json(names).dump();
  }

  // Every request the servers answered so far, oldest first.
  std::vector<nlohmann::json> requests() const {
    std::vector<nlohmann::json> out;
    std::ifstream in(log_path());
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) out.push_back(nlohmann::json::parse(line));
    return out;
  }
  std::size_t request_count() const { return requests().size(); }

 private:
  std::filesystem::path dir_;
  pid_t pid_ = -1;
  int hub_port_ = 0, cdn_port_ = 0;
};

}  // namespace poslab::test_support
