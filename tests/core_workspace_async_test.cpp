// Parser test: also built alone and run under ASan and UBSan (parser_tests in tests/CMakeLists.txt).
// The GUI's computation off its thread: the same results as in place, the previous results shown
// until the new ones arrive, and a newer setting cancelling a stale run rather than queueing it.
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "core/workspace.hpp"

using namespace poslab;

namespace {

std::string embeddings_file() { return std::string(POSLAB_ASSETS) + "/glove-wink-100d-10k.txt"; }

// A sentence of `words` tokens.
std::string long_sentence(int words) {
  static const char* kWords[] = {"the", "dog", "chased", "another", "cat", "across", "a", "green", "field"};
  std::string s;
  for (int k = 0; k < words; ++k) s += std::string(k ? " " : "") + kWords[k % 9];
  return s;
}

State cpu_state(const std::string& sentence) {
  State s;
  s.backend = Backend::Cpu;
  s.model.sentence = sentence;
  return s;
}

}  // namespace

TEST(WorkspaceAsync, GivesTheSameResultsAsComputingInPlace) {
  Workspace sync, async;
  ASSERT_TRUE(sync.load_embeddings(embeddings_file()).ok());
  ASSERT_TRUE(async.load_embeddings(embeddings_file()).ok());
  const State s = cpu_state("May the force be with you, always and everywhere.");
  ASSERT_TRUE(sync.update(s).ok());
  ASSERT_TRUE(async.update_async(s).ok());
  ASSERT_TRUE(async.wait().ok());
  ASSERT_NE(async.results(), nullptr);
  EXPECT_FALSE(async.computing());
  EXPECT_EQ(async.progress(), 1.0);
  const Results& a = *sync.results();
  const Results& b = *async.results();
  ASSERT_EQ(a.tokens.size(), b.tokens.size());
  for (std::size_t h = 0; h < a.attention.weights.size(); ++h) EXPECT_EQ(a.attention.weights[h], b.attention.weights[h]);
  EXPECT_EQ(a.attention.output, b.attention.output);
  EXPECT_EQ(b.backend_reason, "CPU (Eigen): --backend cpu");
  // Unchanged settings start nothing.
  const auto version = async.version();
  ASSERT_TRUE(async.update_async(s).ok());
  EXPECT_FALSE(async.computing());
  EXPECT_EQ(async.version(), version);
}

TEST(WorkspaceAsync, ThePreviousResultsStayUntilTheNewOnesArrive) {
  Workspace w;
  ASSERT_TRUE(w.load_embeddings(embeddings_file()).ok());
  ASSERT_TRUE(w.update_async(cpu_state("the dog chased another dog")).ok());
  ASSERT_TRUE(w.wait().ok());
  ASSERT_EQ(w.results()->tokens.size(), 5u);
  ASSERT_TRUE(w.update_async(cpu_state(long_sentence(300))).ok());
  // Installed only by a later call on this thread: until then the views keep the old ones.
  EXPECT_EQ(w.results()->tokens.size(), 5u);
  ASSERT_TRUE(w.wait().ok());
  EXPECT_EQ(w.results()->tokens.size(), 300u);
}

TEST(WorkspaceAsync, ANewerSettingCancelsTheStaleRun) {
  Workspace w;
  ASSERT_TRUE(w.load_embeddings(embeddings_file()).ok());
  ASSERT_TRUE(w.update_async(cpu_state(long_sentence(1500))).ok());
  ASSERT_TRUE(w.update_async(cpu_state(long_sentence(12))).ok());  // before the first could be taken
  ASSERT_TRUE(w.wait().ok());
  ASSERT_NE(w.results(), nullptr);
  EXPECT_EQ(w.results()->tokens.size(), 12u);
  EXPECT_EQ(w.version(), 1u);  // the stale run's results were never installed
}

TEST(WorkspaceAsync, AFailedRunKeepsThePreviousResultsAndSaysWhy) {
  Workspace w;
  ASSERT_TRUE(w.load_embeddings(embeddings_file()).ok());
  ASSERT_TRUE(w.update_async(cpu_state("the dog")).ok());
  ASSERT_TRUE(w.wait().ok());
  State bad = cpu_state("the dog");
  bad.model.heads = 3;  // does not divide 100
  ASSERT_TRUE(w.update_async(bad).ok());  // found out on the worker
  const Status s = w.wait();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("must divide"), std::string::npos) << s.error();
  EXPECT_EQ(w.results()->tokens.size(), 2u);
  const Status again = w.update_async(bad);  // not retried, still reported
  ASSERT_FALSE(again.ok());
  EXPECT_FALSE(w.computing());
}

TEST(Pipeline, ACancelledRunStopsAndSaysSo) {
  Workspace w;
  ASSERT_TRUE(w.load_embeddings(embeddings_file()).ok());
  std::atomic<bool> cancel{true};
  PipelineControl control;
  control.cancel = &cancel;
  double reported = -1.0;
  control.progress = [&](double f) { reported = f; };
  CpuBackend cpu;
  auto r = run_pipeline(ModelSettings{}, w.embeddings(), cpu, false, control);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), kCancelled);
  EXPECT_EQ(reported, -1.0);
  cancel = false;
  auto done = run_pipeline(ModelSettings{}, w.embeddings(), cpu, false, control);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(reported, 1.0);
}

// An export of one head's heatmap keeps only that head's T × T weights; the rest is the same.
TEST(Workspace, KeepsOnlyTheMatricesAskedFor) {
  Workspace all, one;
  ASSERT_TRUE(all.load_embeddings(embeddings_file()).ok());
  ASSERT_TRUE(one.load_embeddings(embeddings_file()).ok());
  State s = cpu_state(long_sentence(40));
  s.model.causal = true;
  MatricesKept keep;
  keep.head = 1;
  keep.scores = false;
  one.keep_matrices(keep);
  ASSERT_TRUE(all.update(s).ok());
  ASSERT_TRUE(one.update(s).ok());
  const AttentionOutput& a = all.results()->attention;
  const AttentionOutput& b = one.results()->attention;
  ASSERT_EQ(b.weights.size(), 5u);
  ASSERT_EQ(b.scores.size(), 5u);
  for (std::size_t h = 0; h < 5; ++h) {
    EXPECT_EQ(b.scores[h].size(), 0) << h;
    EXPECT_EQ(b.weights[h].size(), h == 1 ? 40 * 40 : 0) << h;
  }
  EXPECT_LE((a.weights[1] - b.weights[1]).cwiseAbs().maxCoeff(), 1e-6f);
  EXPECT_LE((a.context - b.context).cwiseAbs().maxCoeff(), 1e-5f);
  EXPECT_LE((a.output - b.output).cwiseAbs().maxCoeff(), 1e-5f);
}
