// poslab.papers from Python: the checks of docs/PAPERS.md run as `poslab papers check` runs them,
// their results as the JSON of `papers check --json` (a list of objects with the keys id, paper,
// where, quantity, published, measured, tolerance, pass).
#include <filesystem>

#include "core/papers/papers.hpp"
#include "figures/train.hpp"
#include "python/python_api.hpp"

namespace poslab::python {

std::string papers_check(const std::vector<std::string>& ids, const std::optional<std::string>& model) {
  std::vector<const PaperCheck*> chosen;
  for (const std::string& id : ids) {
    const PaperCheck* c = find_paper_check(id);
    if (!c) throw Failure(ErrorKind::Value, "unknown check \"" + id + "\" (valid: " + paper_check_ids() + ")");
    chosen.push_back(c);
  }
  if (chosen.empty())
    for (const PaperCheck& c : paper_checks()) chosen.push_back(&c);
  std::error_code ec;
  if (model && !std::filesystem::is_directory(*model, ec))
    throw Failure(ErrorKind::FileNotFound, "model=" + *model + ": no such model folder");
  std::vector<PaperCheckResult> results;
  for (const PaperCheck* c : chosen) {
    if (c->needs == PaperNeeds::Model && !model) continue;  // a model's check only with one
    PaperInputs in{shipped_models_folder(), model.value_or(""), false, nullptr, {}};
    auto outcome = run_paper_check(*c, in);
    if (!outcome) throw Failure(ErrorKind::Runtime, std::string(c->id) + ": " + outcome.error());
    results.push_back(std::move(outcome->result));
  }
  return papers_json(results);
}

std::vector<std::string> papers_list() {
  std::vector<std::string> ids;
  for (const PaperCheck& c : paper_checks()) ids.emplace_back(c.id);
  return ids;
}

}  // namespace poslab::python
