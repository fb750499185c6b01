#include "core/papers/papers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/csv.hpp"
#include "base/number_text.hpp"

namespace poslab {

namespace {

// A list of values, the first few and a count when long.
std::string show_list(const std::vector<double>& v) {
  if (v.size() == 1) return number_text(v[0]);
  std::string out = "[";
  for (std::size_t i = 0; i < v.size() && i < 4; ++i) out += (i ? ", " : "") + number_text(v[i]);
  if (v.size() > 4) out += ", … (" + std::to_string(v.size()) + ")";
  return out + "]";
}

nlohmann::json values(const std::vector<double>& v) {
  if (v.size() == 1) return v[0];
  return nlohmann::json(v);
}

}  // namespace

std::string relation_prefix(Relation r) { return r == Relation::AtMost ? "≤ " : r == Relation::AtLeast ? "≥ " : ""; }

PaperComparison comparison(std::string_view paper, std::string where, std::string quantity,
                           std::vector<double> published, std::vector<double> measured, double tolerance,
                           Relation relation, std::string note) {
  return {std::string(paper), std::move(where), std::move(quantity), std::move(published), std::move(measured),
          tolerance,          relation,         std::move(note)};
}

double PaperComparison::largest_difference() const {
  if (published.size() != measured.size() || published.empty()) return std::numeric_limits<double>::infinity();
  double worst = 0.0;
  for (std::size_t i = 0; i < published.size(); ++i) {
    const double d = std::abs(measured[i] - published[i]);
    if (!std::isfinite(d)) return std::numeric_limits<double>::infinity();
    worst = std::max(worst, d);
  }
  return worst;
}

bool PaperComparison::pass() const {
  if (published.size() != measured.size() || published.empty()) return false;
  for (std::size_t i = 0; i < published.size(); ++i) {
    if (!std::isfinite(measured[i])) return false;
    const bool ok = relation == Relation::AtMost    ? measured[i] <= published[i] + tolerance
                    : relation == Relation::AtLeast ? measured[i] >= published[i] - tolerance
                                                    : std::abs(measured[i] - published[i]) <= tolerance;
    if (!ok) return false;
  }
  return true;
}

bool PaperCheckResult::pass() const {
  return !rows.empty() && std::all_of(rows.begin(), rows.end(), [](const PaperComparison& c) { return c.pass(); });
}

std::string_view needs_words(PaperNeeds needs) {
  switch (needs) {
    case PaperNeeds::Nothing:
      return "nothing (the mathematics alone)";
    case PaperNeeds::TrainedModels:
      return "the tiny models PosLab ships (assets/trained)";
    case PaperNeeds::Model:
      return "--model DIR";
  }
  return "";
}

Result<PaperOutcome> run_paper_check(const PaperCheck& check, const PaperInputs& inputs) {
  std::error_code ec;
  if (check.needs == PaperNeeds::Model && (inputs.model.empty() || !std::filesystem::is_directory(inputs.model, ec)))
    return Error{std::string(check.id) + " needs a model folder (--model DIR)"};
  if (check.needs == PaperNeeds::TrainedModels && !std::filesystem::is_directory(inputs.trained, ec))
    return Error{std::string(check.id) + " needs the shipped trained models, not found at " + inputs.trained.string()};
  return check.compute(inputs);
}

const PaperCheck* find_paper_check(std::string_view id) {
  for (const PaperCheck& c : paper_checks())
    if (c.id == id) return &c;
  return nullptr;
}

std::string paper_check_ids() {
  std::string ids;
  for (const PaperCheck& c : paper_checks()) ids += (ids.empty() ? "" : ", ") + std::string(c.id);
  return ids;
}

std::string papers_table(const std::vector<PaperCheckResult>& results) {
  std::ostringstream out;
  for (const PaperCheckResult& r : results) {
    out << r.id << ": " << (r.pass() ? "reproduced" : "differs") << "\n";
    for (const PaperComparison& c : r.rows) {
      out << "  " << (c.pass() ? "pass" : "FAIL") << "  " << c.quantity << "\n"
          << "        " << c.paper << ", " << c.where << "\n"
          << "        published " << relation_prefix(c.relation) << show_list(c.published) << "   PosLab "
          << show_list(c.measured) << "   tolerance " << number_text(c.tolerance);
      if (c.relation == Relation::Equal) out << "   largest difference " << number_text(c.largest_difference());
      out << "\n";
      if (!c.note.empty()) out << "        " << c.note << "\n";
    }
  }
  return out.str();
}

std::string papers_json(const std::vector<PaperCheckResult>& results) {
  nlohmann::json list = nlohmann::json::array();
  for (const PaperCheckResult& r : results)
    for (const PaperComparison& c : r.rows)
      list.push_back({{"id", r.id},
                      {"paper", c.paper},
                      {"where", c.where},
                      {"quantity", c.quantity},
                      {"published", values(c.published)},
                      {"measured", values(c.measured)},
                      {"tolerance", c.tolerance},
                      {"pass", c.pass()}});
  return list.dump(2) + "\n";
}

std::string papers_csv(const std::vector<PaperPanel>& panels) {
  std::string out = "panel,curve,kind,x,y\n";
  for (const PaperPanel& p : panels)
    for (const PaperCurve& c : p.curves) {
      const char* kind = c.kind == CurveKind::Computed    ? "poslab"
                         : c.kind == CurveKind::Published ? "published"
                                                          : "formula";
      for (std::size_t i = 0; i < c.x.size() && i < c.y.size(); ++i) {
        char xy[64];
        std::snprintf(xy, sizeof xy, "%.17g,%.17g", c.x[i], c.y[i]);
        out += csv_field(p.title) + "," + csv_field(c.label) + "," + kind + "," + xy + "\n";
      }
    }
  return out;
}

}  // namespace poslab
