#include "gui/views/train_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "base/files.hpp"
#include "core/options.hpp"
#include "figures/assets.hpp"
#include "gui/flow.hpp"
#include "gui/probe.hpp"

namespace poslab {

namespace fs = std::filesystem;

TrainView::TrainView() {
  const std::string folder = default_train_folder().string();
  std::snprintf(folder_, sizeof folder_, "%s", folder.c_str());
  models_ = shipped_models();
  // The shipped models' table, measured when they were made (tools/train_shipped_models.sh).
  const fs::path table = shipped_models_folder() / "extrapolation.csv";
  std::error_code ec;
  if (fs::exists(table, ec))
    if (auto curves = parse_extrapolation_csv(read_text_file(table))) shown_.curves = std::move(*curves);
  // And their training losses, from the logs `poslab train --log` wrote beside them.
  for (const fs::path& model : models_) {
    auto log = parse_train_log_csv(read_text_file(fs::path(model.string() + ".log.csv")));
    if (!log || log->empty()) continue;
    const std::string name = model.filename().string(), encoding = name.substr(name.find('-') + 1);  // copy-rope → rope
    shown_.runs.push_back({encoding, std::move(*log), model, 0.0, true, false});
  }
}

void TrainView::start_training() {
  TrainJob job;
  for (int k = 0; k < 6; ++k) {
    if (!encodings_[k]) continue;
    TrainSettings s = default_train_settings();
    s.task = Task{kTaskKinds[task_], symbols_};
    s.model.positions = kTrainedEncodings[k];
    s.model.layers = layers_;
    s.model.width = width_;
    s.model.heads = heads_;
    s.train_length = train_length_;
    s.steps = steps_;
    s.batch = batch_;
    s.lr = lr_;
    s.seed = static_cast<std::uint64_t>(seed_);
    if (auto ok = check_app_limits(resolved_model(s)); !ok) return void(message_ = ok.error());
    if (auto ok = validate(s); !ok) return void(message_ = ok.error());
    job.runs.push_back(s);
  }
  if (job.runs.empty()) return void(message_ = "choose at least one encoding to train");
  job.folder = job_folder();
  job.eval_sequences = eval_sequences_;
  message_.clear();
  if (worker_.start(std::move(job))) bring_ = Bring::Loss;  // live losses while it trains
}

fs::path TrainView::job_folder() const { return fs::path(folder_) / ("run-seed" + std::to_string(seed_)); }

std::string TrainView::replaced_models(const fs::path& folder) const {
  std::error_code ec;
  std::vector<fs::path> held;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
    if (fs::exists(it->path() / "config.json", ec)) held.push_back(it->path());
  std::sort(held.begin(), held.end());
  std::string out;
  for (const fs::path& model : held) {
    out += (out.empty() ? "" : ", ") + model.filename().string();
    const auto run = std::find_if(shown_.runs.begin(), shown_.runs.end(), [&](const auto& r) { return r.finished && r.folder == model; });
    if (run == shown_.runs.end()) continue;
    out += run->stopped ? " (stopped after " + std::to_string(run->log.size()) + " steps)"
                        : " (finished, " + std::to_string(run->log.size()) + " steps)";
  }
  return out;
}

// A run of the same seed in the same folder would be overwritten: the row says which models the
// folder holds and how their runs ended, and Train asks once more before replacing them.
void TrainView::draw_train_button() {
  const fs::path folder = job_folder();
  if (!replaced_ || replaced_->folder != folder.string() || replaced_->version != shown_version_)
    replaced_ = Replaced{folder.string(), shown_version_, replaced_models(folder)};
  const std::string replaced = replaced_->text;  // a copy: Train below forgets the cache
  if (confirming_ != folder.string() || replaced.empty()) confirming_.clear();
  if (confirming_.empty()) {
    if (ImGui::Button("Train")) {
      replaced_.reset();  // looked at again now: a run may have been saved there since
      if (replaced_models(folder).empty()) start_training();
      else confirming_ = folder.string();
    }
    probe::item("train: train");
    if (!replaced.empty()) {
      ImGui::SameLine();
      ImGui::TextDisabled("replaces %s: %s", folder.filename().string().c_str(), replaced.c_str());
    }
  } else {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.8f, 0.35f, 1));
    flow::text_wrapped(("Replace " + folder.string() + "? It holds " + replaced +
                        ". Change the seed or the folder to keep it.").c_str());
    ImGui::PopStyleColor();
    if (ImGui::Button("Replace it")) {
      confirming_.clear();
      start_training();
    }
    probe::item("train: replace");
    ImGui::SameLine();
    if (ImGui::Button("Keep it")) confirming_.clear();
    probe::item("train: keep");
  }
  probe::value("train replaces", replaced);
  probe::value("train asks", confirming_.empty() ? "no" : "yes");
}

void TrainView::evaluate_models(std::vector<fs::path> folders) {
  TrainJob job;
  job.eval_sequences = eval_sequences_;
  message_.clear();
  worker_.start(std::move(job), std::move(folders));
}

void TrainView::draw_settings() {
  const bool idle = !worker_.running();
  ImGui::BeginDisabled(!idle);
  ImGui::SetNextItemWidth(120);
  ImGui::Combo("task", &task_, "copy\0recall\0reverse\0");
  ImGui::SameLine();
  static constexpr const char* kTaskWords[] = {
      "L random symbols, a separator, the same L symbols again: scored on the copy",
      "L key–value pairs, a separator, ⌈L/4⌉ of the keys: predict each value",
      "L random symbols, a separator, the same L symbols backwards: scored on the reversed copy"};
  flow::text_disabled_wrapped(kTaskWords[task_]);
  ImGui::TextUnformatted("encodings:");
  std::string job;  // what Train would start, for the probe: "rope · 40 steps"
  for (int k = 0; k < 6; ++k) {
    const std::string name(to_string(kTrainedEncodings[k]));
    flow::same_line_if_fits(flow::checkbox(name.c_str()));
    ImGui::Checkbox(name.c_str(), &encodings_[k]);
    probe::item("train: " + name);
    if (encodings_[k]) job += name + " ";
  }
  draw_sizes();
  layers_ = std::clamp(layers_, 1, 4);
  width_ = std::clamp(width_, 32, 256);
  heads_ = std::clamp(heads_, 1, 16);
  train_length_ = std::clamp(train_length_, 2, 256);
  steps_ = std::clamp(steps_, 1, 100000);
  batch_ = std::clamp(batch_, 1, 512);
  symbols_ = std::clamp(symbols_, 4, static_cast<int>(kTaskAlphabet.size()));
  seed_ = std::max(seed_, 0);
  probe::value("train job", job + "· " + std::to_string(steps_) + " steps");
  // As wide as it was made, narrower where the panel is.
  ImGui::SetNextItemWidth(std::min(420.0f, flow::right_edge() - ImGui::GetCursorScreenPos().x - flow::label("save in")));
  ImGui::InputText("save in", folder_, sizeof folder_);
  ImGui::EndDisabled();
  if (idle) draw_train_button();
  else if (ImGui::Button("Stop")) worker_.stop();
  // Whether a job runs, else how the last one ended ("done"): a test waits for it.
  probe::value("train", shown_.running ? "running" : shown_.phase.empty() ? "idle" : shown_.phase);
  ImGui::SameLine();
  ImGui::ProgressBar(static_cast<float>(shown_.fraction), ImVec2(260, 0), shown_.phase.empty() ? "idle" : shown_.phase.c_str());
  if (!message_.empty()) ImGui::TextColored(ImVec4(1, 0.45f, 0.35f, 1), "%s", message_.c_str());
  if (!shown_.error.empty()) ImGui::TextColored(ImVec4(1, 0.45f, 0.35f, 1), "%s", shown_.error.c_str());
  if (!shown_.runs.empty() && shown_.runs.front().seconds == 0.0 && !shown_.running)
    flow::text_disabled_wrapped(
        ("pre-trained on the copy task (tools/train_shipped_models.sh): " + shipped_models_folder().string()).c_str());
  for (const auto& run : shown_.runs) {
    if (!run.finished || run.seconds <= 0.0) continue;
    char line[160];
    std::snprintf(line, sizeof line, "%s: %zu steps in %.1f s%s → ", run.encoding.c_str(), run.log.size(), run.seconds,
                  run.stopped ? " (stopped)" : "");
    flow::text_disabled_wrapped((line + run.folder.string()).c_str());
  }
}

// The model's sizes and the run's settings: one row where the panel is wide, wrapped where not.
void TrainView::draw_sizes() {
  const auto next = [](const char* label) { flow::same_line_if_fits(90.0f + flow::label(label)); };
  ImGui::PushItemWidth(90);
  ImGui::InputInt("layers", &layers_);
  next("width");
  ImGui::InputInt("width", &width_, 16);
  next("heads");
  ImGui::InputInt("heads", &heads_);
  next("train length");
  ImGui::InputInt("train length", &train_length_, 8);
  ImGui::InputInt("steps", &steps_, 100);
  probe::item("train: steps");
  next("batch");
  ImGui::InputInt("batch", &batch_, 8);
  next("learning rate");
  ImGui::InputFloat("learning rate", &lr_, 0.0f, 0.0f, "%.1e");
  next("seed");
  ImGui::InputInt("seed", &seed_);
  next("symbols");
  ImGui::InputInt("symbols", &symbols_);
  ImGui::PopItemWidth();
}

void TrainView::draw_models(fs::path& open_model) {
  if (models_.empty()) return;
  ImGui::TextUnformatted("trained models:");
  ImGui::SameLine();
  chosen_model_ = std::clamp(chosen_model_, 0, static_cast<int>(models_.size()) - 1);
  ImGui::SetNextItemWidth(std::min(360.0f, flow::right_edge() - ImGui::GetCursorScreenPos().x));
  const std::string current = models_[static_cast<std::size_t>(chosen_model_)].string();
  if (ImGui::BeginCombo("##model", current.c_str())) {
    for (std::size_t k = 0; k < models_.size(); ++k)
      if (ImGui::Selectable(models_[k].string().c_str(), static_cast<int>(k) == chosen_model_)) chosen_model_ = static_cast<int>(k);
    ImGui::EndCombo();
  }
  flow::same_line_if_fits(flow::button("Open in the attention view"));
  if (ImGui::Button("Open in the attention view")) open_model = models_[static_cast<std::size_t>(chosen_model_)];
  probe::item("train: open in the attention view");
  flow::same_line_if_fits(flow::button("Evaluate all"));
  ImGui::BeginDisabled(worker_.running());
  if (ImGui::Button("Evaluate all")) evaluate_models(models_);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("each model at 1×, 2×, 4×, 8× and 16× its training length; RoPE also with PI, NTK, dynamic and YaRN");
}

void TrainView::draw(const plot::FontSet& fonts, fs::path& open_model) {
  if (worker_.version() != shown_version_) {
    shown_version_ = worker_.version();
    TrainProgress now = worker_.progress();
    // A job's models join the list as they are saved; its curves replace the plot once measured.
    for (const auto& run : now.runs)
      if (run.finished && std::find(models_.begin(), models_.end(), run.folder) == models_.end()) models_.push_back(run.folder);
    // The plot keeps the last measured curves (the shipped models' at first) until a job measures new ones.
    const bool measured = !now.curves.empty();
    if (!measured) now.curves = std::move(shown_.curves);
    if (measured && !now.running) bring_ = Bring::Curves;  // the job's result
    shown_ = std::move(now);
    loss_changed_ = true;
    curves_changed_ = curves_changed_ || measured;
  }
  draw_settings();
  draw_models(open_model);
  ImGui::Separator();
  if (!ImGui::BeginTabBar("train figures")) return;
  if (ImGui::BeginTabItem("Length extrapolation", nullptr, bring_ == Bring::Curves ? ImGuiTabItemFlags_SetSelected : 0)) {
    const plot::Point room = figure_room(fonts);
    if (shown_.curves.empty()) {
      flow::text_wrapped("Train a few encodings against each other; their extrapolation plot appears here once they are measured.");
    } else {
      if (extrapolation_refit_.now(curves_changed_, room)) {
        const auto& curves = shown_.curves;
        const plot::Point panel = fit_area(room, kMinArea, kMaxArea, [&](float w, float h) {
          return size_of(extrapolation_figure(curves, {w, h}));
        });
        extrapolation_ = extrapolation_figure(curves, panel);
        curves_changed_ = false;
      }
      show_figure(extrapolation_, room, fonts, extrapolation_textures_);
    }
    ImGui::EndTabItem();
  }
  if (ImGui::BeginTabItem("Training loss", nullptr, bring_ == Bring::Loss ? ImGuiTabItemFlags_SetSelected : 0)) {
    const plot::Point room = figure_room(fonts);
    if (loss_refit_.now(loss_changed_, room)) {
      const auto& runs = shown_.runs;
      const plot::Point area =
          fit_area(room, kMinArea, kMaxArea, [&](float w, float h) { return size_of(training_loss_figure(runs, {w, h}).figure); });
      loss_ = training_loss_figure(runs, area);
      loss_changed_ = false;
    }
    show_figure(loss_.figure, room, fonts, loss_textures_);
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
  bring_ = Bring::Nothing;
}

plot::Figure TrainView::export_figure() const { return extrapolation_figure(shown_.curves, kExtrapolationPanel); }

std::string TrainView::export_csv() const { return extrapolation_csv(shown_.curves); }

}  // namespace poslab
