#pragma once
// Ctrl+C or SIGTERM during a long command (training, an animation) asks it to stop at its next
// check instead of ending the process at once, so that what it staged is removed and nothing
// half-written is left behind. One guard at a time; the handlers before it come back when it ends.
#include <csignal>

namespace poslab {

class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // Whether SIGINT or SIGTERM came since the guard began.
  bool interrupted() const;

 private:
  void (*previous_int_)(int);
  void (*previous_term_)(int);
};

}  // namespace poslab
