#include "tokenizer/tokenizer_unigram.hpp"

#include <limits>
#include <nlohmann/json.hpp>

#include "tokenizer/tokenizer_text.hpp"

namespace poslab {

using json = nlohmann::json;

namespace {

// SentencePiece's and tokenizers' penalty for an unknown character, below the lowest score.
constexpr double kUnknownPenalty = 10.0;

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
    m.add_to_trie(piece, id);
    m.all_.set(piece, id);
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
  const auto it = pieces_.find(piece);
  return it == pieces_.end() ? -1 : it->second;
}

void UnigramModel::add_to_trie(const std::string& piece, int id) {
  int node = 0;
  for (unsigned char b : piece) {
    const std::uint64_t key = static_cast<std::uint64_t>(node) * 256 + b;
    auto it = trie_next_.find(key);
    if (it == trie_next_.end()) {
      it = trie_next_.emplace(key, static_cast<int>(trie_piece_.size())).first;
      trie_piece_.push_back(-1);
    }
    node = it->second;
  }
  trie_piece_[static_cast<std::size_t>(node)] = id;  // the last of equal pieces, as tokenizers keeps
}

// Viterbi over byte positions: best[e] is the best path that ends at byte e — its score, where its
// last piece starts and which piece that is. Pieces are tried shortest first and a later one wins
// only with a strictly higher score, as tokenizers' trie walk does.
std::vector<UnigramModel::Segment> UnigramModel::segment(std::string_view word) const {
  struct Node {
    double score = 0;
    std::size_t start = 0;
    int id = kUnknown;
    bool reached = false;
  };
  const std::size_t size = word.size();
  std::vector<Node> best(size + 1);
  best[0].reached = true;
  const auto offer = [&best](std::size_t end, std::size_t start, int id, double score) {
    Node& node = best[end];
    if (!node.reached || score > node.score) node = Node{score, start, id, true};
  };
  const auto boundary = [&](std::size_t at) { return at == size || (static_cast<unsigned char>(word[at]) & 0xC0) != 0x80; };
  for (std::size_t start = 0; start < size;) {
    const double before = best[start].score;
    const std::size_t first = std::min(utf8_sequence_length(static_cast<unsigned char>(word[start])), size - start);
    bool single = false;  // a piece covers the first character alone
    int node = 0;
    std::size_t end = start;
    while (end < size) {
      const auto it = trie_next_.find(static_cast<std::uint64_t>(node) * 256 + static_cast<unsigned char>(word[end]));
      if (it == trie_next_.end()) break;
      node = it->second;
      ++end;
      const int id = trie_piece_[static_cast<std::size_t>(node)];
      if (id < 0 || end < start + first || !boundary(end)) continue;  // pieces end on whole characters
      offer(end, start, id, before + scores_[static_cast<std::size_t>(id)]);
      single = single || end == start + first;
    }
    add_tokenizer_work(end - start + first);
    if (!single) offer(start + first, start, kUnknown, before + unk_score_);
    start += first;
  }
  // Back from the end, then forward: runs of unknown characters (and of the unk piece itself) fuse into one.
  std::vector<Segment> reversed;
  for (std::size_t end = size; end > 0; end = best[end].start)
    reversed.push_back({word.substr(best[end].start, end - best[end].start), best[end].id});
  std::vector<Segment> pieces;
  for (auto it = reversed.rbegin(); it != reversed.rend(); ++it) {
    const bool unknown = it->id == kUnknown || it->id == unk_;
    if (unknown && !pieces.empty() && pieces.back().id == kUnknown) {  // adjacent in the word: widen the run
      pieces.back().text = std::string_view(pieces.back().text.data(), pieces.back().text.size() + it->text.size());
      continue;
    }
    pieces.push_back({it->text, unknown ? kUnknown : it->id});
  }
  return pieces;
}

Status UnigramModel::unknown_run(std::string_view text, std::vector<int>& out, std::string* missing) const {
  if (byte_fallback_) {  // every byte as <0xNN>, or none of them
    std::vector<int> bytes;
    for (unsigned char b : text)
      if (const int id = piece_id(byte_fallback_token(b)); id >= 0) bytes.push_back(id);
    if (bytes.size() == text.size()) {
      out.insert(out.end(), bytes.begin(), bytes.end());
      return Ok{};
    }
  }
  if (unk_ >= 0) {
    out.push_back(unk_);
    return Ok{};
  }
  if (missing) *missing += text;
  const std::string shown = text.size() > 40 ? std::string(text.substr(0, 40)) + "…" : std::string(text);
  return Error{"the Unigram model has no piece for \"" + printable_utf8(shown) +
               "\" and no unk_id to stand for it (tokenizers refuses such text too)"};
}

Status UnigramModel::tokenize(std::string_view word, std::vector<int>& out, std::string* missing) const {
  for (const Segment& piece : segment(word)) {
    if (piece.id != kUnknown)
      out.push_back(piece.id);
    else if (const int id = piece_id(piece.text); id >= 0)  // the unk piece's own text, alone
      out.push_back(id);
    else if (auto s = unknown_run(piece.text, out, missing); !s)
      return s;
  }
  return Ok{};
}

}  // namespace poslab
