#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "cli/hub_cli.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
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
#include "figures/assets.hpp"
#include "tokenizer/tokenizer.hpp"
#include "core/tour/tour.hpp"
#include "plot/draw.hpp"
#include "figures/export.hpp"
#include "figures/launch.hpp"
#include "figures/model.hpp"
#include "core/model/model_run.hpp"
#include "figures/attention.hpp"
#include "cli/args.hpp"
#include "cli/train_cli.hpp"
#include "cli/animate_cli.hpp"
#include "cli/papers_cli.hpp"

namespace poslab {

namespace {

// The whole help: usage, one block per command, then the state options.
std::string help_text() {
  const std::string views = view_names(), animation = animation_help();
  // Written twice: once to learn its length, once into a buffer of that length.
  const auto fill = [&](char* out, std::size_t size) {
    return std::snprintf(out, size,
      "PosLab %s — a lab for transformer positional encodings and attention\n\n"
      "usage:\n"
      "  poslab [state options] [--view VIEW] [--step N] [--lang en|ja] [--screenshot FILE.png]\n"
      "         [--frames N] [--size WxH] [--load FILE] [--load-rate MB/s] [--frame-log FILE.csv]\n"
      "         [--ui-scale S] [--probe FILE]\n"
      "      the GUI, showing VIEW's tab first (the tour at step N, in English or Japanese);\n"
      "      with --screenshot it saves the window after N frames (default 5; counted once a\n"
      "      --load has finished) and quits; --load starts loading FILE as the Load button does\n"
      "      (on its own thread); --load-rate parses text files no faster than a drive of that\n"
      "      speed would deliver them (to watch progress and Cancel); --frame-log writes\n"
      "      frame,ms,loading,rows,computing,drawing,view per frame (computing: the attention\n"
      "      runs; drawing: the view's figure is built, both off the UI thread; view: the tab\n"
      "      shown); --ui-scale draws the interface and its figures at S pixels per point (0.5\n"
      "      to 4; default: the UI scale menu's setting, else the monitor's); --probe keeps FILE\n"
      "      up to date with where the window's controls are and what it shows (tab-separated\n"
      "      lines, for scripted tests: tests/gui_kit.sh)\n"
      "  poslab export VIEW [state options] [--png FILE] [--svg FILE] [--csv FILE] [--scale N]\n"
      "      headless (no window, no X server): the view as PNG (scale 1 to 8) or SVG, its data\n"
      "      as CSV (columns in README.md). VIEW: %s\n"
      "      --html FILE (attention, heads): one page that shows each cell's values under the\n"
      "      pointer, with a head selector; nothing fetched from a network\n"
      "  poslab export all --dir DIR [state options] [--scale N]\n"
      "      every view as DIR/VIEW.png, .svg and .csv\n"
      "%s"
      "  poslab export tour --step N [--lang en|ja] [--png F] [--svg F] [--csv F] [--scale N]\n"
      "      a step of the tour as one slide: words, formulas, live check and plot\n"
      "  poslab export attention --model DIR --layer L [state options] [--png F] [--svg F] [--csv F] [--html F]\n"
      "  poslab export heads --model DIR --layer L [--png F] [--svg F] [--csv F] [--html F]\n"
      "  poslab export frequency-usage --model DIR --layer L [--png F] [--csv F]\n"
      "  poslab export pair-scores --model DIR --layer L --head H [--query I] [--png F] [--svg F] [--csv F]\n"
      "      a model folder's own forward pass: layer L's heads (attention, small multiples with\n"
      "      sink, distance and previous-token scores; RoPE frequency usage per head and pair; one\n"
      "      head's scores split by rotary pair, pairs against distance).\n"
      "      --base, --rope-scaling, --rope-style, --encoding none, --position-shift and --permute\n"
      "      change its positions, drawn beside the unchanged model\n"
      "  poslab export mrope --model DIR [--layout text:5,image:4x6,text:3] [--png F] [--svg F] [--csv F]\n"
      "  poslab export sinks --model DIR [--sentence S] [--png F] [--svg F] [--csv F]\n"
      "  poslab export activations --model DIR [--sentence S] [--png F] [--svg F] [--csv F]\n"
      "      an M-RoPE model's layout (Qwen2-VL, Qwen2.5-VL, Qwen3-VL): which rotary pairs turn by t, h\n"
      "      and w, and the (t, h, w) ids of a text + image sequence (image:HxW in vision patches);\n"
      "      CSV index,kind,t,h,w\n"
      "  poslab export position-probe --model DIR [--text FILE] [--png F] [--svg F] [--csv F]\n"
      "      a ridge probe of each token's position from every layer's residual stream (Haviv et\n"
      "      al. 2022), fitted on every other sentence and scored on the rest; CSV layer,r2,mean_abs_error\n"
      "  poslab predict --model DIR --sentence S [--top K] [state options]\n"
      "      the model's top-K next tokens at every position, the loss and perplexity, as JSON\n"
      "      (a mixture of experts adds \"experts\": per layer and position, [[expert, weight], ...])\n"
      "  poslab train [--task copy|recall|reverse] [--encoding none|sinusoidal|learned|rope|alibi|t5] --out DIR\n"
      "         [--layers N] [--width N] [--heads N] [--mlp N] [--train-length N] [--min-length N]\n"
      "         [--steps N] [--batch N] [--lr X] [--warmup N] [--seed N] [--vocab N] [--rope-theta B]\n"
      "         [--partial-rotary P] [--rope-fraction P] [--log F.csv]\n"
      "      trains a tiny decoder (defaults: copy, rope, 2 layers, width 64, 4 heads, length 32,\n"
      "      1500 steps of 32, lr 3e-3, 16 symbols) and writes DIR as a model folder for --model;\n"
      "      --min-length N trains on every length from N to the training length at once;\n"
      "      the log CSV has step,loss,lr,tokens_per_s\n"
      "  poslab eval --model DIR [--task copy|recall|reverse] [--lengths 32,64,128] [--rope-scaling KIND]\n"
      "         [--sequences N] [--seed N] [--csv F]\n"
      "      a trained model's loss and exact-match accuracy per length (default 1x to 16x its\n"
      "      training length); KIND: none, linear, ntk, dynamic, yarn (factor from the length)\n"
      "  poslab export extrapolation --models DIR,DIR,... [--task copy] [--lengths ...] [--png F]\n"
      "         [--svg F] [--csv F] [--scale N] [--sequences N] [--rope-scalings yes|no]\n"
      "      accuracy and loss against length, one line per model, RoPE also with each scaling;\n"
      "      CSV model,encoding,scaling,train_length,length,tokens,loss,accuracy\n"
      "  poslab export training --model ORG/NAME --revisions R,R,... --layer L [--sentence S]\n"
      "         [--csv F] [--png F] [--svg F] [--scale N]\n"
      "      each revision (step1000, a tag, a commit) downloaded from the Hub and run on the\n"
      "      sentence: layer L's heads' previous-token, induction, sink and distance scores and\n"
      "      the loss against the training step; CSV\n"
      "      revision,step,layer,head,previous,induction,sink,distance,loss\n"
      "  poslab papers\n"
      "      the published numbers and claims PosLab checks, from the papers' mathematics, on the\n"
      "      tiny models it ships and on a model folder: one entry per check (id, paper, where,\n"
      "      what it needs); docs/PAPERS.md says what each reproduces\n"
      "  poslab papers check [ID ...] [--model DIR] [--json F]\n"
      "      runs the checks (all by default; those needing a model only with --model): a table of\n"
      "      published against PosLab's values with a verdict; exit 0 when every check is\n"
      "      reproduced, 1 when one differs or cannot be made on the model; --json writes a list of objects with the keys id,\n"
      "      paper, where, quantity, published, measured, tolerance, pass (one per comparison)\n"
      "  poslab export paper --id ID [--model DIR] --png F [--svg F] [--csv F]\n"
      "      one check's figure: PosLab's curves with the published values beside them; CSV\n"
      "      panel,curve,kind,x,y\n"
      "  poslab info [--embeddings F | --model DIR] [--vocab F] [--tensor NAME]\n"
      "      vocabulary size, dimension, dtype, tokenizer and load time of an embeddings file; the\n"
      "      OpenGL renderer and where --backend (auto unless given) computes attention, and why\n"
      "  poslab tokens --tokenizer tokenizer.json --sentence TEXT [--sentence TEXT …]\n"
      "      BPE token ids of a Hugging Face tokenizer.json (GPT-2, Llama 2 and 3, Gemma, Qwen,\n"
      "      DeepSeek V3; special tokens as add_special_tokens=True adds them), a JSON array each\n"
      "  poslab tour --list [--lang en|ja]\n"
      "      one line per tour step: N, title, pass|fail of its live check\n"
      "  poslab --help | --version\n\n"
      "sessions: --session FILE starts from a saved state (options after it refine it);\n"
      "          export's --save-session FILE writes the state it used\n"
      "memory:   --memory-limit SIZE (512M, 8G; any command) caps what a run may take; a run that\n"
      "          would need more is refused first, saying which option lowers it (default: half\n"
      "          of this machine's memory)\n"
      "models:   --model ORG/NAME[@REVISION] (any command that takes --model DIR) opens a model of\n"
      "          the Hugging Face Hub from its cache ($HF_HUB_CACHE, $HF_HOME/hub or\n"
      "          ~/.cache/huggingface/hub), downloading what is missing from $HF_ENDPOINT\n"
      "          ($HF_TOKEN for gated models; HF_HUB_OFFLINE=1: the cache only)\n\n"
      "state options:\n",
      POSLAB_VERSION, views.c_str(), animation.c_str());
  };
  std::string text(static_cast<std::size_t>(std::max(0, fill(nullptr, 0))), '\0');
  fill(text.data(), text.size() + 1);
  return text + state_options_help();
}

void print_help() { std::fputs(help_text().c_str(), stdout); }

// Whether a usage block of the help ("  poslab export VIEW …" and the lines under it) is about
// the command `words` names: `export attention` is an `export VIEW` and has blocks of its own.
bool block_is_for(std::string_view usage, const std::vector<std::string>& words) {
  std::string named = "  poslab";
  for (const auto& w : words) named += " " + w;
  const auto is = [&](const std::string& prefix) {
    return usage.starts_with(prefix) && (usage.size() == prefix.size() || usage[prefix.size()] == ' ' || usage[prefix.size()] == '\n');
  };
  if (is(named)) return true;
  const auto view = words.size() == 2 && words[0] == "export" ? view_named(words[1]) : std::nullopt;
  const bool a_view = view && view_info(*view).needs == ViewNeeds::Embeddings;
  return a_view && is("  poslab export VIEW");
}

// `poslab COMMAND … --help`: that command's blocks of the help, with the state options when it
// takes them; the whole help when no block names it.
void print_command_help(const std::vector<std::string>& words) {
  const std::string all = help_text();
  const auto usage_start = all.find("usage:\n");
  const auto usage_end = all.find("\n\n", usage_start);
  std::string blocks, block;
  std::istringstream in(all.substr(usage_start + 7, usage_end - usage_start - 7));
  const auto flush = [&] {
    if (!block.empty() && block_is_for(block, words)) blocks += block;
    block.clear();
  };
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("  poslab ")) flush();
    block += line + "\n";
  }
  flush();
  if (blocks.empty()) return print_help();
  const bool takes_no_state = words.size() == 2 && words[0] == "export" && words[1] == "paper";
  const bool state_options = !takes_no_state && (words[0] == "export" || words[0] == "predict" || words[0] == "info");
  std::printf("usage:\n%s%s", blocks.c_str(), state_options ? ("\nstate options:\n" + state_options_help()).c_str() : "");
}

// The command's words before its first option (`export training`, `predict`) when its arguments
// ask for --help (or -h); none otherwise.
std::optional<std::vector<std::string>> command_asking_help(const ArgParser& p) {
  static const std::set<std::string_view> commands = {"export", "predict", "train", "eval", "info", "tokens", "tour", "papers"};
  if (p.done() || !commands.contains(p.args[0])) return std::nullopt;
  if (std::none_of(p.args.begin() + 1, p.args.end(), [](std::string_view a) { return a == "--help" || a == "-h"; })) return std::nullopt;
  std::vector<std::string> words;
  for (std::string_view a : p.args) {
    if (a.starts_with("-") || words.size() == 2) break;
    words.emplace_back(a);
  }
  return words;
}

// A flag of the GUI whose value is checked by `parse` into the options.
template <typename Parse>
Flag gui_flag(std::string_view name, Parse parse) {
  return {name, [parse](std::string_view v) -> Status { return parse(v); }};
}

// The GUI's own options, each declared once.
std::vector<Flag> gui_flags(GuiOptions& o) {
  return {
      text_flag("--screenshot", o.screenshot),
      integer_flag("--frames", 1, 100000, o.frames),
      gui_flag("--size", [&o](std::string_view v) -> Status {
        auto size = parse_pair(v, "--size", 'x', 200, 8192, "1440x900");
        if (!size) return Error{size.error()};
        std::tie(o.width, o.height) = *size;
        return Ok{};
      }),
      gui_flag("--view", [&o](std::string_view v) -> Status {
        const auto view = view_named(v);
        if (!view)
          return Error{"unknown view \"" + std::string(v) + "\" (available: " +
                       view_names_where([](const ViewInfo&) { return true; }) + ")"};
        o.initial_view = *view;
        return Ok{};
      }),
      text_flag("--load", o.load),
      gui_flag("--load-rate", [&o](std::string_view v) -> Status {
        auto rate = parse_number(v, "--load-rate");
        if (!rate) return Error{rate.error()};
        if (!(*rate > 0.0)) return Error{"--load-rate expects a positive number of MB/s, got " + std::string(v)};
        o.load_rate = *rate;
        return Ok{};
      }),
      text_flag("--frame-log", o.frame_log),
      gui_flag("--ui-scale", [&o](std::string_view v) -> Status {
        auto scale = parse_number(v, "--ui-scale");
        if (!scale) return Error{scale.error()};
        if (!(*scale >= kMinUiScale && *scale <= kMaxUiScale))
          return Error{"--ui-scale expects pixels per point from 0.5 to 4, got " + std::string(v)};
        o.ui_scale = static_cast<float>(*scale);
        return Ok{};
      }),
      text_flag("--probe", o.probe),
      gui_flag("--step", [&o](std::string_view v) -> Status {
        auto step = parse_integer(v, "--step", 1, static_cast<long long>(tour_steps().size()));
        if (!step) return Error{step.error()};
        o.tour_step = static_cast<int>(*step) - 1;
        return Ok{};
      }),
      gui_flag("--lang", [&o](std::string_view v) -> Status {
        auto language = parse_language(v);
        if (!language) return Error{language.error()};
        o.tour_language = *language;
        return Ok{};
      }),
  };
}

int run_gui_from_args(ArgParser& p, const GuiLauncher& run_gui) {
  GuiOptions options;
  options.remember_session = p.done();  // a plain `poslab` picks up where the last one left off
  const auto unknown = [](std::string_view name) { return "unknown option \"" + std::string(name) + "\""; };
  if (auto s = p.parse(gui_flags(options), &options.state, unknown); !s) return parse_error(p, s);
  // The files the window writes, checked before it opens: a bad one is found now, not at the end.
  OutputPlan plan;
  plan.add_checked("--screenshot", options.screenshot);
  plan.add_checked("--frame-log", options.frame_log);
  plan.add_checked("--probe", options.probe);
  plan.add_input("--load", options.load);
  plan_state_inputs(plan, options.state);
  if (const int code = prepare_outputs(plan)) return code;
  return run_gui(options);
}

}  // namespace

int run_command_line(int argc, char** argv, const GuiLauncher& run_gui) {
  // Every figure of every command bakes the same glyphs, so the GUI and `poslab export` agree
  // to the pixel whichever view or language was drawn first.
  plot::add_figure_glyphs(tour_japanese_text());
  install_command_line_resolver();  // a --model ORG/NAME may download, and says so on stderr
  ArgParser p;
  for (int k = 1; k < argc; ++k) p.args.emplace_back(argv[k]);
  if (!p.done() && (p.args[0] == "--help" || p.args[0] == "-h")) {
    print_help();
    return 0;
  }
  if (auto words = command_asking_help(p)) {
    print_command_help(*words);
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
    const bool train = p.next() == "train";
    return train ? run_train(p) : run_eval(p);
  }
  if (!p.done() && p.args[0] == "papers") {
    p.next();
    return run_papers(p);
  }
  if (p.args.size() >= 2 && p.args[0] == "export" && p.args[1] == "paper") {
    p.i = 2;
    return run_export_paper(p);
  }
  // The views drawn from trained models or a Hub model's revisions take options of their own.
  if (const auto view = p.args.size() >= 2 && p.args[0] == "export" ? view_named(p.args[1]) : std::nullopt) {
    const ViewNeeds needs = view_info(*view).needs;
    if (needs == ViewNeeds::TrainedModels || needs == ViewNeeds::Revisions) {
      p.i = 2;
      return needs == ViewNeeds::Revisions ? run_export_training(p) : run_export_extrapolation(p);
    }
  }
  if (!p.done() && p.args[0] == "export") {
    p.next();
    if (is_animation_request(p.args)) return run_animation_export(p);
    return run_export(p);
  }
  return run_gui_from_args(p, run_gui);
}

}  // namespace poslab
