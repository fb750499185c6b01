#include "core/model/tasks.hpp"

#include <algorithm>

#include "base/random.hpp"

namespace poslab {

namespace {

int draw(Rng& rng, int first, int count) {
  return first + static_cast<int>(rng.next_u64() % static_cast<std::uint64_t>(count));
}

// One copy (or reverse) sequence of L symbols into ids/targets/mask (2L entries each).
void copy_sequence(const Task& task, int L, Rng& rng, int* ids, int* targets, std::uint8_t* mask) {
  std::vector<int> full(static_cast<std::size_t>(2 * L + 1));
  for (int t = 0; t < L; ++t) full[static_cast<std::size_t>(t)] = draw(rng, 0, task.symbols);
  full[static_cast<std::size_t>(L)] = separator_id(task);
  std::copy_n(full.begin(), L, full.begin() + L + 1);
  if (task.kind == TaskKind::Reverse) std::reverse(full.begin() + L + 1, full.end());
  for (int t = 0; t < 2 * L; ++t) {
    ids[t] = full[static_cast<std::size_t>(t)];
    targets[t] = full[static_cast<std::size_t>(t + 1)];
    mask[t] = t >= L ? 1 : 0;
  }
}

void recall_sequence(const Task& task, int n, Rng& rng, int* ids, int* targets, std::uint8_t* mask) {
  const int keys = task.symbols / 2, values = task.symbols - keys, queries = recall_queries(n);
  std::vector<int> full(static_cast<std::size_t>(2 * n + 1 + 2 * queries));
  for (int p = 0; p < n; ++p) {
    full[static_cast<std::size_t>(2 * p)] = draw(rng, 0, keys);
    full[static_cast<std::size_t>(2 * p + 1)] = draw(rng, keys, values);
  }
  full[static_cast<std::size_t>(2 * n)] = separator_id(task);
  for (int q = 0; q < queries; ++q) {
    const int key = full[static_cast<std::size_t>(2 * draw(rng, 0, n))];
    int answer = 0;
    for (int p = 0; p < n; ++p)
      if (full[static_cast<std::size_t>(2 * p)] == key) answer = full[static_cast<std::size_t>(2 * p + 1)];  // the last binding wins
    full[static_cast<std::size_t>(2 * n + 1 + 2 * q)] = key;
    full[static_cast<std::size_t>(2 * n + 2 + 2 * q)] = answer;
  }
  const int T = 2 * n + 2 * queries;
  for (int t = 0; t < T; ++t) {
    ids[t] = full[static_cast<std::size_t>(t)];
    targets[t] = full[static_cast<std::size_t>(t + 1)];
    mask[t] = t > 2 * n && (t - 2 * n) % 2 == 1 ? 1 : 0;  // at a query's key, its answer
  }
}

void write_sequence(const Task& task, int length, Rng& rng, int* ids, int* targets, std::uint8_t* mask) {
  if (task.kind == TaskKind::Recall) recall_sequence(task, length, rng, ids, targets, mask);
  else copy_sequence(task, length, rng, ids, targets, mask);
}

}  // namespace

std::string_view to_string(TaskKind kind) {
  switch (kind) {
    case TaskKind::Copy: return "copy";
    case TaskKind::Recall: return "recall";
    case TaskKind::Reverse: return "reverse";
  }
  return "copy";
}

Result<TaskKind> parse_task_kind(const std::string& name) {
  for (TaskKind k : kTaskKinds)
    if (name == to_string(k)) return k;
  return Error{"unknown task \"" + name + "\" (copy, recall, reverse)"};
}

Status validate(const Task& task) {
  const int least = task.kind == TaskKind::Recall ? 4 : 2;
  if (task.symbols < least || task.symbols > static_cast<int>(kTaskAlphabet.size()))
    return Error{"task: " + std::string(to_string(task.kind)) + " needs " + std::to_string(least) + " to " +
                 std::to_string(kTaskAlphabet.size()) + " symbols, not " + std::to_string(task.symbols)};
  return Ok{};
}

int vocab_size(const Task& task) { return task.symbols + 1; }
int separator_id(const Task& task) { return task.symbols; }

char token_character(const Task& task, int id) {
  return id == separator_id(task) ? kTaskSeparator : kTaskAlphabet[static_cast<std::size_t>(id)];
}

Result<std::vector<int>> task_ids(const Task& task, std::string_view text) {
  std::vector<int> ids;
  for (char ch : text) {
    int id = -1;
    for (int i = 0; i < vocab_size(task); ++i)
      if (token_character(task, i) == ch) id = i;
    if (id < 0) return Error{std::string("'") + ch + "' is not a token of this task"};
    ids.push_back(id);
  }
  return ids;
}

std::vector<std::uint8_t> scored_predictions(const Task& task, const std::vector<int>& ids) {
  const auto sep = std::find(ids.begin(), ids.end(), separator_id(task));
  if (sep == ids.end()) return {};
  const auto at = static_cast<std::size_t>(sep - ids.begin());
  std::vector<std::uint8_t> mask(ids.size(), 0);
  for (std::size_t t = at; t + 1 < ids.size(); ++t)
    mask[t] = task.kind != TaskKind::Recall ? 1 : static_cast<std::uint8_t>(t > at && (t - at - 1) % 2 == 0);
  return mask;
}

std::string scored_description(const Task& task) {
  switch (task.kind) {
    case TaskKind::Copy: return "the copy after |, as the task scores it";
    case TaskKind::Reverse: return "the reversed copy after |, as the task scores it";
    case TaskKind::Recall: break;
  }
  return "the answers after |, as the task scores them";
}

int recall_queries(int pairs) { return std::max(1, (pairs + 3) / 4); }

int sequence_tokens(const Task& task, int length) {
  return task.kind != TaskKind::Recall ? 2 * length : 2 * length + 2 * recall_queries(length);
}

int Batch::counted() const {
  int n = 0;
  for (std::uint8_t m : mask) n += m;
  return n;
}

Batch make_batch(const Task& task, int length, int sequences, std::uint64_t seed) {
  Batch b;
  b.sequences = sequences;
  b.tokens = sequence_tokens(task, length);
  const auto size = static_cast<std::size_t>(sequences) * static_cast<std::size_t>(b.tokens);
  b.ids.resize(size);
  b.targets.resize(size);
  b.mask.resize(size);
  for (int s = 0; s < sequences; ++s) {
    Rng rng(mix_seed(seed, static_cast<std::uint64_t>(s)));
    const std::size_t at = static_cast<std::size_t>(s) * static_cast<std::size_t>(b.tokens);
    write_sequence(task, length, rng, &b.ids[at], &b.targets[at], &b.mask[at]);
  }
  return b;
}

Batch make_mixed_batch(const Task& task, int shortest, int length, int sequences, std::uint64_t seed) {
  Batch b;
  b.sequences = sequences;
  b.tokens = sequence_tokens(task, length);
  const auto size = static_cast<std::size_t>(sequences) * static_cast<std::size_t>(b.tokens);
  b.ids.assign(size, separator_id(task));
  b.targets.assign(size, separator_id(task));
  b.mask.assign(size, 0);
  shortest = std::clamp(shortest, 1, length);
  for (int s = 0; s < sequences; ++s) {
    Rng rng(mix_seed(seed, static_cast<std::uint64_t>(s)));
    const int own = draw(rng, shortest, length - shortest + 1);
    const std::size_t at = static_cast<std::size_t>(s) * static_cast<std::size_t>(b.tokens);
    write_sequence(task, own, rng, &b.ids[at], &b.targets[at], &b.mask[at]);
  }
  return b;
}

}  // namespace poslab
