#pragma once
// Synthetic tasks made on the fly from a seed. Tokens are single characters: `symbols` data
// symbols "a", "b", … (then "A" … "Z", "0" … "9"; at most 62) with ids 0 … symbols − 1, and the
// separator "|" with id `symbols`; the vocabulary has symbols + 1 tokens.
//
//   copy, length L:   x₀ … x_{L−1} | x₀ … x_{L−1}   (x uniform over the symbols)
//       the model reads the first 2L tokens (the last copied token is only a target); the
//       loss counts the L predictions of the copy, made at positions L … 2L − 1.
//   reverse, length L: x₀ … x_{L−1} | x_{L−1} … x₀   (as copy, the symbols in reverse order)
//   recall, length n: k₀ v₀ k₁ v₁ … k_{n−1} v_{n−1} | q₀ a₀ q₁ a₁ … q_{m−1} a_{m−1}
//       keys from the first half of the symbols, values from the second half, both drawn with
//       replacement; m = ⌈n/4⌉ queries, each the key of a uniformly chosen pair, and its answer
//       the value of that key's last pair before "|". The model reads 2n + 2m tokens (the last
//       answer is only a target); the loss counts the m answers, predicted at the queries.
//
// Exact match: a sequence counts when every target token is the model's argmax.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace poslab {

enum class TaskKind { Copy, Recall, Reverse };
// Every task, in the order the Train tab offers them.
inline constexpr TaskKind kTaskKinds[] = {TaskKind::Copy, TaskKind::Recall, TaskKind::Reverse};

struct Task {
  TaskKind kind = TaskKind::Copy;
  int symbols = 16;
  bool operator==(const Task&) const = default;
};

// The characters symbols are drawn from, in id order.
inline constexpr std::string_view kTaskAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
inline constexpr char kTaskSeparator = '|';

std::string_view to_string(TaskKind kind);  // "copy", "recall", "reverse"
Result<TaskKind> parse_task_kind(const std::string& name);
// At least 2 symbols (4 for recall: two keys, two values), at most the alphabet.
Status validate(const Task& task);

int vocab_size(const Task& task);
int separator_id(const Task& task);
char token_character(const Task& task, int id);
// The ids of a text made of the task's characters (a test's convenience); other characters are errors.
Result<std::vector<int>> task_ids(const Task& task, std::string_view text);

// Which predictions of a text the task scores, as training counts them: mask[t] says whether the
// prediction of ids[t + 1] made at position t counts (copy: those from the first separator on;
// recall: those made at the queries, every other token after it). Empty when the text has no
// separator, since then the task says nothing about it.
std::vector<std::uint8_t> scored_predictions(const Task& task, const std::vector<int>& ids);
// What scored_predictions counts, for a note beside the loss: "the copy after |", …
std::string scored_description(const Task& task);

// Queries after the pairs of a recall sequence of n pairs: ⌈n/4⌉.
int recall_queries(int pairs);
// The longest task length any file may name (a trained model's poslab_train_length, a curve's
// lengths): far beyond what memory allows, and small enough that sequence_tokens stays an int.
constexpr int kMaxTaskLength = 1 << 24;
// Tokens the model reads for a task of length L (copy, reverse: 2L; recall: 2L + 2·recall_queries(L)).
int sequence_tokens(const Task& task, int length);

// `sequences` sequences of one length, row-major: ids[s·T + t] is read at position t of sequence
// s, targets[s·T + t] is the token that follows it, and mask says whether that prediction counts.
struct Batch {
  int sequences = 0, tokens = 0;
  std::vector<int> ids, targets;
  std::vector<std::uint8_t> mask;
  int counted() const;  // predictions the loss counts
};

// Sequence i of the batch depends only on (seed, i): however the batch is later split between
// the cores, its sequences are the same.
Batch make_batch(const Task& task, int length, int sequences, std::uint64_t seed);
// As make_batch, but sequence i has a length drawn from [shortest, length] (seeded by (seed, i)),
// written from position 0; the tokens after it are separators whose predictions do not count.
// A causal model never sees them from the sequence, so this trains every length up to `length`
// at once (Kazemnejad et al. 2023 train on all lengths up to L).
Batch make_mixed_batch(const Task& task, int shortest, int length, int sequences, std::uint64_t seed);

}  // namespace poslab
