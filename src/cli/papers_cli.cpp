// poslab papers [check [ID…] [--model DIR] [--json F]] and poslab export paper --id ID …: the
// checks of core/papers, listed, run and drawn.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/papers_cli.hpp"
#include "core/papers/papers.hpp"
#include "figures/export.hpp"
#include "figures/papers.hpp"
#include "figures/train.hpp"
#include "gpu/headless.hpp"

namespace poslab {

namespace {

namespace fs = std::filesystem;

Status parse_command_flags(ArgParser& p, const std::vector<Flag>& flags, const std::string& command) {
  return p.parse(flags, nullptr, [&](std::string_view name) { return "unknown option \"" + std::string(name) + "\" for " + command; },
                 ParseOrder::NamesFirst);
}

// --model DIR: the folder the model checks read.
Status check_model_folder(const std::optional<std::string>& model) {
  if (model && !fs::is_directory(*model)) return Error{"--model: no model folder at " + *model};
  return Ok{};
}

const PaperCheck* check_named(std::string_view id) { return find_paper_check(id); }

std::string unknown_check(std::string_view id) {
  return "unknown check \"" + std::string(id) + "\" (valid: " + paper_check_ids() + ")";
}

int list_checks() {
  for (const PaperCheck& c : paper_checks()) {
    std::printf("%s\n  %s, %s\n  %s\n  needs: %s\n", std::string(c.id).c_str(), std::string(c.paper).c_str(),
                std::string(c.where).c_str(), std::string(c.what).c_str(), std::string(needs_words(c.needs)).c_str());
  }
  return 0;
}

// What `poslab papers check` was asked for besides the checks named.
struct ChecksArgs {
  std::optional<std::string> model;
  std::string json;
};

std::vector<Flag> checks_flags(ChecksArgs& a) {
  return {text_flag("--model", "DIR", "a model folder, for the checks that need one", a.model),
          text_flag("--json", "FILE",
                    "the results as a list of objects with the keys id, paper, where, quantity, published, measured, "
                    "tolerance, pass (one per comparison)",
                    a.json)};
}

// What `poslab export paper` was asked for.
struct PaperArgs {
  std::string id;
  std::optional<std::string> model;
  ExportRequest request;
};

std::vector<Flag> paper_flags(PaperArgs& a) {
  std::vector<Flag> flags = {
      needed({"--id", "ID", "the check drawn (poslab papers lists them)",
              [&a](std::string_view v) -> Status {
                if (!find_paper_check(v)) return Error{unknown_check(v)};
                a.id = std::string(v);
                return Ok{};
              }},
             "export paper needs a check: --id ID (" + paper_check_ids() + ")"),
      text_flag("--model", "DIR", "a model folder, for a check that needs one", a.model),
  };
  add_figure_outputs(flags, a.request, "nothing to write: give --png FILE, --svg FILE and/or --csv FILE");
  return flags;
}

}  // namespace

FlagTable papers_check_flag_table() { return flag_table(checks_flags); }
FlagTable export_paper_flag_table() { return flag_table(paper_flags); }

int run_papers(ArgParser& p) {
  if (p.done()) return list_checks();
  return usage_error("papers: unknown command \"" + std::string(p.args[p.i]) + "\" (poslab papers lists the checks; poslab papers check [ID…] runs them)");
}

int run_papers_check(ArgParser& p) {
  std::vector<const PaperCheck*> chosen;
  while (!p.done() && !p.args[p.i].starts_with("-")) {
    const PaperCheck* c = check_named(p.args[p.i]);
    if (!c) return usage_error(unknown_check(p.args[p.i]));
    chosen.push_back(c);
    p.next();
  }
  ChecksArgs a;
  if (auto s = parse_command_flags(p, checks_flags(a), "papers check"); !s) return parse_error(p, s);
  const std::optional<std::string>& model = a.model;
  const std::string& json = a.json;
  if (auto s = check_model_folder(model); !s) return usage_error(s.error());
  if (chosen.empty())
    for (const PaperCheck& c : paper_checks()) chosen.push_back(&c);
  OutputPlan plan;
  plan.add("--json", json);
  if (model) plan_folder_input(plan, "--model", *model);
  if (const int code = prepare_outputs(plan)) return code;
  std::vector<PaperCheckResult> results;
  bool all_made = true;
  for (const PaperCheck* c : chosen) {
    if (c->needs == PaperNeeds::Model && !model) {
      std::printf("%s: skipped (needs --model DIR)\n", std::string(c->id).c_str());
      continue;
    }
    PaperInputs in{shipped_models_folder(), model.value_or(""), false, nullptr, {}};
    auto outcome = run_paper_check(*c, in);
    if (!outcome) {
      std::fprintf(stderr, "%s: could not be made: %s\n", std::string(c->id).c_str(), outcome.error().c_str());
      all_made = false;
      continue;
    }
    results.push_back(std::move(outcome->result));
  }
  std::fputs(papers_table(results).c_str(), stdout);
  if (!json.empty()) {
    if (auto s = plan.write(json, papers_json(results)); !s) return runtime_error(s.error());
    if (auto s = plan.commit(); !s) return runtime_error(s.error());
    std::printf("wrote %s\n", json.c_str());
  }
  const bool all = std::all_of(results.begin(), results.end(), [](const PaperCheckResult& r) { return r.pass(); });
  return all && all_made ? 0 : kRuntimeError;
}

int run_export_paper(ArgParser& p) {
  PaperArgs a;
  if (auto s = parse_command_flags(p, paper_flags(a), "export paper"); !s) return parse_error(p, s);
  const std::string& id = a.id;
  const std::optional<std::string>& model = a.model;
  ExportRequest& request = a.request;
  if (auto s = check_model_folder(model); !s) return usage_error(s.error());
  const PaperCheck& check = *find_paper_check(id);
  if (check.needs == PaperNeeds::Model && !model) return usage_error("check " + id + " needs --model DIR");
  OutputPlan plan;
  plan_request(request, plan);
  if (model) plan_folder_input(plan, "--model", *model);
  if (const int code = prepare_outputs(plan)) return code;
  std::unique_ptr<gpu::HeadlessContext> context;
  if (!request.png.empty()) {
    auto created = gpu::HeadlessContext::create();
    if (!created) return runtime_error("PNG export needs OpenGL: " + created.error());
    context = std::move(*created);
  }
  PaperInputs in{shipped_models_folder(), model.value_or(""), true, nullptr, {}};
  auto outcome = run_paper_check(check, in);
  if (!outcome) return runtime_error(outcome.error());
  const plot::Figure figure = paper_figure(check, outcome->panels);
  const std::string csv = papers_csv(outcome->panels);
  return finish_export(figure, csv, request, plan);
}

}  // namespace poslab
