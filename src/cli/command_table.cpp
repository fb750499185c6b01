#include "cli/command_table.hpp"

#include <algorithm>

#include "cli/animate_cli.hpp"
#include "cli/commands.hpp"
#include "cli/hub_cli.hpp"
#include "cli/papers_cli.hpp"
#include "cli/train_cli.hpp"

namespace poslab {

namespace {

// export VIEW, export all, export tour and the model's views: run_export reads the view's name
// itself (and says when it names none), so it starts at that word.
int export_named_view(ArgParser& p) {
  --p.i;
  return run_export(p);
}

FlagTable export_flags_of(std::string_view word) { return export_flag_table(word); }
FlagTable no_flags(std::string_view) { return {}; }

// What the views drawn from a model folder's forward pass say of the state options that change it.
const std::string kChangedPositions =
    " --base, --rope-scaling, --rope-style, --encoding none, --position-shift and --permute change its positions, drawn "
    "beside the unchanged model";

// A view of a model folder: `export NAME OPERANDS`, its flags those of any export.
Command model_view(std::string_view name, std::string operands, std::string about) {
  return {{"export", name}, std::move(operands), std::move(about), export_flags_of, true, export_named_view};
}

std::vector<Command> make_table() {
  return {
      {{}, "",
       "the GUI, showing VIEW's tab first (the tour at step N, in English or Japanese); with --screenshot it saves the "
       "window after N frames and quits",
       [](std::string_view) { return gui_flag_table(); }, true, nullptr},
      {{"export", kViewWord}, "",
       "headless (no window, no X server): the view as PNG or SVG, its data as CSV (columns in README.md). VIEW: " +
           view_names(),
       export_flags_of, true, export_named_view},
      {{"export", "all"}, "", "every view as DIR/VIEW.png, .svg and .csv", export_flags_of, true, export_named_view},
      {{"export", "tour"}, "", "a step of the tour as one slide: words, formulas, live check and plot", export_flags_of,
       true, export_named_view},
      model_view("attention", "--model DIR --layer L",
                 "layer L of a model folder's own forward pass, every head, its tokens the model's own (BOS "
                 "included)." + kChangedPositions),
      model_view("heads", "--model DIR --layer L",
                 "layer L's heads as small multiples, with sink, distance and previous-token scores." + kChangedPositions),
      model_view("frequency-usage", "--model DIR --layer L",
                 "RoPE frequency usage of layer L's heads, per head and pair." + kChangedPositions),
      model_view("pair-scores", "--model DIR --layer L --head H [--query I]",
                 "head H's scores split by rotary pair, pairs against distance." + kChangedPositions),
      model_view("mrope", "--model DIR [--layout text:5,image:4x6,text:3]",
                 "an M-RoPE model's layout (Qwen2-VL, Qwen2.5-VL, Qwen3-VL): which rotary pairs turn by t, h and w, "
                 "and the (t, h, w) ids of a text + image sequence (image:HxW in vision patches); CSV index,kind,t,h,w"),
      model_view("sinks", "--model DIR [--sentence TEXT]",
                 "every layer's and head's weight on the first token (StreamingLLM's attention sinks); CSV "
                 "layer,head,sink"),
      model_view("activations", "--model DIR [--sentence TEXT]",
                 "the residual stream's largest values after every layer (Sun et al. 2024's massive activations); CSV "
                 "layer,token,position,dim,value"),
      model_view("position-probe", "--model DIR [--text FILE]",
                 "a ridge probe of each token's position from every layer's residual stream (Haviv et al. 2022), "
                 "fitted on every other sentence and scored on the rest; CSV layer,r2,mean_abs_error"),
      // An export that holds --animate (run_export sends it to run_animation_export), of a view of
      // the embeddings or of a model.
      {{"export", kViewWord}, "", animation_help(), [](std::string_view) { return animation_flag_table(); }, true,
       export_named_view, is_animated_view},
      {{"predict"}, "--model DIR --sentence TEXT",
       "the model's top-K next tokens at every position, the loss and perplexity, as JSON (a mixture of experts adds "
       "\"experts\": per layer and position, [[expert, weight], ...])",
       [](std::string_view) { return predict_flag_table(); }, true, run_predict},
      {{"train"}, "",
       "trains a tiny decoder (defaults: copy, rope, 2 layers, width 64, 4 heads, length 32, 1500 steps of 32, lr "
       "3e-3, 16 symbols) and writes DIR as a model folder for --model",
       [](std::string_view) { return train_flag_table(); }, false, run_train},
      {{"eval"}, "", "a trained model's loss and exact-match accuracy per length (default 1x to 16x its training length)",
       [](std::string_view) { return eval_flag_table(); }, false, run_eval},
      {{"export", "extrapolation"}, "",
       "accuracy and loss against length, one line per model, RoPE also with each scaling; CSV "
       "model,encoding,scaling,train_length,length,tokens,loss,accuracy",
       [](std::string_view) { return extrapolation_flag_table(); }, false, run_export_extrapolation},
      {{"export", "training"}, "",
       "each revision (step1000, a tag, a commit) downloaded from the Hub and run on the sentence: layer L's heads' "
       "previous-token, induction, sink and distance scores and the loss against the training step; CSV "
       "revision,step,layer,head,previous,induction,sink,distance,loss",
       [](std::string_view) { return training_flag_table(); }, false, run_export_training},
      {{"papers"}, "",
       "the published numbers and claims PosLab checks, from the papers' mathematics, on the tiny models it ships and "
       "on a model folder: one entry per check (id, paper, where, what it needs); docs/PAPERS.md says what each "
       "reproduces",
       no_flags, false, run_papers},
      {{"papers", "check"}, "[ID …]",
       "runs the checks (all by default; those needing a model only with --model): a table of published against "
       "PosLab's values with a verdict; exit 0 when every check is reproduced, 1 when one differs or cannot be made on "
       "the model",
       [](std::string_view) { return papers_check_flag_table(); }, false, run_papers_check},
      {{"export", "paper"}, "",
       "one check's figure: PosLab's curves with the published values beside them; CSV panel,curve,kind,x,y",
       [](std::string_view) { return export_paper_flag_table(); }, false, run_export_paper},
      {{"info"}, "[--embeddings F | --model DIR] [--vocab F] [--tensor NAME]",
       "vocabulary size, dimension, dtype, tokenizer and load time of an embeddings file; the OpenGL renderer and "
       "where --backend (auto unless given) computes attention, and why",
       no_flags, true, run_info},
      {{"tokens"}, "",
       "BPE token ids of a Hugging Face tokenizer.json (GPT-2, Llama 2 and 3, Gemma, Qwen, DeepSeek V3; special tokens "
       "as add_special_tokens=True adds them), a JSON array each",
       [](std::string_view) { return tokens_flag_table(); }, false, run_tokens},
      {{"tour"}, "", "one line per tour step: N, title, pass|fail of its live check",
       [](std::string_view) { return tour_flag_table(); }, true, run_tour},
  };
}

// Whether row `c`'s words begin with `given` (all of them, with `whole`): the same words, a
// VIEW matched by the view it stands for, or by itself.
bool words_match(const Command& c, const std::vector<std::string_view>& given, bool whole) {
  if (given.size() > c.words.size() || (whole && given.size() != c.words.size())) return false;
  for (std::size_t k = 0; k < given.size(); ++k)
    if (c.words[k] != given[k] && !(c.words[k] == kViewWord && c.view_word(given[k]))) return false;
  return true;
}

}  // namespace

const std::vector<Command>& command_table() {
  static const std::vector<Command> table = make_table();
  return table;
}

bool is_view_word(std::string_view word) {
  const auto view = view_named(word);
  return view && std::find(all_views().begin(), all_views().end(), *view) != all_views().end();
}

bool is_animated_view(std::string_view word) {
  const auto view = view_named(word);
  if (!view || *view == ViewId::Tour || !view_exports(view_info(*view))) return false;
  return view_info(*view).needs == ViewNeeds::Embeddings || view_info(*view).needs == ViewNeeds::Model;
}

const Command* command_for(const std::vector<std::string_view>& args) {
  const Command* best = nullptr;
  bool begins_one = false;
  for (const Command& c : command_table()) {
    if (!c.words.empty() && !args.empty() && c.words[0] == args[0]) begins_one = true;
    if (c.words.size() > args.size() || (best && c.words.size() <= best->words.size())) continue;
    if (words_match(c, {args.begin(), args.begin() + static_cast<std::ptrdiff_t>(c.words.size())}, true)) best = &c;
  }
  if (best && best->words.empty() && begins_one) return nullptr;
  return best;
}

std::vector<const Command*> commands_named(const std::vector<std::string_view>& words) {
  std::vector<const Command*> named;
  for (const Command& c : command_table())
    if (!c.words.empty() && words_match(c, words, false)) named.push_back(&c);
  return named;
}

std::size_t longest_command() {
  std::size_t most = 0;
  for (const Command& c : command_table()) most = std::max(most, c.words.size());
  return most;
}

}  // namespace poslab
