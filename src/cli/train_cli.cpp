#include "cli/train_cli.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "base/files.hpp"
#include "base/text.hpp"
#include "core/model_resolver.hpp"
#include "core/options.hpp"
#include "core/train/extrapolation.hpp"
#include "gpu/headless.hpp"
#include "hub/model_name.hpp"
#include "figures/export.hpp"
#include "figures/train.hpp"
#include "cli/args.hpp"
#include "cli/interrupt.hpp"

namespace poslab {

namespace {

namespace fs = std::filesystem;

// The longest evaluation: 4,096 symbols (8,192 tokens) per copy sequence.
constexpr int kMaxEvalLength = 4096;

// "1e-07" rather than "0.000000": a bound as the help prints it.
std::string bound_text(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

// A real-valued flag within [lo, hi] (the help says the range).
Flag number_flag(std::string_view name, std::string_view value, const std::string& help, double lo, double hi, double& into) {
  return {name, value, help + " (" + bound_text(lo) + " to " + bound_text(hi) + ")", [name, lo, hi, &into](std::string_view v) -> Status {
            auto x = parse_number(v, name);
            if (!x) return Error{x.error()};
            if (!(*x >= lo && *x <= hi))
              return Error{std::string(name) + " is out of range (" + std::string(v) + "; " + std::to_string(lo) + " to " +
                           std::to_string(hi) + ")"};
            into = *x;
            return Ok{};
          }};
}

// --task copy|recall|reverse; the name is kept (eval and extrapolation compare it with the models').
Flag task_flag(std::string& into) {
  return {"--task", "copy|recall|reverse", "the task trained on: a model trained on another is refused (default: its own)", [&into](std::string_view v) -> Status {
            into = std::string(v);
            if (!into.empty())
              if (auto kind = parse_task_kind(into); !kind) return Error{"--task: " + kind.error()};
            return Ok{};
          }};
}

// --seed N, the seed of the sequences evaluated.
Flag sequences_seed_flag(int& into) { return integer_flag("--seed", "N", "the seed of the sequences", 0, 2147483647, into); }

// --sequences N, how many are evaluated at each length.
Flag sequences_flag(int& into) { return integer_flag("--sequences", "N", "sequences evaluated per length", 1, 100000, into); }

// --lengths, checked once the models' training length is known.
Flag lengths_flag(std::optional<std::string>& into) {
  return text_flag("--lengths", "N,N,...", "the lengths evaluated, e.g. 32,64,128 (default 1x to 16x the training length)", into);
}

// Every option of these commands takes a value; an unknown one is reported before any bad value.
Status parse_flags(ArgParser& p, const std::vector<Flag>& flags, const std::string& command) {
  return p.parse(flags, nullptr, [&](std::string_view name) { return "unknown option \"" + std::string(name) + "\" for " + command; },
                 ParseOrder::NamesFirst);
}

void print_rows(const std::vector<EvalRow>& rows) {
  std::printf("%8s %8s %12s %9s\n", "length", "tokens", "loss", "accuracy");
  for (const EvalRow& r : rows) {
    if (!r.supported) std::printf("%8d %8d %12s %9s  (%s)\n", r.length, r.tokens, "-", "-", r.refused.empty() ? "past the learned table" : r.refused.c_str());
    else std::printf("%8d %8d %12.5f %8.1f%%\n", r.length, r.tokens, r.loss, 100.0 * r.accuracy);
  }
}

// `dir` a folder, or a model on the Hub by name (ORG/NAME[@REVISION]), which becomes its snapshot.
Result<TrainedModel> open_trained(std::string& dir, const std::string& task) {
  auto folder = resolve_model_argument(dir);
  if (!folder) return Error{folder.error()};
  dir = folder->string();
  auto model = load_model_folder(dir);
  if (!model) return Error{model.error()};
  if (!task.empty() && task != to_string(model->task.kind))
    return Error{dir + " was trained on the " + std::string(to_string(model->task.kind)) + " task, not " + task};
  return model;
}

}  // namespace

namespace {

// What `poslab train` was asked for.
struct TrainArgs {
  TrainSettings settings = default_train_settings();
  std::string out, log;
  int seed = 1;
};

// The options of `poslab train`, each declared once, in the order their mistakes are reported.
std::vector<Flag> train_flags(TrainArgs& t) {
  TrainSettings& s = t.settings;
  return {
      {"--task", "copy|recall|reverse", "the synthetic task it learns", [&s](std::string_view v) -> Status {
         auto kind = parse_task_kind(std::string(v));
         if (!kind) return Error{"--task: " + kind.error()};
         s.task.kind = *kind;
         return Ok{};
       }},
      {"--encoding", "none|sinusoidal|learned|rope|alibi|t5", "its positions", [&s](std::string_view v) -> Status {
         auto kind = parse_position_kind(std::string(v));
         if (!kind) return Error{"--encoding: " + kind.error()};
         s.model.positions = *kind;
         return Ok{};
       }},
      // An empty name would be found only when the trained model is saved, minutes later.
      needed({"--out", "DIR", "the model folder written (config.json, model.safetensors, tokenizer.json)",
              [&t](std::string_view v) -> Status {
                if (v.empty()) return Error{"--out needs a folder name"};
                t.out = std::string(v);
                return Ok{};
              }},
             "train needs a folder to write the model to: --out DIR"),
      integer_flag("--layers", "N", "decoder layers", 1, 4, s.model.layers),
      integer_flag("--width", "N", "the model's width d", 32, 256, s.model.width),
      integer_flag("--heads", "N", "attention heads", 1, 256, s.model.heads),
      integer_flag("--mlp", "N", "the SwiGLU's inner width, 4 × width by default", 1, 4096, s.model.mlp_width),
      integer_flag("--train-length", "N", "the training sequences' length", 1, 1024, s.train_length),
      integer_flag("--min-length", "N", "trains on every length from N to the training length at once", 1, 1024, s.min_length),
      integer_flag("--steps", "N", "training steps", 1, 1000000, s.steps),
      integer_flag("--batch", "N", "sequences per step", 1, 4096, s.batch),
      integer_flag("--warmup", "N", "steps of learning-rate warm-up", 0, 1000000, s.warmup),
      integer_flag("--seed", "N", "the seed of the weights and the sequences", 0, 2147483647, t.seed),
      integer_flag("--vocab", "N", "symbols of the task's alphabet", 2, static_cast<long long>(kTaskAlphabet.size()), s.task.symbols),
      number_flag("--lr", "X", "the peak learning rate", 1e-7, 1.0, s.lr),
      number_flag("--rope-theta", "B", "RoPE's base", 1.0, 1e9, s.model.rope_theta),
      number_flag("--partial-rotary", "P", "partial RoPE: the rotated share of each head's dimensions", 0.0, 1.0, s.model.partial_rotary),
      number_flag("--rope-fraction", "P", "p-RoPE: the share of the rotary pairs, fastest first, that rotate", 0.0, 1.0,
                  s.model.rope_fraction),
      {"--log", "F.csv", "the training log: step,loss,lr,tokens_per_s", [&t](std::string_view v) -> Status {
         if (v.empty()) return Error{"--log needs a file name"};
         t.log = std::string(v);
         return Ok{};
       }},
  };
}

Status parse_train_options(ArgParser& p, TrainArgs& t) {
  TrainSettings& s = t.settings;
  if (auto parsed = parse_flags(p, train_flags(t), "train"); !parsed) return parsed;
  s.seed = static_cast<std::uint64_t>(t.seed);
  if (auto ok = check_app_limits(resolved_model(s)); !ok) return ok;
  return validate(s);
}

// What `poslab eval` was asked for.
struct EvalArgs {
  std::string dir, task, csv_path;
  std::optional<std::string> lengths_text;
  EvalSettings settings;
  int seed = static_cast<int>(EvalSettings{}.seed);
};

std::vector<Flag> eval_flags(EvalArgs& a) {
  return {
      needed(text_flag("--model", "DIR", "a trained model folder (or ORG/NAME[@REVISION] on the Hub)", a.dir),
             "eval needs a trained model folder: --model DIR"),
      task_flag(a.task),
      sequences_flag(a.settings.sequences),
      sequences_seed_flag(a.seed),
      {"--rope-scaling", "KIND", "RoPE scaling at inference: none, linear, ntk, dynamic or yarn (factor from the length)",
       [&a](std::string_view v) -> Status {
         auto kind = parse_inference_scaling(std::string(v));
         if (!kind) return Error{kind.error()};
         a.settings.scaling = *kind;
         return Ok{};
       }},
      lengths_flag(a.lengths_text),
      text_flag("--csv", "FILE", "the table as CSV", a.csv_path),
  };
}

// What `poslab export extrapolation` was asked for.
struct ExtrapolationArgs {
  std::string list, task, rope_scalings;
  std::optional<std::string> lengths_text;
  EvalSettings settings;
  ExportRequest request;
  int seed = static_cast<int>(EvalSettings{}.seed);
};

std::vector<Flag> extrapolation_flags(ExtrapolationArgs& a) {
  std::vector<Flag> flags = {needed(text_flag("--models", "DIR,DIR,...", "trained model folders (or ORG/NAME on the Hub)", a.list),
                                    "export extrapolation needs trained model folders: --models DIR,DIR,...")};
  add_figure_outputs(flags, a.request, "nothing to write: give --png FILE, --svg FILE and/or --csv FILE");
  flags.push_back(task_flag(a.task));
  flags.push_back(sequences_flag(a.settings.sequences));
  flags.push_back(sequences_seed_flag(a.seed));
  flags.push_back(scale_flag(a.request.scale));
  flags.push_back({"--rope-scalings", "yes|no", "RoPE models also with each scaling (yes)", [&a](std::string_view v) -> Status {
                     if (v != "yes" && v != "no") return Error{"--rope-scalings expects yes or no, got \"" + std::string(v) + "\""};
                     a.rope_scalings = std::string(v);
                     return Ok{};
                   }});
  flags.push_back(lengths_flag(a.lengths_text));
  return flags;
}

}  // namespace

FlagTable train_flag_table() { return flag_table(train_flags); }
FlagTable eval_flag_table() { return flag_table(eval_flags); }
FlagTable extrapolation_flag_table() { return flag_table(extrapolation_flags); }

int run_train(ArgParser& p) {
  TrainArgs t;
  if (auto s = parse_train_options(p, t); !s) return parse_error(p, s);
  const TrainSettings& s = t.settings;
  // The model folder and the log are checked (and their temporary files made) before the
  // minutes of training, not after; both arrive together at the end, or neither.
  OutputPlan plan;
  plan.add_folder("--out", t.out);
  plan.add("--log", t.log);
  if (const int code = prepare_outputs(plan)) return code;
  const TrainModelConfig m = resolved_model(s);
  std::fprintf(stderr, "training %s on %s (length %d, %d symbols): %d layers, width %d, %d heads, MLP %d; %d steps of %d\n",
               std::string(to_string(m.positions)).c_str(), std::string(to_string(s.task.kind)).c_str(), s.train_length,
               s.task.symbols, m.layers, m.width, m.heads, m.mlp(), s.steps, s.batch);
  const int every = std::max(1, s.steps / 20);
  // Ctrl+C or SIGTERM stops after the current step; the staged model folder and the log's
  // temporary file are then removed (the plan's destructor).
  bool interrupted = false;
  auto run = [&] {
    const InterruptGuard guard;
    auto trained = train(s, [&](const TrainStep& step) {
      if ((step.step + 1) % every == 0 || step.step + 1 == s.steps)
        std::fprintf(stderr, "step %6d/%d  loss %.5f  lr %.2e  %.0f tokens/s\n", step.step + 1, s.steps, step.loss, step.lr,
                     step.tokens_per_s);
      return !guard.interrupted();
    });
    interrupted = guard.interrupted();
    return trained;
  }();
  if (interrupted) return runtime_error("interrupted; nothing was written");
  if (!run) return runtime_error(run.error());
  const double seconds = run->seconds;
  const std::vector<TrainStep> log = run->log;
  TrainedModel model = trained_model(std::move(*run));
  if (auto saved = save_model_folder(model, plan.staging(t.out)); !saved) return runtime_error(saved.error());
  if (!t.log.empty())
    if (auto w = plan.write(t.log, train_log_csv(log)); !w) return runtime_error(w.error());
  if (auto committed = plan.commit(); !committed) return runtime_error(committed.error());
  const EvalRow at_length = evaluate_lengths(model.params, model.task, model.train_length, {model.train_length}).front();
  std::printf("trained in %.1f s; at length %d: exact match %.1f%%, loss %.5f\n", seconds, model.train_length,
              100.0 * at_length.accuracy, at_length.loss);
  std::printf("wrote %s (config.json, model.safetensors, tokenizer.json)\n", t.out.c_str());
  if (!t.log.empty()) std::printf("wrote %s (%zu steps)\n", t.log.c_str(), log.size());
  return 0;
}

int run_eval(ArgParser& p) {
  EvalArgs a;
  if (auto parsed = parse_flags(p, eval_flags(a), "eval"); !parsed) return parse_error(p, parsed);
  EvalSettings& settings = a.settings;
  settings.seed = static_cast<std::uint64_t>(a.seed);
  std::string& dir = a.dir;
  const std::string& csv_path = a.csv_path;
  const std::optional<std::string>& lengths_text = a.lengths_text;
  auto model = open_trained(dir, a.task);
  if (!model) return runtime_error(model.error());
  if (settings.scaling != RopeScalingType::None && model->model.positions != PositionKind::Rope)
    return usage_error("--rope-scaling applies to RoPE models; " + dir + " has " + std::string(to_string(model->model.positions)) + " positions");
  std::vector<int> lengths = extrapolation_lengths(model->train_length);
  if (lengths_text) {
    auto parsed = parse_lengths(*lengths_text, kMaxEvalLength);
    if (!parsed) return usage_error(parsed.error());
    lengths = *parsed;
  }
  OutputPlan plan;
  plan.add("--csv", csv_path);
  plan_folder_input(plan, "--model", dir);
  if (const int code = prepare_outputs(plan)) return code;
  for (int length : lengths)
    if (auto fits = check_evaluation_memory(model->model, model->task, length, settings); !fits) return runtime_error(fits.error());
  const auto rows = evaluate_lengths(model->params, model->task, model->train_length, lengths, settings);
  std::printf("%s: %s, trained on length %d; %d sequences per length%s\n", dir.c_str(),
              std::string(to_string(model->model.positions)).c_str(), model->train_length, settings.sequences,
              settings.scaling == RopeScalingType::None ? "" : (", " + std::string(to_string(settings.scaling)) + " scaling").c_str());
  print_rows(rows);
  if (!csv_path.empty()) {
    if (auto w = plan.write(csv_path, eval_csv(rows)); !w) return runtime_error(w.error());
    if (auto c = plan.commit(); !c) return runtime_error(c.error());
    std::printf("wrote %s\n", csv_path.c_str());
  }
  return 0;
}

int run_export_extrapolation(ArgParser& p) {
  ExtrapolationArgs a;
  if (auto parsed = parse_flags(p, extrapolation_flags(a), "export extrapolation"); !parsed) return parse_error(p, parsed);
  EvalSettings& settings = a.settings;
  ExportRequest& request = a.request;
  const std::optional<std::string>& lengths_text = a.lengths_text;
  settings.seed = static_cast<std::uint64_t>(a.seed);
  const bool with_scalings = a.rope_scalings != "no";

  std::vector<std::pair<std::string, TrainedModel>> models;
  std::vector<std::string> dirs;
  for (std::string dir : split_list(a.list, ',')) {
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (dir.empty()) continue;
    const std::string label = hub::looks_like_model_name(dir) ? dir : fs::path(dir).filename().string();
    auto model = open_trained(dir, a.task);
    if (!model) return runtime_error(model.error());
    if (!models.empty() && model->task.kind != models.front().second.task.kind)
      return runtime_error(dir + " was trained on another task than " + models.front().first);
    models.emplace_back(label, std::move(*model));
    dirs.push_back(dir);
  }
  if (models.empty()) return usage_error("--models names no folder");
  std::vector<int> lengths = extrapolation_lengths(models.front().second.train_length);
  if (lengths_text) {
    auto parsed = parse_lengths(*lengths_text, kMaxEvalLength);
    if (!parsed) return usage_error(parsed.error());
    lengths = *parsed;
  }
  // The files are checked (and their temporary files made) before the minutes of evaluation.
  OutputPlan plan;
  plan_request(request, plan);
  for (const std::string& d : dirs) plan_folder_input(plan, "--models", d);
  if (const int code = prepare_outputs(plan)) return code;
  for (const auto& [name, model] : models)
    for (int length : lengths)
      if (auto fits = check_evaluation_memory(model.model, model.task, length, settings); !fits) return runtime_error(fits.error());
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

  std::unique_ptr<gpu::HeadlessContext> context;
  if (!request.png.empty()) {
    auto created = gpu::HeadlessContext::create();
    if (!created) return runtime_error("PNG export needs OpenGL: " + created.error());
    context = std::move(*created);
  }
  const plot::Figure figure = extrapolation_figure(curves, kExtrapolationPanel);
  const std::string csv = extrapolation_csv(curves);
  return finish_export(figure, csv, request, plan);
}

}  // namespace poslab
