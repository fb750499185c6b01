#include "cli/interrupt.hpp"

namespace poslab {

namespace {
volatile std::sig_atomic_t g_interrupted = 0;
void on_interrupt(int) { g_interrupted = 1; }
}  // namespace

InterruptGuard::InterruptGuard() {
  g_interrupted = 0;
  previous_int_ = std::signal(SIGINT, on_interrupt);
  previous_term_ = std::signal(SIGTERM, on_interrupt);
}

InterruptGuard::~InterruptGuard() {
  std::signal(SIGINT, previous_int_);
  std::signal(SIGTERM, previous_term_);
}

bool InterruptGuard::interrupted() const { return g_interrupted != 0; }

}  // namespace poslab
