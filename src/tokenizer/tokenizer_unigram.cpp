#include "tokenizer/tokenizer_unigram.hpp"

#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>

#include "tokenizer/tokenizer_text.hpp"

namespace poslab {

using json = nlohmann::json;

namespace {

// SentencePiece's and tokenizers' penalty for an unknown character, below the lowest score.
constexpr double kUnknownPenalty = 10.0;
// An id no vocabulary has: a node of the best path that stands for an unknown character.
constexpr int kUnknownNode = -1;

}  // namespace

Result<UnigramModel> UnigramModel::parse(const json& model, const std::string& name) {
  UnigramModel m;
  const json& vocab = model.at("vocab");
  constexpr std::size_t kLimit = 1u << 24;  // as json_token_id bounds every other id
  if (!vocab.is_array()) return Error{name + ": the Unigram vocabulary must be an array of [piece, score]"};
  if (vocab.size() > kLimit) return Error{name + ": the Unigram vocabulary has more than 16777216 pieces"};
  m.scores_.reserve(vocab.size());
  m.pieces_.reserve(vocab.size());
  m.all_.reserve(vocab.size());
  double lowest = std::numeric_limits<double>::infinity();
  for (const json& entry : vocab) {
    const int id = static_cast<int>(m.scores_.size());
    if (!entry.is_array() || entry.size() != 2 || !entry[0].is_string() || !entry[1].is_number())
      return Error{name + ": Unigram piece " + std::to_string(id) + " is not [piece, score]: " + entry.dump()};
    const std::string piece = entry[0].get<std::string>();
    const double score = entry[1].get<double>();
    m.scores_.push_back(score);
    m.pieces_.insert_or_assign(piece, id);
    m.all_.set(piece, id);
    m.longest_ = std::max(m.longest_, piece.size());
    lowest = std::min(lowest, score);
  }
  m.unk_score_ = lowest - kUnknownPenalty;
  if (model.contains("unk_id") && !model["unk_id"].is_null()) {
    auto unk = json_token_id(model["unk_id"], name, "Unigram's unk_id");
    if (!unk) return Error{unk.error()};
    if (static_cast<std::size_t>(*unk) >= m.scores_.size())
      return Error{name + ": Unigram's unk_id " + std::to_string(*unk) + " is not in its " +
                   std::to_string(m.scores_.size()) + "-piece vocabulary"};
    m.unk_ = *unk;
  }
  m.byte_fallback_ = model.value("byte_fallback", false);
  return m;
}

int UnigramModel::piece_id(std::string_view piece) const {
  const auto it = pieces_.find(std::string(piece));
  return it == pieces_.end() ? -1 : it->second;
}

// Viterbi over byte positions: best[e] is the best path that ends at byte e — its score, where its
// last piece starts and which piece that is. Pieces are tried shortest first and a later one wins
// only with a strictly higher score, as tokenizers' trie walk does.
std::vector<std::string> UnigramModel::segment(std::string_view word) const {
  struct Node {
    double score = 0;
    std::size_t start = 0;
    int id = kUnknownNode;
    bool reached = false;
  };
  const std::size_t size = word.size();
  std::vector<Node> best(size + 1);
  best[0].reached = true;
  const auto offer = [&best](std::size_t end, std::size_t start, int id, double score) {
    Node& node = best[end];
    if (!node.reached || score > node.score) node = Node{score, start, id, true};
  };
  for (std::size_t start = 0; start < size;) {
    const double before = best[start].score;
    const std::size_t first = std::min(utf8_sequence_length(static_cast<unsigned char>(word[start])), size - start);
    bool single = false;  // a piece covers the first character alone
    for (std::size_t end = start + first; end <= size && end - start <= longest_;) {
      if (const int id = piece_id(word.substr(start, end - start)); id >= 0) {
        offer(end, start, id, before + scores_[static_cast<std::size_t>(id)]);
        single = single || end == start + first;
      }
      if (end == size) break;
      end += std::min(utf8_sequence_length(static_cast<unsigned char>(word[end])), size - end);
    }
    if (!single) offer(start + first, start, kUnknownNode, before + unk_score_);
    start += first;
  }
  // Back from the end; runs of unknown characters (and of the unk piece itself) fuse into one.
  std::vector<std::string> pieces;
  std::string unknown;
  for (std::size_t end = size; end > 0;) {
    const Node& node = best[end];
    const std::string text(word.substr(node.start, end - node.start));
    if (node.id == kUnknownNode || node.id == unk_) {
      unknown.insert(0, text);
    } else {
      if (!unknown.empty()) pieces.push_back(std::move(unknown)), unknown.clear();
      pieces.push_back(text);
    }
    end = node.start;
  }
  if (!unknown.empty()) pieces.push_back(std::move(unknown));
  return {pieces.rbegin(), pieces.rend()};
}

void UnigramModel::unknown_run(const std::string& text, std::vector<int>& out, std::string* missing) const {
  if (byte_fallback_) {  // every byte as <0xNN>, or none of them
    std::vector<int> bytes;
    for (unsigned char b : text) {
      char token[8];
      std::snprintf(token, sizeof token, "<0x%02X>", static_cast<unsigned>(b));
      if (const int id = piece_id(token); id >= 0) bytes.push_back(id);
    }
    if (bytes.size() == text.size()) {
      out.insert(out.end(), bytes.begin(), bytes.end());
      return;
    }
  }
  if (unk_ >= 0)
    out.push_back(unk_);
  else if (missing)
    *missing += text;
}

void UnigramModel::tokenize(std::string_view word, std::vector<int>& out, std::string* missing) const {
  for (const std::string& piece : segment(word)) {
    if (const int id = piece_id(piece); id >= 0)
      out.push_back(id);
    else
      unknown_run(piece, out, missing);
  }
}

}  // namespace poslab
