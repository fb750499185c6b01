#include "ui/cli.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/attention/backend_choice.hpp"
#include "core/export_data.hpp"
#include "core/formats/formats.hpp"
#include "core/options.hpp"
#include "core/session.hpp"
#include "core/workspace.hpp"
#include "gpu/attention_gpu.hpp"
#include "gpu/headless.hpp"
#include "ui/assets.hpp"
#include "core/formats/bpe.hpp"
#include "core/tour/tour.hpp"
#include "plot/draw.hpp"
#include "ui/export.hpp"
#include "ui/gui.hpp"
#include "ui/settings.hpp"
#include "ui/model_view.hpp"
#include "core/model/model_run.hpp"
#include "ui/attention_view.hpp"
#include "ui/train_cli.hpp"
#include "ui/animate_cli.hpp"

namespace poslab {

namespace {

constexpr int kUsageError = 2;
constexpr int kRuntimeError = 1;

Result<Language> parse_language(std::string_view v) {
  if (v == "en") return Language::En;
  if (v == "ja") return Language::Ja;
  return Error{"--lang expects en or ja, got \"" + std::string(v) + "\""};
}

void print_help() {
  std::printf(
      "PosLab %s — a lab for transformer positional encodings and attention\n\n"
      "usage:\n"
      "  poslab [state options] [--view VIEW] [--screenshot FILE.png] [--frames N] [--size WxH]\n"
      "         [--load FILE] [--load-rate MB/s] [--frame-log FILE.csv] [--ui-scale S]\n"
      "      the GUI, showing VIEW's tab first; with --screenshot it saves the window after N\n"
      "      frames (default 5; counted once a --load has finished) and quits; --load starts\n"
      "      loading FILE as the Load button does (on its own thread); --load-rate parses text\n"
      "      files no faster than a drive of that speed would deliver them (to watch progress\n"
      "      and Cancel); --frame-log writes frame,ms,loading,rows,computing,drawing,view per\n"
      "      frame (computing: the attention runs; drawing: the view's figure is built, both\n"
      "      off the UI thread; view: the tab shown); --ui-scale draws the interface and its\n"
      "      figures at S pixels per point (0.5 to 4; default: the UI scale menu's setting,\n"
      "      else the monitor's)\n"
      "  poslab export VIEW [state options] [--png FILE] [--svg FILE] [--csv FILE] [--scale N]\n"
      "      headless (no window, no X server): the view as PNG (scale 1 to 8) or SVG, its data\n"
      "      as CSV (columns in README.md). VIEW: %s\n"
      "  poslab export all --dir DIR [state options] [--scale N]\n"
      "      every view as DIR/VIEW.png, .svg and .csv\n"
      "%s"
      "  poslab export tour --step N [--lang en|ja] [--png F] [--svg F] [--csv F] [--scale N]\n"
      "      a step of the tour as one slide: words, formulas, live check and plot\n"
      "  poslab export attention --model DIR --layer L [state options] [--png F] [--svg F] [--csv F]\n"
      "  poslab export heads --model DIR --layer L [--png F] [--svg F] [--csv F]\n"
      "  poslab export frequency-usage --model DIR --layer L [--png F] [--csv F]\n"
      "      a model folder's own forward pass: layer L's heads (attention, small multiples with\n"
      "      sink, distance and previous-token scores; RoPE frequency usage per head and pair).\n"
      "      --base, --rope-scaling, --rope-style, --encoding none, --position-shift and --permute\n"
      "      change its positions, drawn beside the unchanged model\n"
      "  poslab predict --model DIR --sentence S [--top K] [state options]\n"
      "      the model's top-K next tokens at every position, the loss and perplexity, as JSON\n"
      "  poslab train [--task copy|recall] [--encoding none|sinusoidal|learned|rope|alibi|t5] --out DIR\n"
      "         [--layers N] [--width N] [--heads N] [--mlp N] [--train-length N] [--steps N] [--batch N]\n"
      "         [--lr X] [--warmup N] [--seed N] [--vocab N] [--rope-theta B] [--partial-rotary P]\n"
      "         [--rope-fraction P] [--log F.csv]\n"
      "      trains a tiny decoder (defaults: copy, rope, 2 layers, width 64, 4 heads, length 32,\n"
      "      1500 steps of 32, lr 3e-3, 16 symbols) and writes DIR as a model folder for --model;\n"
      "      the log CSV has step,loss,lr,tokens_per_s\n"
      "  poslab eval --model DIR [--task copy|recall] [--lengths 32,64,128] [--rope-scaling KIND]\n"
      "         [--sequences N] [--seed N] [--csv F]\n"
      "      a trained model's loss and exact-match accuracy per length (default 1x to 16x its\n"
      "      training length); KIND: none, linear, ntk, dynamic, yarn (factor from the length)\n"
      "  poslab export extrapolation --models DIR,DIR,... [--task copy] [--lengths ...] [--png F]\n"
      "         [--svg F] [--csv F] [--scale N] [--sequences N] [--rope-scalings yes|no]\n"
      "      accuracy and loss against length, one line per model, RoPE also with each scaling;\n"
      "      CSV model,encoding,scaling,train_length,length,tokens,loss,accuracy\n"
      "  poslab info [--embeddings F | --model DIR] [--vocab F] [--tensor NAME]\n"
      "      vocabulary size, dimension, dtype, tokenizer and load time of an embeddings file; the\n"
      "      OpenGL renderer and where --backend (auto unless given) computes attention, and why\n"
      "  poslab tokens --tokenizer tokenizer.json --sentence TEXT [--sentence TEXT …]\n"
      "      byte-level BPE token ids (Hugging Face tokenizer.json) as a JSON array per sentence\n"
      "  poslab tour --list [--lang en|ja]\n"
      "      one line per tour step: N, title, pass|fail of its live check\n"
      "  poslab --help | --version\n\n"
      "sessions: --session FILE starts from a saved state (options after it refine it);\n"
      "          export's --save-session FILE writes the state it used\n\n"
      "state options:\n%s",
      POSLAB_VERSION, view_names().c_str(), animation_help().c_str(), state_options_help().c_str());
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "poslab: %s\nTry 'poslab --help'.\n", message.c_str());
  return kUsageError;
}

// Walks argv: state options go into `state`; others go to `other(name, value)`, which says
// whether it took a value. Returns an error message, or empty on success.
struct ArgParser {
  std::vector<std::string_view> args;
  std::size_t i = 0;

  bool done() const { return i >= args.size(); }
  std::string_view next() { return args[i++]; }
  // The value of option `name`, from "--name=value" or the next argument.
  Result<std::string_view> value_of(std::string_view name, std::string_view inline_value, bool has_inline) {
    if (has_inline) return inline_value;
    if (done()) return Error{std::string(name) + " needs a value"};
    return next();
  }
};

struct ParsedOption {
  std::string_view name, inline_value;
  bool has_inline = false;
};

ParsedOption split_option(std::string_view arg) {
  const auto eq = arg.find('=');
  if (arg.starts_with("--") && eq != std::string_view::npos) return {arg.substr(0, eq), arg.substr(eq + 1), true};
  return {arg, {}, false};
}

// --session FILE replaces the whole state with the file's; options after it refine it.
std::optional<Status> try_session_option(State& state, ArgParser& p, const ParsedOption& opt) {
  if (opt.name != "--session") return std::nullopt;
  auto v = p.value_of(opt.name, opt.inline_value, opt.has_inline);
  if (!v) return Status(Error{v.error()});
  auto loaded = load_session(std::string(*v));
  if (!loaded) return Status(Error{loaded.error()});
  for (const auto& key : loaded->unknown_keys)
    std::fprintf(stderr, "poslab: %s: ignoring unknown key \"%s\"\n", std::string(*v).c_str(), key.c_str());
  state = loaded->state;
  return Status(Ok{});
}

// Applies a state option if `opt` is one; returns nullopt when it is not a state option.
std::optional<Status> try_state_option(State& state, ArgParser& p, const ParsedOption& opt) {
  if (auto session = try_session_option(state, p, opt)) return session;
  const StateOption* so = find_state_option(opt.name);
  if (!so) return std::nullopt;
  if (so->value.empty()) {
    if (opt.has_inline) return Status(Error{std::string(opt.name) + " takes no value"});
    return so->apply(state, "");
  }
  auto v = p.value_of(opt.name, opt.inline_value, opt.has_inline);
  if (!v) return Status(Error{v.error()});
  return so->apply(state, *v);
}

// The GL context with no display and the GPU backend when the state asks for it (--backend gpu,
// or auto on a hardware renderer); the reason when there is none, and which path runs and why.
struct HeadlessGpu {
  std::unique_ptr<gpu::HeadlessContext> context;
  std::unique_ptr<gpu::GpuBackend> backend;
  std::string unavailable;
  std::string renderer;  // the context's description (empty: no context)
  BackendChoice choice;
};
HeadlessGpu open_headless_gpu(Backend wanted) {
  HeadlessGpu g;
  if (auto created = gpu::HeadlessContext::create()) {
    g.context = std::move(*created);
    g.renderer = g.context->description();
    if (wants_gpu(wanted, g.renderer)) {
      if (auto b = gpu::GpuBackend::create()) g.backend = std::move(*b);
      else g.unavailable = b.error();
    }
  } else {
    g.unavailable = created.error();
  }
  g.choice = choose_backend(wanted, g.renderer, g.backend != nullptr, g.unavailable);
  return g;
}

// The state's model folder, opened; the error says what to give when there is none.
Result<std::shared_ptr<const Checkpoint>> state_model(const State& state, std::string_view command) {
  std::error_code ec;
  if (state.embeddings_path.empty() || !std::filesystem::is_directory(state.embeddings_path, ec))
    return Error{std::string(command) + " needs a model folder: --model DIR"};
  return Checkpoint::open(state.embeddings_path);
}

// A model folder's run for the state: its layer, with the state's changes to the positions.
Result<ModelRun> run_state_model(const Checkpoint& model, const State& state, int top_k, AttentionBackend* backend) {
  ModelRequest request = model_request(state, model.config());
  request.top_k = top_k;
  RunControl control;
  control.backend = backend;
  control.check_against_cpu = backend && state.check_against_cpu;
  return run_model(model, request, control);
}

void print_run_notes(const ModelRun& run, const HeadlessGpu& g) {
  const std::string& unavailable = g.unavailable;
  std::fprintf(stderr, "poslab: attention: %s\n", g.choice.reason.c_str());
  const ForwardResult& f = run.shown();
  std::fprintf(stderr, "poslab: attention on %s%s, %.0f ms\n", f.backend.c_str(),
               unavailable.empty() ? "" : (" (GPU path unavailable: " + unavailable + ")").c_str(), f.milliseconds);
  if (f.max_diff_vs_cpu) std::fprintf(stderr, "poslab: max |GPU − CPU| %.3g\n", *f.max_diff_vs_cpu);
}

// export attention --layer L, export heads, export frequency-usage: the model's own forward pass.
int run_model_export(ExportView view, State state, const ExportRequest& request) {
  const std::string name(to_string(view));
  auto model = state_model(state, "export " + name);
  if (!model) {
    std::fprintf(stderr, "poslab: error: %s\n", model.error().c_str());
    return kRuntimeError;
  }
  const TransformerConfig& c = (*model)->config();
  if (state.view.layer < 0) state.view.layer = 0;
  if (state.view.layer >= c.layers)
    return usage_error("--layer " + std::to_string(state.view.layer) + " is out of range: the model has " +
                       std::to_string(c.layers) + " layers (0 to " + std::to_string(c.layers - 1) + ")");
  if (!state.view.mean_heads && state.view.head >= c.heads)
    return usage_error("--head " + std::to_string(state.view.head) + " is out of range: the model has " + std::to_string(c.heads) + " heads");
  if (view == ExportView::FrequencyUsage && c.positions != PositionKind::Rope)
    return usage_error("frequency-usage needs a RoPE model; this one has " + std::string(to_string(c.positions)) + " positions");
  HeadlessGpu g = open_headless_gpu(state.backend);
  if (!g.context && (!request.png.empty() || !request.svg.empty())) {
    std::fprintf(stderr, "poslab: error: PNG export needs OpenGL: %s\n", g.unavailable.c_str());
    return kRuntimeError;
  }
  auto run = run_state_model(**model, state, 5, g.backend.get());
  if (!run) {
    std::fprintf(stderr, "poslab: error: %s\n", run.error().c_str());
    return kRuntimeError;
  }
  print_run_notes(*run, g);
  plot::Figure figure;
  std::string csv;
  if (view == ExportView::Heads) {
    figure = heads_figure(*run, c, kHeadThumbSide).figure;
    csv = heads_csv(*run);
  } else if (view == ExportView::FrequencyUsage) {
    figure = frequency_usage_figure(*run, c, kExportSide).figure;
    csv = frequency_usage_csv(*run);
  } else {
    figure = model_attention_figure(state, *run, c, kExportSide);
    std::ostringstream out;
    write_attention_csv(out, layer_results(run->shown(), state.view.layer, c, ""));
    csv = out.str();
  }
  std::vector<std::string> written;
  if (auto s = write_export(&figure, &csv, request, written); !s) {
    std::fprintf(stderr, "poslab: error: %s\n", s.error().c_str());
    return kRuntimeError;
  }
  for (const auto& w : written) std::printf("wrote %s\n", w.c_str());
  return 0;
}

// poslab predict --model DIR --sentence S [--top K] [state options]: one JSON object.
int run_predict(ArgParser& p) {
  State state;
  int top = 5;
  while (!p.done()) {
    const ParsedOption opt = split_option(p.next());
    if (auto applied = try_state_option(state, p, opt)) {
      if (!*applied) return usage_error(applied->error());
      continue;
    }
    if (opt.name == "--top") {
      auto v = p.value_of(opt.name, opt.inline_value, opt.has_inline);
      if (!v) return usage_error(v.error());
      auto k = parse_integer(*v, "--top", 1, 1000);
      if (!k) return usage_error(k.error());
      top = static_cast<int>(*k);
      continue;
    }
    return usage_error("unknown option \"" + std::string(opt.name) + "\" for predict");
  }
  auto model = state_model(state, "predict");
  if (!model) {
    std::fprintf(stderr, "poslab: error: %s\n", model.error().c_str());
    return kRuntimeError;
  }
  HeadlessGpu g = open_headless_gpu(state.backend);
  auto run = run_state_model(**model, state, top, g.backend.get());
  if (!run) {
    std::fprintf(stderr, "poslab: error: %s\n", run.error().c_str());
    return kRuntimeError;
  }
  print_run_notes(*run, g);
  std::printf("%s\n", predictions_json(run->shown()).c_str());
  return 0;
}

int run_export(ArgParser& p) {
  if (p.done()) return usage_error("export needs a view: poslab export attention --png out.png");
  const std::string_view view_name = p.next();
  const bool all = view_name == "all";  // every view into one folder
  const auto view = all ? std::optional<ExportView>(ExportView::Attention) : export_view_named(view_name);
  if (!view) return usage_error("unknown view \"" + std::string(view_name) + "\" (available: " + view_names() + ", tour, all)");
  State state;
  ExportRequest request;
  std::string save_session, folder;
  while (!p.done()) {
    const ParsedOption opt = split_option(p.next());
    if (auto applied = try_state_option(state, p, opt)) {
      if (!*applied) return usage_error(applied->error());
      continue;
    }
    if (opt.name == "--save-session") {
      auto v = p.value_of(opt.name, opt.inline_value, opt.has_inline);
      if (!v) return usage_error(v.error());
      save_session = std::string(*v);
      continue;
    }
    if ((opt.name == "--step" || opt.name == "--lang") && *view == ExportView::Tour) {
      auto v = p.value_of(opt.name, opt.inline_value, opt.has_inline);
      if (!v) return usage_error(v.error());
      if (opt.name == "--lang") {
        auto language = parse_language(*v);
        if (!language) return usage_error(language.error());
        request.language = *language;
      } else {
        auto step = parse_integer(*v, "--step", 1, static_cast<long long>(tour_steps().size()));
        if (!step) return usage_error(step.error());
        request.tour_step = static_cast<int>(*step) - 1;
      }
      continue;
    }
    if (opt.name == "--dir" && all) {
      auto v = p.value_of(opt.name, opt.inline_value, opt.has_inline);
      if (!v) return usage_error(v.error());
      folder = std::string(*v);
      continue;
    }
    if (opt.name == "--head-dim" && *view == ExportView::Frequencies && !all) {
      auto v = p.value_of(opt.name, opt.inline_value, opt.has_inline);
      if (!v) return usage_error(v.error());
      auto n = parse_integer(*v, "--head-dim", 2, 65536);
      if (!n) return usage_error(n.error());
      request.head_dim = static_cast<int>(*n);
      continue;
    }
    if ((opt.name == "--png" || opt.name == "--svg" || opt.name == "--csv") && all)
      return usage_error("export all writes DIR/VIEW.png, .svg and .csv: give --dir DIR instead of " + std::string(opt.name));
    if (opt.name == "--png" || opt.name == "--svg" || opt.name == "--csv" || opt.name == "--scale") {
      auto v = p.value_of(opt.name, opt.inline_value, opt.has_inline);
      if (!v) return usage_error(v.error());
      if (opt.name == "--png") request.png = std::string(*v);
      else if (opt.name == "--svg") request.svg = std::string(*v);
      else if (opt.name == "--csv") request.csv = std::string(*v);
      else {
        auto scale = parse_integer(*v, "--scale", 1, 8);
        if (!scale) return usage_error(scale.error());
        request.scale = static_cast<float>(*scale);
      }
      continue;
    }
    return usage_error("unknown option \"" + std::string(opt.name) + "\" for export");
  }
  if (all && folder.empty()) return usage_error("export all needs a folder: poslab export all --dir figures");
  if (!all && request.png.empty() && request.svg.empty() && request.csv.empty())
    return usage_error("nothing to write: give --png FILE, --svg FILE and/or --csv FILE");
  if (!view_has_plot(*view) && (!request.png.empty() || !request.svg.empty()))
    return usage_error("the " + std::string(view_name) + " view exports --csv so far; its plot is not drawn yet");

  if (*view == ExportView::Heads || *view == ExportView::FrequencyUsage || (*view == ExportView::Attention && !all && state.view.layer >= 0))
    return run_model_export(*view, state, request);
  if (*view == ExportView::Tour) state = tour_state(request.tour_step, state);  // as a reader pressing Next up to it
  Workspace workspace;
  const std::string path = state.embeddings_path.empty() ? asset_path(kDefaultEmbeddingsFile) : state.embeddings_path;
  if (auto s = workspace.load_embeddings(path, state.vocab_path, state.tensor_name); !s) {
    std::fprintf(stderr, "poslab: error: %s\n", s.error().c_str());
    return kRuntimeError;
  }

  // A GL context with no display: needed for the GPU path and for rendering the PNG.
  // The note about a missing GPU path reaches stderr with the results' notes below.
  HeadlessGpu g = open_headless_gpu(state.backend);
  if (!g.context && (!request.png.empty() || all)) {
    std::fprintf(stderr, "poslab: error: PNG export needs OpenGL: %s\n", g.unavailable.c_str());
    return kRuntimeError;
  }
  workspace.set_gpu_backend(g.backend.get(), g.unavailable, g.renderer);
  if (!all && *view == ExportView::Attention && request.csv.empty() && !state.view.mean_heads) {
    // One head's heatmap: only its weights (or scores) are kept, not every head's T × T matrices.
    MatricesKept keep;
    keep.head = state.view.head;
    keep.scores = state.view.value == HeatmapValue::Scores;
    keep.weights = state.view.value == HeatmapValue::Weights;
    workspace.keep_matrices(keep);
  }
  std::fprintf(stderr, "poslab: attention: %s\n", g.choice.reason.c_str());
  if (auto s = workspace.update(state); !s) {
    std::fprintf(stderr, "poslab: error: %s\n", s.error().c_str());
    return kRuntimeError;
  }
  const Results& results = *workspace.results();
  if (!state.view.mean_heads && state.view.head >= results.problem.heads)
    return usage_error("--head " + std::to_string(state.view.head) + " is out of range: there are " +
                       std::to_string(results.problem.heads) + " heads (0 to " + std::to_string(results.problem.heads - 1) + ")");
  for (const auto& note : results.notes) std::fprintf(stderr, "poslab: %s\n", note.c_str());
  if (!save_session.empty()) {
    if (auto s = write_file_atomic(save_session, session_json(state)); !s) {
      std::fprintf(stderr, "poslab: error: %s\n", s.error().c_str());
      return kRuntimeError;
    }
    std::printf("wrote %s (session)\n", save_session.c_str());
  }
  std::vector<std::string> written;
  if (all) {
    if (auto s = export_all_views(state, results, workspace.embeddings(), folder, request.scale, written); !s) {
      std::fprintf(stderr, "poslab: error: %s\n", s.error().c_str());
      return kRuntimeError;
    }
    std::printf("wrote %zu files into %s\n", written.size(), folder.c_str());
    return 0;
  }
  if (auto s = export_view(*view, state, results, workspace.embeddings(), request, written); !s) {
    std::fprintf(stderr, "poslab: error: %s\n", s.error().c_str());
    return kRuntimeError;
  }
  for (const auto& w : written) std::printf("wrote %s\n", w.c_str());
  return 0;
}

int run_gui_from_args(ArgParser& p) {
  GuiOptions options;
  options.remember_session = p.done();  // a plain `poslab` picks up where the last one left off
  while (!p.done()) {
    const ParsedOption opt = split_option(p.next());
    if (auto applied = try_state_option(options.state, p, opt)) {
      if (!*applied) return usage_error(applied->error());
      continue;
    }
    if (opt.name == "--screenshot" || opt.name == "--frames" || opt.name == "--size" || opt.name == "--view" ||
        opt.name == "--load" || opt.name == "--load-rate" || opt.name == "--frame-log" || opt.name == "--ui-scale") {
      auto v = p.value_of(opt.name, opt.inline_value, opt.has_inline);
      if (!v) return usage_error(v.error());
      if (opt.name == "--load") {
        options.load = std::string(*v);
      } else if (opt.name == "--load-rate") {
        auto rate = parse_number(*v, "--load-rate");
        if (!rate) return usage_error(rate.error());
        if (!(*rate > 0.0)) return usage_error("--load-rate expects a positive number of MB/s, got " + std::string(*v));
        options.load_rate = *rate;
      } else if (opt.name == "--frame-log") {
        options.frame_log = std::string(*v);
      } else if (opt.name == "--ui-scale") {
        auto scale = parse_number(*v, "--ui-scale");
        if (!scale) return usage_error(scale.error());
        if (!(*scale >= kMinUiScale && *scale <= kMaxUiScale))
          return usage_error("--ui-scale expects pixels per point from 0.5 to 4, got " + std::string(*v));
        options.ui_scale = static_cast<float>(*scale);
      } else if (opt.name == "--view") {
        const auto view = export_view_named(*v);
        if (!view) return usage_error("unknown view \"" + std::string(*v) + "\" (available: " + view_names() + ")");
        options.initial_view = *view;
      } else if (opt.name == "--screenshot") {
        options.screenshot = std::string(*v);
      } else if (opt.name == "--frames") {
        auto frames = parse_integer(*v, "--frames", 1, 100000);
        if (!frames) return usage_error(frames.error());
        options.frames = static_cast<int>(*frames);
      } else {
        const std::string text(*v);
        const auto x = text.find('x');
        auto w = parse_integer(text.substr(0, x), "--size width", 200, 8192);
        auto h = parse_integer(x == std::string::npos ? "" : text.substr(x + 1), "--size height", 200, 8192);
        if (!w || !h) return usage_error("--size expects WxH, e.g. 1440x900, got \"" + text + "\"");
        options.width = static_cast<int>(*w);
        options.height = static_cast<int>(*h);
      }
      continue;
    }
    return usage_error("unknown option \"" + std::string(opt.name) + "\"");
  }
  return run_gui(options);
}

// `poslab tokens --tokenizer F --sentence S …`: the ids of each sentence as a JSON array, one
// line per sentence.
int run_tokens(ArgParser& p) {
  std::string path;
  std::vector<std::string> sentences;
  while (!p.done()) {
    const ParsedOption opt = split_option(p.next());
    if (opt.name != "--tokenizer" && opt.name != "--sentence")
      return usage_error("unknown option \"" + std::string(opt.name) + "\" for tokens (--tokenizer F --sentence S)");
    auto v = p.value_of(opt.name, opt.inline_value, opt.has_inline);
    if (!v) return usage_error(v.error());
    if (opt.name == "--tokenizer") path = std::string(*v);
    else sentences.emplace_back(*v);
  }
  if (path.empty() || sentences.empty())
    return usage_error("tokens needs --tokenizer tokenizer.json and at least one --sentence TEXT");
  auto tokenizer = BpeTokenizer::load(path);
  if (!tokenizer) {
    std::fprintf(stderr, "poslab: error: %s\n", tokenizer.error().c_str());
    return kRuntimeError;
  }
  for (const std::string& sentence : sentences) {
    auto ids = tokenizer->encode(sentence);
    if (!ids) {
      std::fprintf(stderr, "poslab: error: %s\n", ids.error().c_str());
      return kRuntimeError;
    }
    std::string line = "[";
    for (std::size_t k = 0; k < ids->size(); ++k) line += (k ? ", " : "") + std::to_string((*ids)[k]);
    std::printf("%s]\n", line.c_str());
  }
  return 0;
}

// `poslab info --embeddings F | --model DIR`: what the file holds and how long it took to open.
int run_info(ArgParser& p) {
  State state;
  while (!p.done()) {
    const ParsedOption opt = split_option(p.next());
    if (auto applied = try_state_option(state, p, opt)) {
      if (!*applied) return usage_error(applied->error());
      continue;
    }
    return usage_error("unknown option \"" + std::string(opt.name) + "\" for info (--embeddings F or --model DIR)");
  }
  const std::string path = state.embeddings_path.empty() ? asset_path(kDefaultEmbeddingsFile) : state.embeddings_path;
  const auto start = std::chrono::steady_clock::now();
  auto table = load_embeddings_file(path, state.vocab_path, state.tensor_name);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!table) {
    std::fprintf(stderr, "poslab: error: %s\n", table.error().c_str());
    return kRuntimeError;
  }
  std::printf("source      %s\n", table->source().c_str());
  std::printf("vocabulary  %d\n", table->size());
  std::printf("dimension   %d\n", table->dim());
  std::printf("dtype       %s\n", table->dtype().c_str());
  std::printf("tokenizer   %s\n", table->tokenizer() ? "byte-level BPE (tokenizer.json)" : "words (PosLab's word splitter)");
  if (table->duplicates_ignored() > 0) std::printf("duplicates  %d ignored (the first wins)\n", table->duplicates_ignored());
  std::error_code ec;
  const auto folder = resolve_model_folder(path);
  if (folder && std::filesystem::is_regular_file(*folder / "config.json", ec)) {
    // What the model folder's config.json set: the heads and the positions PosLab will use.
    const ModelSettings& m = state.model;
    const int kv = key_value_heads(m);
    std::printf("heads       %d query, %d key/value%s, head_dim %d\n", m.heads, kv,
                kv == m.heads ? "" : " (grouped-query attention)", table->dim() / std::max(1, m.heads));
    std::printf("positions   %s\n", describe_encoding(m).c_str());
  }
  // A model folder that runs: its architecture, as the forward pass reads it.
  if (std::filesystem::is_directory(path, ec)) {
    if (auto model = Checkpoint::open(path))
      std::printf("model       %s · %s, %.4g MB memory-mapped\n", describe_model((*model)->config()).c_str(),
                  (*model)->dtype().c_str(), static_cast<double>((*model)->weight_bytes()) / 1e6);
    else
      std::printf("model       cannot run: %s\n", model.error().c_str());
  }
  std::printf("load time   %.1f ms\n", ms);
  // Where attention would run with these options, and why (--backend, the renderer).
  const HeadlessGpu g = open_headless_gpu(state.backend);
  std::printf("renderer    %s\n", g.renderer.empty() ? ("none: " + g.unavailable).c_str() : g.renderer.c_str());
  std::printf("backend     %s\n", g.choice.reason.c_str());
  return 0;
}

// `poslab tour --list`: one line per step, N<TAB>title<TAB>pass|fail, the checks computed now.
int run_tour(ArgParser& p) {
  State state;
  Language language = Language::En;
  bool list = false;
  while (!p.done()) {
    const ParsedOption opt = split_option(p.next());
    if (auto applied = try_state_option(state, p, opt)) {
      if (!*applied) return usage_error(applied->error());
      continue;
    }
    if (opt.name == "--list") {
      list = true;
      continue;
    }
    if (opt.name == "--lang") {
      auto v = p.value_of(opt.name, opt.inline_value, opt.has_inline);
      if (!v) return usage_error(v.error());
      auto parsed = parse_language(*v);
      if (!parsed) return usage_error(parsed.error());
      language = *parsed;
      continue;
    }
    return usage_error("unknown option \"" + std::string(opt.name) + "\" for tour");
  }
  if (!list) return usage_error("tour needs --list (or open the Tour tab in the GUI; export a step with poslab export tour --step N)");
  Workspace workspace;
  const std::string path = state.embeddings_path.empty() ? asset_path(kDefaultEmbeddingsFile) : state.embeddings_path;
  if (auto s = workspace.load_embeddings(path, state.vocab_path, state.tensor_name); !s) {
    std::fprintf(stderr, "poslab: error: %s\n", s.error().c_str());
    return kRuntimeError;
  }
  const auto& steps = tour_steps();
  const auto& texts = tour_texts(language);
  int failed = 0;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const TourCheck check = steps[k].check(tour_state(static_cast<int>(k), state), workspace.embeddings(), language);
    failed += check.pass ? 0 : 1;
    std::printf("%zu\t%s\t%s\n", k + 1, texts[k].title.c_str(), check.pass ? "pass" : "fail");
  }
  return failed == 0 ? 0 : kRuntimeError;
}

}  // namespace

int run_command_line(int argc, char** argv) {
  // Every figure of every command bakes the same glyphs, so the GUI and `poslab export` agree
  // to the pixel whichever view or language was drawn first.
  plot::add_figure_glyphs(tour_japanese_text());
  ArgParser p;
  for (int k = 1; k < argc; ++k) p.args.emplace_back(argv[k]);
  if (!p.done() && (p.args[0] == "--help" || p.args[0] == "-h")) {
    print_help();
    return 0;
  }
  if (!p.done() && p.args[0] == "--version") {
    std::printf("poslab %s\n", POSLAB_VERSION);
    return 0;
  }
  if (!p.done() && p.args[0] == "info") {
    p.next();
    return run_info(p);
  }
  if (!p.done() && p.args[0] == "tokens") {
    p.next();
    return run_tokens(p);
  }
  if (!p.done() && p.args[0] == "tour") {
    p.next();
    return run_tour(p);
  }
  if (!p.done() && p.args[0] == "predict") {
    p.next();
    return run_predict(p);
  }
  if (!p.done() && (p.args[0] == "train" || p.args[0] == "eval")) {
    const std::vector<std::string_view> rest(p.args.begin() + 1, p.args.end());
    return p.args[0] == "train" ? run_train(rest) : run_eval(rest);
  }
  if (p.args.size() >= 2 && p.args[0] == "export" && p.args[1] == "extrapolation")
    return run_export_extrapolation(std::vector<std::string_view>(p.args.begin() + 2, p.args.end()));
  if (!p.done() && p.args[0] == "export") {
    p.next();
    if (is_animation_request(p.args)) return run_animation_export({p.args.begin() + 1, p.args.end()});
    return run_export(p);
  }
  return run_gui_from_args(p);
}

}  // namespace poslab
