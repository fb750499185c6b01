// poslab.Model: a model folder's own forward pass, as `poslab export … --model` and `poslab
// predict` run it.
#include <filesystem>
#include <sstream>

#include "core/export_data.hpp"
#include "core/model/checkpoint.hpp"
#include "core/model/position_design.hpp"
#include "figures/attention.hpp"
#include "figures/headless_gpu.hpp"
#include "figures/html_page.hpp"
#include "figures/model.hpp"
#include "figures/model_state.hpp"
#include "python/python_api.hpp"

namespace poslab::python {

struct Model::Run {
  State state;
  ModelRun run;
};

Model::Model(const std::string& name_or_dir) {
  MemoryLimitScope scope;
  // The name as --model reads it (a folder, or ORG/NAME[@REVISION] through the Hub's cache), once;
  // every call then reads the folder itself.
  const State state = parse_keywords({{"model", name_or_dir}}, "poslab.Model").state;
  std::error_code ec;
  folder_ = std::filesystem::absolute(state.embeddings_path, ec).string();
  if (ec) folder_ = state.embeddings_path;
  State opened = state;
  opened.embeddings_path = folder_;
  checkpoint_ = take(open_state_model(opened, "poslab.Model"));
}

std::string Model::design() const { return describe_positions(checkpoint_->config()); }

std::vector<std::string> Model::tokens(const std::string& text) const {
  const BpeTokenizer* tokenizer = checkpoint_->tokenizer();
  if (!tokenizer) fail(folder_ + ": the model folder has no tokenizer.json");
  return tokenizer->token_texts(take(tokenizer->encode(text)));
}

Model::Run Model::run(const char* function, Keywords keywords, int top, const Progress& progress, std::optional<ViewId> view) const {
  keywords.insert(keywords.begin(), {"model", folder_});
  State state = parse_keywords(keywords, function).state;
  const TransformerConfig& c = checkpoint_->config();
  check(check_model_indices(state, c));
  check(check_interventions_apply(state, c));
  if (view && state.view.layer >= 0) check(check_model_view(*view, state, c));
  HeadlessGpu g = open_headless_gpu(state.backend);
  ModelRun run = take(run_state_model(*checkpoint_, state, top, g.backend.get(), progress, view));
  return {std::move(state), std::move(run)};
}

namespace {

Keywords with(Keywords keywords, const std::string& text, int layer) {
  keywords.insert(keywords.begin(), {{"sentence", text}, {"layer", std::to_string(layer)}});
  return keywords;
}

}  // namespace

Attention Model::attention(const std::string& text, int layer, const std::optional<std::string>& stack,
                           const Keywords& keywords, const Progress& progress) const {
  MemoryLimitScope scope;
  Keywords all = with(keywords, text, layer);
  if (stack) all.push_back({"stack", *stack});
  const Run r = run("Model.attention", all, 5, progress, ViewId::Attention);
  const TransformerConfig& c = checkpoint_->config();
  const Results results = layer_results(r.run.shown(), r.run.request.layer, c, "");
  Attention a;
  a.weights = results.attention.weights;
  a.scores = results.attention.scores;
  for (const Token& t : results.tokens) a.tokens.push_back(t.text);
  for (const Token& t : results.key_tokens) a.key_tokens.push_back(t.text);
  std::ostringstream csv;
  write_attention_csv(csv, results);
  a.figure = {model_attention_figure(r.state, r.run, c, kExportSide), csv.str(),
              [state = r.state, results = std::make_shared<const Results>(results)] { return attention_page(state, *results); }};
  return a;
}

Figure Model::heads(const std::string& text, int layer, const Keywords& keywords, const Progress& progress) const {
  MemoryLimitScope scope;
  Run r = run("Model.heads", with(keywords, text, layer), 5, progress, ViewId::Heads);
  ModelViewOutput out = take(model_view_output(ViewId::Heads, r.state, r.run, checkpoint_->config()));
  const auto run = std::make_shared<const ModelRun>(r.run);
  return {std::move(out.figure), std::move(out.csv), [run, config = checkpoint_->config()] { return heads_page(*run, config); }};
}

std::string Model::predict(const std::string& text, int top, const Keywords& keywords, const Progress& progress) const {
  MemoryLimitScope scope;
  if (top < 1 || top > 1000) fail("top must be from 1 to 1000, not " + std::to_string(top));
  Keywords all = keywords;
  all.insert(all.begin(), {"sentence", text});
  return predictions_json(run("Model.predict", all, top, progress, std::nullopt).run.shown());
}

Matrix Model::frequency_usage(const std::string& text, int layer, const Keywords& keywords,
                              const Progress& progress) const {
  MemoryLimitScope scope;
  const Run r = run("Model.frequency_usage", with(keywords, text, layer), 5, progress, ViewId::FrequencyUsage);
  const LayerAttention* a = r.run.shown().layer(r.run.request.layer);
  if (!a) fail("Model.frequency_usage: layer " + std::to_string(layer) + " was not kept");
  return a->frequency_usage;
}

}  // namespace poslab::python
