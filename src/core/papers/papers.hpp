#pragma once
// "Papers, checked" (docs/PAPERS.md): published numbers of positional-encoding papers recomputed
// from their mathematics alone and compared, with a verdict. paper_checks() is the one list of
// checks: `poslab papers`, `poslab papers check`, `poslab export paper` and docs/PAPERS.md follow it.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace poslab {

// How a measured value is held against a published one.
enum class Relation {
  Equal,   // |measured − published| ≤ tolerance
  AtMost,  // measured ≤ published + tolerance (a published claim "falls below …")
};

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
};

enum class PaperNeeds { Nothing, Model };

struct PaperCheck {
  std::string_view id;
  std::string_view paper;  // the main paper: authors, year, title
  std::string_view where;
  std::string_view what;   // one line: what is reproduced
  PaperNeeds needs = PaperNeeds::Nothing;
  PaperCheckResult (*run)();
  std::vector<PaperPanel> (*panels)();
};

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
