#pragma once
// "Papers, checked" (docs/PAPERS.md): published numbers of positional-encoding papers recomputed
// from their mathematics alone and compared, with a verdict. paper_checks() is the one list of
// checks: `poslab papers`, `poslab papers check`, `poslab export paper` and docs/PAPERS.md follow it.
#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.hpp"

namespace poslab {

// How a measured value is held against a published one.
enum class Relation {
  Equal,    // |measured − published| ≤ tolerance
  AtMost,   // measured ≤ published + tolerance (a published claim "falls below …")
  AtLeast,  // measured ≥ published − tolerance (a published claim "stays above …", "rises by …")
};

// "≤ ", "≥ " or nothing: how a published value is read, before it.
std::string relation_prefix(Relation r);

// One published quantity against PosLab's value of it; a list when the paper gives several
// (ALiBi's slopes), compared element by element.
struct PaperComparison {
  std::string paper;     // authors, year, title
  std::string where;     // section, figure or table
  std::string quantity;  // what is compared, with its setting
  std::vector<double> published, measured;
  double tolerance = 0.0;  // absolute, in the quantity's unit
  Relation relation = Relation::Equal;
  std::string note;  // how the difference arises, when it is not a pass
  bool pass() const;
  double largest_difference() const;  // max |measured − published|; +∞ when the sizes differ
};

// One comparison, as every check writes it.
PaperComparison comparison(std::string_view paper, std::string where, std::string quantity,
                           std::vector<double> published, std::vector<double> measured, double tolerance,
                           Relation relation = Relation::Equal, std::string note = {});

struct PaperCheckResult {
  std::string id;
  std::vector<PaperComparison> rows;
  bool pass() const;
};

// One curve of a check's figure: PosLab's computation, a published value, or a published fit.
enum class CurveKind { Computed, Published, Fit };
struct PaperCurve {
  std::string label;
  std::vector<double> x, y;
  CurveKind kind = CurveKind::Computed;
};
// One panel of a check's figure, as data (src/figures/papers.cpp draws it).
struct PaperPanel {
  std::string title, x_label, y_label;
  bool log_x = false, log_y = false;
  std::vector<PaperCurve> curves;
  std::vector<std::pair<double, std::string>> reference_y;  // horizontal dashed lines and their labels
  std::vector<std::pair<double, std::string>> marks_x;      // vertical dashed lines and their labels
  bool whole_x = false;      // x is a count (a layer, a category): ticks at whole numbers
  bool categorical = false;  // x numbers categories: every curve drawn as points, no lines between
};

// What a check reads besides the mathematics: nothing; the tiny models PosLab ships, trained on
// synthetic tasks (assets/trained); or a model the user opens (--model DIR).
enum class PaperNeeds { Nothing, TrainedModels, Model };

struct PaperInputs {
  std::filesystem::path trained;  // the shipped trained models' folder (the TrainedModels checks)
  std::filesystem::path model;    // the model folder of the Model checks
  bool panels = true;             // the figure's data too (`papers check` prints only the table)
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(double)> progress;  // 0 … 1 within the check
};

struct PaperOutcome {
  PaperCheckResult result;
  std::vector<PaperPanel> panels;  // empty unless PaperInputs::panels
};

struct PaperCheck {
  std::string_view id;
  std::string_view paper;  // the main paper: authors, year, title
  std::string_view where;
  std::string_view what;  // one line: what is reproduced
  PaperNeeds needs = PaperNeeds::Nothing;
  // The comparisons and, when asked, the figure's panels. An error is a check that could not be
  // made (a model missing or of the wrong kind), not one that differs.
  Result<PaperOutcome> (*compute)(const PaperInputs&);
};

// "nothing (the mathematics alone)", "the shipped tiny models", "--model DIR".
std::string_view needs_words(PaperNeeds needs);

// Runs a check, first refusing by name what it needs and was not given.
Result<PaperOutcome> run_paper_check(const PaperCheck& check, const PaperInputs& inputs);

const std::vector<PaperCheck>& paper_checks();
const PaperCheck* find_paper_check(std::string_view id);
std::string paper_check_ids();  // "roformer-decay, alibi-slopes, …"

// The results as a table (one line per comparison) and as JSON: a list of objects with exactly
// the keys id, paper, where, quantity, published, measured, tolerance, pass (one per comparison;
// published and measured a number, or a list when the paper gives several).
std::string papers_table(const std::vector<PaperCheckResult>& results);
std::string papers_json(const std::vector<PaperCheckResult>& results);
// A check's figure data as CSV: panel,curve,kind,x,y.
std::string papers_csv(const std::vector<PaperPanel>& panels);

}  // namespace poslab
