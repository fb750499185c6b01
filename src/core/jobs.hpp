#pragma once
// The worker threads of runs started one after another (a newer one cancels the older): the list
// keeps them until they end, so that none is left running or joined twice.
#include <memory>
#include <vector>

namespace poslab {

// Joins and drops the finished jobs (every job with `all`, after they were told to stop). A Job
// has `std::atomic<bool> done` and `std::thread thread`.
template <class Job>
void reap_jobs(std::vector<std::unique_ptr<Job>>& jobs, bool all) {
  for (auto it = jobs.begin(); it != jobs.end();) {
    if (all || (*it)->done) {
      if ((*it)->thread.joinable()) (*it)->thread.join();
      it = jobs.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace poslab
