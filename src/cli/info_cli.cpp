// `poslab tokens`, `poslab info` and `poslab tour --list`: what a file, the machine and the tour hold.
#include "cli/commands.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "base/gemm.hpp"
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
#include "core/model/position_design.hpp"
#include "core/model/model_run.hpp"
#include "figures/attention.hpp"
#include "cli/args.hpp"
#include "cli/train_cli.hpp"
#include "cli/animate_cli.hpp"

namespace poslab {

namespace {

// What `poslab tokens` was asked for.
struct TokensArgs {
  std::string path;
  std::vector<std::string> sentences;
};

constexpr std::string_view kTokensNeed = "tokens needs --tokenizer tokenizer.json and at least one --sentence TEXT";

std::vector<Flag> tokens_flags(TokensArgs& a) {
  Flag sentence("--sentence", "TEXT", "a text to encode, one JSON array of ids each",
                [&a](std::string_view v) -> Status {
                  a.sentences.emplace_back(v);
                  return Ok{};
                },
                /*repeated=*/true);
  return {needed(text_flag("--tokenizer", "tokenizer.json", "a Hugging Face tokenizer.json", a.path), std::string(kTokensNeed)),
          needed(std::move(sentence), std::string(kTokensNeed))};
}

// What `poslab tour` was asked for besides the state.
struct TourArgs {
  Language language = Language::En;
};

std::vector<Flag> tour_flags(TourArgs& a) {
  // Listing is all the command does, so --list keeps nothing: it must be given, and is.
  Flag list("--list", "", "list the steps", [](std::string_view) -> Status { return Ok{}; });
  return {needed(std::move(list), "tour needs --list (or open the Tour tab in the GUI; export a step with poslab export tour --step N)"),
          language_flag(a.language)};
}

}  // namespace

FlagTable tokens_flag_table() { return flag_table(tokens_flags); }
FlagTable tour_flag_table() { return flag_table(tour_flags); }

// `poslab tokens --tokenizer F --sentence S …`: the ids of each sentence as a JSON array, one
// line per sentence.
int run_tokens(ArgParser& p) {
  TokensArgs a;
  const auto unknown = [](std::string_view name) {
    return "unknown option \"" + std::string(name) + "\" for tokens (--tokenizer F --sentence S)";
  };
  if (auto s = p.parse(tokens_flags(a), nullptr, unknown); !s) return parse_error(p, s);
  const std::string& path = a.path;
  const std::vector<std::string>& sentences = a.sentences;
  if (path.empty() || sentences.empty()) return usage_error(std::string(kTokensNeed));  // given, but empty
  auto tokenizer = BpeTokenizer::load(path);
  if (!tokenizer) {
    return runtime_error(tokenizer.error());
  }
  for (const std::string& sentence : sentences) {
    auto ids = tokenizer->encode(sentence);
    if (!ids) {
      return runtime_error(ids.error());
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
  const auto unknown = [](std::string_view name) {
    return "unknown option \"" + std::string(name) + "\" for info (--embeddings F or --model DIR)";
  };
  if (auto s = p.parse({}, &state, unknown); !s) return parse_error(p, s);
  const std::string path = state.embeddings_path.empty() ? asset_path(kDefaultEmbeddingsFile) : state.embeddings_path;
  const auto start = std::chrono::steady_clock::now();
  auto table = load_embeddings_file(path, state.vocab_path, state.tensor_name);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!table) {
    return runtime_error(table.error());
  }
  std::printf("source      %s\n", table->source().c_str());
  std::printf("vocabulary  %d\n", table->size());
  std::printf("dimension   %d\n", table->dim());
  std::printf("dtype       %s\n", table->dtype().c_str());
  std::printf("tokenizer   %s\n", table->tokenizer() ? (table->tokenizer()->describe() + " (tokenizer.json)").c_str() : "words (PosLab's word splitter)");
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
    if (auto model = Checkpoint::open(path)) {
      std::printf("model       %s · %s, %.4g MB memory-mapped\n", describe_model((*model)->config()).c_str(),
                  (*model)->dtype().c_str(), static_cast<double>((*model)->weight_bytes()) / 1e6);
      std::printf("design      %s\n", describe_positions((*model)->config()).c_str());
      if (const std::string sources = describe_rope_sources((*model)->config()); !sources.empty())
        std::printf("rope from   %s\n", sources.c_str());
    } else
      std::printf("model       cannot run: %s\n", model.error().c_str());
  }
  std::printf("load time   %.1f ms\n", ms);
  // Where attention would run with these options, and why (--backend, the renderer).
  const HeadlessGpu g = open_headless_gpu(state.backend);
  std::printf("renderer    %s\n", g.renderer.empty() ? ("none: " + g.unavailable).c_str() : g.renderer.c_str());
  std::printf("backend     %s\n", g.choice.reason.c_str());
  // The matrix products' instruction set (base/gemm.hpp): the CPU's best unless POSLAB_ISA chose lower.
  std::printf("cpu         products on %s (this CPU's best: %s; POSLAB_ISA=baseline|avx2|avx512 chooses lower)\n",
              std::string(isa_words(active_isa())).c_str(), std::string(isa_words(cpu_isa())).c_str());
  // Where a model's BF16 activations (--precision bf16) are multiplied by its BF16 weights.
  std::printf("bf16        %s\n", bf16_tile_products() ? "BF16 activations times BF16 weights on AMX's tile unit"
                                                       : "BF16 activations multiplied as floats (no AMX tile unit in use)");
  return 0;
}

// `poslab tour --list`: one line per step, N<TAB>title<TAB>pass|fail, the checks computed now.
int run_tour(ArgParser& p) {
  State state;
  TourArgs a;
  const auto unknown = [](std::string_view name) { return "unknown option \"" + std::string(name) + "\" for tour"; };
  if (auto s = p.parse(tour_flags(a), &state, unknown); !s) return parse_error(p, s);
  const Language language = a.language;
  Workspace workspace;
  const std::string path = state.embeddings_path.empty() ? asset_path(kDefaultEmbeddingsFile) : state.embeddings_path;
  if (auto s = workspace.load_embeddings(path, state.vocab_path, state.tensor_name); !s) {
    return runtime_error(s.error());
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

}  // namespace poslab
