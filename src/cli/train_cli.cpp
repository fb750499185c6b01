#include "cli/train_cli.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "core/formats/files.hpp"
#include "core/options.hpp"
#include "core/train/extrapolation.hpp"
#include "gpu/headless.hpp"
#include "figures/export.hpp"
#include "figures/train.hpp"
#include "cli/args.hpp"

namespace poslab {

namespace {

namespace fs = std::filesystem;

// The longest evaluation: 4,096 symbols (8,192 tokens) per copy sequence.
constexpr int kMaxEvalLength = 4096;

// "--name value" and "--name=value" pairs; every option of these commands takes a value.
struct Options {
  std::map<std::string, std::string> values;
  std::string error;

  static Options parse(const std::vector<std::string_view>& args, std::initializer_list<std::string_view> known,
                       const std::string& command) {
    Options o;
    for (std::size_t i = 0; i < args.size(); ++i) {
      const ParsedOption opt = split_option(args[i]);
      std::string_view name = opt.name, value = opt.inline_value;
      const bool inline_value = opt.has_inline;
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        o.error = "unknown option \"" + std::string(name) + "\" for " + command;
        return o;
      }
      if (!inline_value) {
        if (i + 1 >= args.size()) {
          o.error = std::string(name) + " needs a value";
          return o;
        }
        value = args[++i];
      }
      o.values[std::string(name)] = std::string(value);
    }
    return o;
  }
  const std::string* get(const std::string& name) const {
    auto it = values.find(name);
    return it == values.end() ? nullptr : &it->second;
  }
};

// Applies an integer option when given; returns the error message, or empty.
std::string take_integer(const Options& o, const std::string& name, long long lo, long long hi, int& into) {
  if (const std::string* v = o.get(name)) {
    auto n = parse_integer(*v, name, lo, hi);
    if (!n) return n.error();
    into = static_cast<int>(*n);
  }
  return {};
}

std::string take_number(const Options& o, const std::string& name, double lo, double hi, double& into) {
  if (const std::string* v = o.get(name)) {
    auto x = parse_number(*v, name);
    if (!x) return x.error();
    if (!(*x >= lo && *x <= hi)) return name + " is out of range (" + *v + "; " + std::to_string(lo) + " to " + std::to_string(hi) + ")";
    into = *x;
  }
  return {};
}

void print_rows(const std::vector<EvalRow>& rows) {
  std::printf("%8s %8s %12s %9s\n", "length", "tokens", "loss", "accuracy");
  for (const EvalRow& r : rows) {
    if (!r.supported) std::printf("%8d %8d %12s %9s  (past the learned table)\n", r.length, r.tokens, "-", "-");
    else std::printf("%8d %8d %12.5f %8.1f%%\n", r.length, r.tokens, r.loss, 100.0 * r.accuracy);
  }
}

Result<TrainedModel> open_trained(const std::string& dir, const std::string& task) {
  auto model = load_model_folder(dir);
  if (!model) return Error{model.error()};
  if (!task.empty() && task != to_string(model->task.kind))
    return Error{dir + " was trained on the " + std::string(to_string(model->task.kind)) + " task, not " + task};
  return model;
}

}  // namespace

int run_train(const std::vector<std::string_view>& args) {
  const Options o = Options::parse(args,
                                   {"--task", "--encoding", "--layers", "--width", "--heads", "--mlp", "--train-length", "--steps",
                                    "--batch", "--lr", "--warmup", "--seed", "--vocab", "--rope-theta", "--partial-rotary",
                                    "--rope-fraction", "--out", "--log"},
                                   "train");
  if (!o.error.empty()) return usage_error(o.error);
  TrainSettings s = default_train_settings();
  if (const std::string* v = o.get("--task")) {
    auto kind = parse_task_kind(*v);
    if (!kind) return usage_error("--task: " + kind.error());
    s.task.kind = *kind;
  }
  if (const std::string* v = o.get("--encoding")) {
    auto kind = parse_position_kind(*v);
    if (!kind) return usage_error("--encoding: " + kind.error());
    s.model.positions = *kind;
  }
  const std::string* out = o.get("--out");
  if (!out) return usage_error("train needs a folder to write the model to: --out DIR");
  int seed = 1;
  std::string error;
  for (const std::string& e :
       {take_integer(o, "--layers", 1, 4, s.model.layers), take_integer(o, "--width", 32, 256, s.model.width),
        take_integer(o, "--heads", 1, 256, s.model.heads), take_integer(o, "--mlp", 1, 4096, s.model.mlp_width),
        take_integer(o, "--train-length", 1, 1024, s.train_length), take_integer(o, "--steps", 1, 1000000, s.steps),
        take_integer(o, "--batch", 1, 4096, s.batch), take_integer(o, "--warmup", 0, 1000000, s.warmup),
        take_integer(o, "--seed", 0, 2147483647, seed),
        take_integer(o, "--vocab", 2, static_cast<long long>(kTaskAlphabet.size()), s.task.symbols),
        take_number(o, "--lr", 1e-7, 1.0, s.lr), take_number(o, "--rope-theta", 1.0, 1e9, s.model.rope_theta),
        take_number(o, "--partial-rotary", 0.0, 1.0, s.model.partial_rotary),
        take_number(o, "--rope-fraction", 0.0, 1.0, s.model.rope_fraction)})
    if (error.empty()) error = e;
  if (!error.empty()) return usage_error(error);
  s.seed = static_cast<std::uint64_t>(seed);
  if (auto ok = check_app_limits(resolved_model(s)); !ok) return usage_error(ok.error());
  if (auto ok = validate(s); !ok) return usage_error(ok.error());

  // A log that could not be written is found out before the minutes of training, not after.
  if (const std::string* f = o.get("--log")) {
    const fs::path parent = fs::path(*f).parent_path();
    std::error_code ec;
    if (!parent.empty() && !fs::is_directory(parent, ec)) return runtime_error("--log " + *f + ": the folder " + parent.string() + " does not exist");
  }
  const TrainModelConfig m = resolved_model(s);
  std::fprintf(stderr, "training %s on %s (length %d, %d symbols): %d layers, width %d, %d heads, MLP %d; %d steps of %d\n",
               std::string(to_string(m.positions)).c_str(), std::string(to_string(s.task.kind)).c_str(), s.train_length,
               s.task.symbols, m.layers, m.width, m.heads, m.mlp(), s.steps, s.batch);
  const int every = std::max(1, s.steps / 20);
  auto run = train(s, [&](const TrainStep& step) {
    if ((step.step + 1) % every == 0 || step.step + 1 == s.steps)
      std::fprintf(stderr, "step %6d/%d  loss %.5f  lr %.2e  %.0f tokens/s\n", step.step + 1, s.steps, step.loss, step.lr,
                   step.tokens_per_s);
    return true;
  });
  if (!run) return runtime_error(run.error());
  const double seconds = run->seconds;
  const std::vector<TrainStep> log = run->log;
  TrainedModel model = trained_model(std::move(*run));
  // The model first: a log that cannot be written must not cost the trained weights.
  if (auto saved = save_model_folder(model, *out); !saved) return runtime_error(saved.error());
  if (const std::string* f = o.get("--log"))
    if (auto w = write_file_atomic(*f, train_log_csv(log)); !w) return runtime_error(w.error());
  const EvalRow at_length = evaluate_lengths(model.params, model.task, model.train_length, {model.train_length}).front();
  std::printf("trained in %.1f s; at length %d: exact match %.1f%%, loss %.5f\n", seconds, model.train_length,
              100.0 * at_length.accuracy, at_length.loss);
  std::printf("wrote %s (config.json, model.safetensors, tokenizer.json)\n", out->c_str());
  if (const std::string* f = o.get("--log")) std::printf("wrote %s (%zu steps)\n", f->c_str(), log.size());
  return 0;
}

int run_eval(const std::vector<std::string_view>& args) {
  const Options o = Options::parse(args, {"--model", "--task", "--lengths", "--rope-scaling", "--csv", "--sequences", "--seed"}, "eval");
  if (!o.error.empty()) return usage_error(o.error);
  const std::string* dir = o.get("--model");
  if (!dir) return usage_error("eval needs a trained model folder: --model DIR");
  const std::string task = o.get("--task") ? *o.get("--task") : "";
  if (!task.empty())
    if (auto kind = parse_task_kind(task); !kind) return usage_error("--task: " + kind.error());
  EvalSettings settings;
  int seed = static_cast<int>(settings.seed);
  for (const std::string& e : {take_integer(o, "--sequences", 1, 100000, settings.sequences),
                               take_integer(o, "--seed", 0, 2147483647, seed)})
    if (!e.empty()) return usage_error(e);
  settings.seed = static_cast<std::uint64_t>(seed);
  if (const std::string* v = o.get("--rope-scaling")) {
    auto kind = parse_inference_scaling(*v);
    if (!kind) return usage_error(kind.error());
    settings.scaling = *kind;
  }
  auto model = open_trained(*dir, task);
  if (!model) return runtime_error(model.error());
  if (settings.scaling != RopeScalingType::None && model->model.positions != PositionKind::Rope)
    return usage_error("--rope-scaling applies to RoPE models; " + *dir + " has " + std::string(to_string(model->model.positions)) + " positions");
  std::vector<int> lengths = extrapolation_lengths(model->train_length);
  if (const std::string* v = o.get("--lengths")) {
    auto parsed = parse_lengths(*v, kMaxEvalLength);
    if (!parsed) return usage_error(parsed.error());
    lengths = *parsed;
  }
  const auto rows = evaluate_lengths(model->params, model->task, model->train_length, lengths, settings);
  std::printf("%s: %s, trained on length %d; %d sequences per length%s\n", dir->c_str(),
              std::string(to_string(model->model.positions)).c_str(), model->train_length, settings.sequences,
              settings.scaling == RopeScalingType::None ? "" : (", " + std::string(to_string(settings.scaling)) + " scaling").c_str());
  print_rows(rows);
  if (const std::string* f = o.get("--csv")) {
    if (auto w = write_file_atomic(*f, eval_csv(rows)); !w) return runtime_error(w.error());
    std::printf("wrote %s\n", f->c_str());
  }
  return 0;
}

int run_export_extrapolation(const std::vector<std::string_view>& args) {
  const Options o = Options::parse(
      args, {"--models", "--task", "--lengths", "--png", "--svg", "--csv", "--scale", "--sequences", "--seed", "--rope-scalings"},
      "export extrapolation");
  if (!o.error.empty()) return usage_error(o.error);
  const std::string* list = o.get("--models");
  if (!list) return usage_error("export extrapolation needs trained model folders: --models DIR,DIR,...");
  if (!o.get("--png") && !o.get("--svg") && !o.get("--csv"))
    return usage_error("nothing to write: give --png FILE, --svg FILE and/or --csv FILE");
  const std::string task = o.get("--task") ? *o.get("--task") : "";
  if (!task.empty())
    if (auto kind = parse_task_kind(task); !kind) return usage_error("--task: " + kind.error());
  EvalSettings settings;
  int seed = static_cast<int>(settings.seed), scale = 1;
  for (const std::string& e : {take_integer(o, "--sequences", 1, 100000, settings.sequences),
                               take_integer(o, "--seed", 0, 2147483647, seed), take_integer(o, "--scale", 1, 8, scale)})
    if (!e.empty()) return usage_error(e);
  settings.seed = static_cast<std::uint64_t>(seed);
  bool with_scalings = true;
  if (const std::string* v = o.get("--rope-scalings")) {
    if (*v != "yes" && *v != "no") return usage_error("--rope-scalings expects yes or no, got \"" + *v + "\"");
    with_scalings = *v == "yes";
  }

  std::vector<std::pair<std::string, TrainedModel>> models;
  std::stringstream in(*list);
  std::string dir;
  while (std::getline(in, dir, ',')) {
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (dir.empty()) continue;
    auto model = open_trained(dir, task);
    if (!model) return runtime_error(model.error());
    if (!models.empty() && model->task.kind != models.front().second.task.kind)
      return runtime_error(dir + " was trained on another task than " + models.front().first);
    models.emplace_back(fs::path(dir).filename().string(), std::move(*model));
  }
  if (models.empty()) return usage_error("--models names no folder");
  std::vector<int> lengths = extrapolation_lengths(models.front().second.train_length);
  if (const std::string* v = o.get("--lengths")) {
    auto parsed = parse_lengths(*v, kMaxEvalLength);
    if (!parsed) return usage_error(parsed.error());
    lengths = *parsed;
  }
  const auto curves = extrapolation_curves(name_models(std::move(models)), lengths, with_scalings, settings,
                                           [](int done, int total) {
                                             // One line redrawn on a terminal; a line per length in a log.
                                             static const bool terminal = ::isatty(2);
                                             std::fprintf(stderr, terminal ? "\revaluated %d/%d" : "evaluated %d/%d\n", done, total);
                                             if (terminal && done == total) std::fprintf(stderr, "\n");
                                             return true;
                                           });
  for (const auto& c : curves) {
    std::printf("%s\n", c.label().c_str());
    print_rows(c.rows);
  }

  ExportRequest request;
  if (const std::string* v = o.get("--png")) request.png = *v;
  if (const std::string* v = o.get("--svg")) request.svg = *v;
  if (const std::string* v = o.get("--csv")) request.csv = *v;
  request.scale = static_cast<float>(scale);
  std::unique_ptr<gpu::HeadlessContext> context;
  if (!request.png.empty()) {
    auto created = gpu::HeadlessContext::create();
    if (!created) return runtime_error("PNG export needs OpenGL: " + created.error());
    context = std::move(*created);
  }
  const plot::Figure figure = extrapolation_figure(curves, kExtrapolationPanel);
  const std::string csv = extrapolation_csv(curves);
  std::vector<std::string> written;
  if (auto s = write_export(&figure, &csv, request, written); !s) return runtime_error(s.error());
  for (const auto& w : written) std::printf("wrote %s\n", w.c_str());
  return 0;
}

}  // namespace poslab
