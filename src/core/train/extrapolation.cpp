#include "core/train/extrapolation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <cstdlib>
#include <sstream>

#include "base/csv.hpp"
#include "base/number_text.hpp"
#include "base/text.hpp"

namespace poslab {

namespace {

// Shortest text that reads back to the same double ("0.0123", "nan").
std::string table_number(double v) { return std::isnan(v) ? "nan" : number_text(v, 9); }

}  // namespace

std::string ExtrapolationCurve::label() const {
  if (scaling == RopeScalingType::None) return model;
  return model + " + " + std::string(to_string(scaling));
}

const std::vector<RopeScalingType>& extrapolation_scalings() {
  static const std::vector<RopeScalingType> all = {RopeScalingType::Linear, RopeScalingType::Ntk, RopeScalingType::Dynamic,
                                                   RopeScalingType::Yarn};
  return all;
}

Result<RopeScalingType> parse_inference_scaling(const std::string& name) {
  if (name == "none") return RopeScalingType::None;
  for (RopeScalingType t : extrapolation_scalings())
    if (name == to_string(t)) return t;
  return Error{"--rope-scaling expects none, linear, ntk, dynamic or yarn, got \"" + name + "\""};
}

Result<std::vector<int>> parse_lengths(const std::string& text, int max_length) {
  std::vector<int> out;
  for (const std::string& item : split_list(text, ',')) {
    char* end = nullptr;
    const long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || end != item.c_str() + item.size())
      return Error{"--lengths expects whole numbers separated by commas (32,64,128), got \"" + text + "\""};
    if (v < 1 || v > max_length)
      return Error{"--lengths: " + item + " is out of range (1 to " + std::to_string(max_length) + ")"};
    if (std::find(out.begin(), out.end(), static_cast<int>(v)) != out.end())
      return Error{"--lengths: " + item + " is given twice"};
    out.push_back(static_cast<int>(v));
  }
  if (out.empty()) return Error{"--lengths needs at least one length (32,64,128)"};
  return out;
}

std::vector<NamedModel> name_models(std::vector<std::pair<std::string, TrainedModel>> folders_and_models) {
  std::map<PositionKind, int> count;
  for (const auto& [folder, m] : folders_and_models) ++count[m.model.positions];
  std::vector<NamedModel> out;
  for (auto& [folder, m] : folders_and_models) {
    std::string name(to_string(m.model.positions));
    if (count[m.model.positions] > 1) name += " (" + folder + ")";
    out.push_back({std::move(name), std::move(m)});
  }
  return out;
}

std::vector<ExtrapolationCurve> extrapolation_curves(const std::vector<NamedModel>& models, const std::vector<int>& lengths,
                                                     bool with_scalings, const EvalSettings& settings,
                                                     const std::function<bool(int, int)>& on_row) {
  struct Plan {
    const NamedModel* model;
    RopeScalingType scaling;
  };
  std::vector<Plan> plans;
  for (const NamedModel& m : models) {
    plans.push_back({&m, RopeScalingType::None});
    if (with_scalings && m.model.model.positions == PositionKind::Rope)
      for (RopeScalingType t : extrapolation_scalings()) plans.push_back({&m, t});
  }
  const int total = static_cast<int>(plans.size() * lengths.size());
  int done = 0;
  std::vector<ExtrapolationCurve> curves;
  for (const Plan& plan : plans) {
    const TrainedModel& m = plan.model->model;
    ExtrapolationCurve curve{plan.model->name, m.model.positions, plan.scaling, m.train_length, {}};
    EvalSettings s = settings;
    s.scaling = plan.scaling;
    for (int length : lengths) {
      curve.rows.push_back(evaluate_lengths(m.params, m.task, m.train_length, {length}, s).front());
      ++done;
      if (on_row && !on_row(done, total)) {
        curves.push_back(std::move(curve));
        return curves;
      }
    }
    curves.push_back(std::move(curve));
  }
  return curves;
}

std::string eval_csv(const std::vector<EvalRow>& rows) {
  std::string out = "length,loss,accuracy\n";
  for (const EvalRow& r : rows) out += std::to_string(r.length) + "," + table_number(r.loss) + "," + table_number(r.accuracy) + "\n";
  return out;
}

std::string extrapolation_csv(const std::vector<ExtrapolationCurve>& curves) {
  std::string out = "model,encoding,scaling,train_length,length,tokens,loss,accuracy\n";
  for (const ExtrapolationCurve& c : curves)
    for (const EvalRow& r : c.rows) {
      // Folder names may hold commas or quotes: quote the model's name as RFC 4180 does.
      std::string name = c.model;
      if (name.find_first_of(",\"\n") != std::string::npos) {
        std::string quoted = "\"";
        for (char ch : name) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        name = quoted + "\"";
      }
      out += name + "," + std::string(to_string(c.positions)) + "," + std::string(to_string(c.scaling)) + "," +
             std::to_string(c.train_length) + "," + std::to_string(r.length) + "," + std::to_string(r.tokens) + "," +
             table_number(r.loss) + "," + table_number(r.accuracy) + "\n";
    }
  return out;
}

std::string train_log_csv(const std::vector<TrainStep>& log) {
  std::string out = "step,loss,lr,tokens_per_s\n";
  for (const TrainStep& s : log)
    out += std::to_string(s.step) + "," + table_number(s.loss) + "," + table_number(s.lr) + "," + table_number(s.tokens_per_s) + "\n";
  return out;
}

Result<std::vector<TrainStep>> parse_train_log_csv(const std::string& text) {
  std::stringstream in(text);
  std::string line;
  if (!std::getline(in, line) || csv_line_fields(line) != std::vector<std::string>{"step", "loss", "lr", "tokens_per_s"})
    return Error{"not a training log: the first line must be step,loss,lr,tokens_per_s"};
  std::vector<TrainStep> log;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto f = csv_line_fields(line);
    if (f.size() != 4) return Error{"training log line " + std::to_string(log.size() + 2) + ": expected 4 fields"};
    TrainStep s;
    char* end = nullptr;
    s.step = static_cast<int>(std::strtol(f[0].c_str(), &end, 10));
    s.loss = std::strtod(f[1].c_str(), &end);
    s.lr = std::strtod(f[2].c_str(), &end);
    s.tokens_per_s = std::strtod(f[3].c_str(), &end);
    log.push_back(s);
  }
  return log;
}

Result<std::vector<ExtrapolationCurve>> parse_extrapolation_csv(const std::string& text) {
  std::stringstream in(text);
  std::string line;
  if (!std::getline(in, line) || csv_line_fields(line) != std::vector<std::string>{"model", "encoding", "scaling", "train_length",
                                                                               "length", "tokens", "loss", "accuracy"})
    return Error{"not an extrapolation table: the first line must be model,encoding,scaling,train_length,length,tokens,loss,accuracy"};
  std::vector<ExtrapolationCurve> curves;
  int number_of_line = 1;
  while (std::getline(in, line)) {
    ++number_of_line;
    if (line.empty()) continue;
    const auto f = csv_line_fields(line);
    const std::string where = "line " + std::to_string(number_of_line) + ": ";
    if (f.size() != 8) return Error{where + "expected 8 fields, found " + std::to_string(f.size())};
    auto positions = parse_position_kind(f[1]);
    if (!positions) return Error{where + positions.error()};
    auto scaling = parse_inference_scaling(f[2]);
    if (!scaling) return Error{where + scaling.error()};
    EvalRow row;
    char* end = nullptr;
    // Read as long and checked before narrowing: a length past int's range must not wrap.
    const long train_length = std::strtol(f[3].c_str(), &end, 10);
    const long length = std::strtol(f[4].c_str(), &end, 10);
    const long tokens = std::strtol(f[5].c_str(), &end, 10);
    row.loss = std::strtod(f[6].c_str(), &end);
    row.accuracy = std::strtod(f[7].c_str(), &end);
    const auto in_range = [](long v) { return v >= 1 && v <= kMaxTaskLength; };
    if (!in_range(train_length) || !in_range(length) || tokens < 1 || tokens > 4L * kMaxTaskLength ||
        !(row.accuracy >= 0.0 && row.accuracy <= 1.0))
      return Error{where + "a length, token count or accuracy is out of range"};
    row.length = static_cast<int>(length);
    row.tokens = static_cast<int>(tokens);
    row.supported = !std::isnan(row.loss);
    if (curves.empty() || curves.back().model != f[0] || curves.back().scaling != *scaling)
      curves.push_back({f[0], *positions, *scaling, static_cast<int>(train_length), {}});
    curves.back().rows.push_back(row);
  }
  return curves;
}

}  // namespace poslab
