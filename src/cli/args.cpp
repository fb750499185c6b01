#include "cli/args.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "core/options.hpp"
#include "core/tour/tour.hpp"

namespace poslab {

int usage_error(const std::string& message) {
  std::fprintf(stderr, "poslab: %s\nTry 'poslab --help'.\n", message.c_str());
  return kUsageError;
}

int runtime_error(const std::string& message) {
  std::fprintf(stderr, "poslab: error: %s\n", message.c_str());
  return kRuntimeError;
}

int parse_error(const ArgParser& p, const Status& s) {
  return p.file_failed ? runtime_error(s.error()) : usage_error(s.error());
}

int prepare_outputs(OutputPlan& plan) {
  const OutputPlan::Problem problem = plan.prepare();
  if (problem.exit_code == 0) return 0;
  return problem.exit_code == kUsageError ? usage_error(problem.message) : runtime_error(problem.message);
}

int finish_export(const plot::Figure& figure, const std::string& csv, const ExportRequest& request, OutputPlan& plan,
                  const std::function<Status(OutputPlan&)>& extra) {
  std::vector<std::string> written;
  if (auto s = write_export(&figure, &csv, request, plan, written); !s) return runtime_error(s.error());
  if (extra)
    if (auto s = extra(plan); !s) return runtime_error(s.error());
  if (auto s = plan.commit(); !s) return runtime_error(s.error());
  for (const auto& w : written) std::printf("wrote %s\n", w.c_str());
  return 0;
}

void plan_folder_input(OutputPlan& plan, const std::string& flag, const std::filesystem::path& folder) {
  plan.add_input(flag, folder);
  std::error_code ec;
  if (folder.empty() || !std::filesystem::is_directory(folder, ec)) return;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".json") || name.ends_with(".safetensors") || name.ends_with(".model") || name.ends_with(".txt"))
      plan.add_input(flag, entry.path());
  }
}

void plan_state_inputs(OutputPlan& plan, const State& state) {
  std::error_code ec;
  const bool folder = !state.embeddings_path.empty() && std::filesystem::is_directory(state.embeddings_path, ec);
  plan_folder_input(plan, folder ? "--model" : "--embeddings", state.embeddings_path);
  plan.add_input("--vocab", state.vocab_path);
  plan.add_input("--learned-file", state.model.learned_file);
  plan.add_input("--text", state.view.probe_text);
}

Result<Language> parse_language(std::string_view v) {
  if (v == "en") return Language::En;
  if (v == "ja") return Language::Ja;
  return Error{"--lang expects en or ja, got \"" + std::string(v) + "\""};
}

std::vector<Flag> figure_file_flags(ExportRequest& request) {
  return {text_flag("--png", "FILE", "the figure as PNG", request.png), text_flag("--svg", "FILE", "the figure as SVG", request.svg),
          text_flag("--csv", "FILE", "the figure's data as CSV", request.csv)};
}

void add_figure_outputs(std::vector<Flag>& flags, ExportRequest& request, std::string nothing) {
  for (Flag& f : figure_file_flags(request)) flags.push_back(std::move(f));
  flags.push_back(checkpoint([&request, nothing = std::move(nothing)]() -> Status {
    if (request.png.empty() && request.svg.empty() && request.csv.empty()) return Error{nothing};
    return Ok{};
  }));
}

Flag scale_flag(float& into) {
  return {"--scale", "N", "the PNG's pixels per point (1 to 8)", [&into](std::string_view v) -> Status {
            auto scale = parse_integer(v, "--scale", 1, 8);
            if (!scale) return Error{scale.error()};
            into = static_cast<float>(*scale);
            return Ok{};
          }};
}

Flag language_flag(Language& into) {
  return {"--lang", "en|ja", "the tour's language: English or Japanese (en)", [&into](std::string_view v) -> Status {
            auto language = parse_language(v);
            if (!language) return Error{language.error()};
            into = *language;
            return Ok{};
          }};
}

Flag tour_step_flag(int& into) {
  const auto steps = static_cast<long long>(tour_steps().size());
  return {"--step", "N", "the tour's step (1 to " + std::to_string(steps) + ")", [steps, &into](std::string_view v) -> Status {
            auto step = parse_integer(v, "--step", 1, steps);
            if (!step) return Error{step.error()};
            into = static_cast<int>(*step) - 1;
            return Ok{};
          }};
}

}  // namespace poslab
