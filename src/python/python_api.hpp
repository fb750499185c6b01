#pragma once
// `import poslab`: what the Python module computes, in C++ with no Python in it. src/python/module.cpp
// turns Python's arguments into these types (keywords into Keyword, arrays into Matrix), releases
// the GIL around every call below, and turns a Failure into the Python exception its kind names.
// Each keyword is a command-line option (`rope_scaling="yarn"` is `--rope-scaling yarn`), read
// by the command line's own parser (core/arguments.hpp) and state options (core/options.hpp).
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/matrix.hpp"
#include "base/result.hpp"
#include "core/arguments.hpp"
#include "core/state.hpp"
#include "figures/views.hpp"
#include "plot/figure.hpp"

namespace poslab {
class Checkpoint;
}

namespace poslab::python {

// Which Python exception a failure is: ValueError (a bad value), FileNotFoundError (a file or
// folder that is not there), MemoryError (over the memory budget, base/memory.hpp), RuntimeError
// (the machine cannot do it: no OpenGL for a PNG).
enum class ErrorKind { Value, FileNotFound, Memory, Runtime };

class Failure : public std::exception {
 public:
  Failure(ErrorKind kind, std::string message) : kind_(kind), message_(std::move(message)) {}
  ErrorKind kind() const { return kind_; }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  ErrorKind kind_;
  std::string message_;
};

// PosLab's message as the failure it describes: the memory budget's refusal (check_memory's
// "more than the memory limit"), a missing file ("no such file", "does not exist", "no such
// model"), else a bad value.
ErrorKind error_kind(std::string_view message);

// The papers' checks (python_papers.cpp): `ids` (empty: every one), those that need a model only
// with `model`; the JSON of `poslab papers check --json`. An unknown id is a ValueError naming the
// valid ones. papers_list: the ids, in the registry's order.
std::string papers_check(const std::vector<std::string>& ids, const std::optional<std::string>& model);
std::vector<std::string> papers_list();
[[noreturn]] void fail(const std::string& message);
void check(const Status& status);
template <typename T>
T take(Result<T> result) {
  if (!result) fail(result.error());
  return std::move(*result);
}

// A keyword argument as an option: `name` as Python spells it (`rope_scaling`), its value as
// text, or nullopt for a switch that is on (`causal=True`; False leaves a switch out).
struct Keyword {
  std::string name;
  std::optional<std::string> value;
};
using Keywords = std::vector<Keyword>;

// The state the keywords ask for, over the defaults, read as the command line reads
// `--name=value …`, with the state options' checks. `function` names the caller in messages
// ("poslab.attention"); `flags` are its own options besides the state's. An unknown keyword is
// an error naming every keyword the function takes. A --memory-limit holds for the call only.
struct ParsedKeywords {
  State state;
  std::vector<std::string> options;  // the options given ("--head"), for the checks of given indices
  bool given(std::string_view option) const;
};
ParsedKeywords parse_keywords(const Keywords& keywords, std::string_view function, const std::vector<Flag>& flags = {});

// The memory budget as it was before the call, restored when the call ends.
class MemoryLimitScope {
 public:
  MemoryLimitScope();
  ~MemoryLimitScope();
  MemoryLimitScope(const MemoryLimitScope&) = delete;
  MemoryLimitScope& operator=(const MemoryLimitScope&) = delete;

 private:
  std::uint64_t bytes_;
  std::string source_;
};

// A figure as PosLab exports it, with the CSV of the same view.
struct Figure {
  plot::Figure figure;
  std::string csv;
  // The attention and heads figures: their interactive page (figures/html_page.hpp), made when
  // asked for; empty for the other views.
  std::function<Result<std::string>()> html;

  std::string png(float scale = 1.0f) const;  // the PNG file's bytes (needs OpenGL: EGL, no display)
  std::string svg() const;
  // By the path's suffix: .png, .svg, .csv or .html, written atomically.
  void save(const std::string& path, float scale = 1.0f) const;
  std::string to_html() const;  // the interactive page (attention, heads), else the figure alone as a page
};

// One attention computation: per head, T_q × T_k weights and scores; the tokens of the rows and
// the columns; its heatmap.
struct Attention {
  std::vector<Matrix> weights, scores;
  std::vector<std::string> tokens, key_tokens;
  Figure figure;
};

// The fraction done of a long run (0 … 1), called on the computing thread.
using Progress = std::function<void(double)>;

// poslab.encoding: `positions` × `dim`, row p the encoding of position p. The additive kinds as
// the pipeline adds them; "rope" as the rotation of each pair, sin(p·θ'ᵢ) in column 2i and
// cos(p·θ'ᵢ) in 2i + 1 with the state's context scaling (pairs past the rotary width: 0 and 1).
Matrix encoding(const std::string& kind, long long positions, long long dim, const Keywords& keywords);

// poslab.attention: the explorer's attention for the sentence (or a model folder's layer, with
// model= and layer=), as `poslab export attention` computes it.
Attention attention(const std::string& sentence, const Keywords& keywords, const Progress& progress);

// poslab.figure: any view `poslab export VIEW` draws, with its CSV.
Figure view_figure(const std::string& view, const Keywords& keywords, const Progress& progress);

// poslab.plot_attention: heads × T × T weights drawn as the attention view draws them.
Figure plot_attention(std::vector<Matrix> weights, std::vector<std::string> tokens, const Keywords& keywords);

// poslab.Model: a model folder (or ORG/NAME[@REVISION] through the Hub's cache) and its own
// forward pass; each call's keywords are the state options over the model's own settings.
class Model {
 public:
  explicit Model(const std::string& name_or_dir);
  const std::string& folder() const { return folder_; }
  std::string design() const;
  std::vector<std::string> tokens(const std::string& text) const;
  Attention attention(const std::string& text, int layer, const std::optional<std::string>& stack,
                      const Keywords& keywords, const Progress& progress) const;
  Figure heads(const std::string& text, int layer, const Keywords& keywords, const Progress& progress) const;
  std::string predict(const std::string& text, int top, const Keywords& keywords, const Progress& progress) const;
  Matrix frequency_usage(const std::string& text, int layer, const Keywords& keywords, const Progress& progress) const;

 private:
  struct Run;
  // The forward pass for the keywords over the model's own settings, `view`'s checks made first
  // when a layer is asked for (frequency-usage: RoPE models only).
  // `view`: the view the run draws (none: predict's predictions alone, no layer's matrices kept).
  Run run(const char* function, Keywords keywords, int top, const Progress& progress, std::optional<ViewId> view) const;

  std::string folder_;
  std::shared_ptr<const Checkpoint> checkpoint_;
};

}  // namespace poslab::python
