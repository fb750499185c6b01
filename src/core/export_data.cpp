#include "core/export_data.hpp"

#include "base/memory.hpp"
#include "core/encodings/bias.hpp"
#include "core/encodings/rope_scaling.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <numbers>
#include <sstream>

namespace poslab {

Status check_attention_csv_memory(const Results& r) {
  double token_bytes = 0.0;  // a row's two token texts, on average
  for (const auto* tokens : {&r.tokens, &r.key_tokens}) {
    double sum = 0.0;
    for (const Token& t : *tokens) sum += static_cast<double>(t.text.size()) + 2.0;  // quotes, perhaps
    token_bytes += tokens->empty() ? 0.0 : sum / static_cast<double>(tokens->size());
  }
  const double columns = 3.0 + (r.attention.sink_share.empty() ? 0.0 : 1.0) + (r.attention.score_position.empty() ? 0.0 : 2.0);
  // The indices and separators, the tokens, then the floats (shortest round trip; -inf and 0 where
  // masked): 36 bytes a row on average for a 32-head model's 1,023 tokens of English words.
  const double row = 12.0 + token_bytes + 8.0 * columns;
  const double rows = static_cast<double>(r.attention.weights.size()) * static_cast<double>(r.tokens.size()) *
                      static_cast<double>(r.key_tokens.size());
  return check_memory(2.0 * rows * row, "the attention CSV (" + std::to_string(static_cast<long long>(rows)) + " rows)",
                      "use a shorter sentence, or write the PNG alone");
}

void write_attention_csv(std::ostream& out, const Results& r) {
  const bool sinks = !r.attention.sink_share.empty();
  const bool split = !r.attention.score_position.empty();
  out << "head,query,key,query_token,key_token,score,weight" << (sinks ? ",sink" : "") << (split ? ",score_content,score_position" : "") << "\n";
  const int Tq = static_cast<int>(r.tokens.size());
  const int Tk = static_cast<int>(r.key_tokens.size());
  std::vector<std::string> queries, keys;
  for (const auto& t : r.tokens) queries.push_back(csv_field(t.text));
  for (const auto& t : r.key_tokens) keys.push_back(csv_field(t.text));
  // Millions of rows at long lengths: each is formatted straight into a block that goes out whole,
  // with to_chars (the same shortest round-trip text as format_float) instead of a stream per field.
  // The row's text before the scores is "h,i,j,query_token,key_token,": its parts are made once.
  std::vector<std::string> key_parts;  // "j," + ",key_token," is split around the query token
  for (int j = 0; j < Tk; ++j) key_parts.push_back(std::to_string(j) + ",");
  for (auto& k : keys) k = "," + k + ",";
  std::vector<char> block(1 << 16);
  std::size_t used = 0;
  auto put = [&](std::string_view text) {
    std::memcpy(block.data() + used, text.data(), text.size());
    used += text.size();
  };
  auto put_float = [&](float v) {
    if (!std::isfinite(v)) return put(format_float(v));
    used = static_cast<std::size_t>(std::to_chars(block.data() + used, block.data() + block.size(), v).ptr - block.data());
  };
  for (std::size_t h = 0; h < r.attention.weights.size(); ++h) {
    const Matrix& S = r.attention.scores[h];
    const Matrix& A = r.attention.weights[h];
    for (int i = 0; i < Tq; ++i) {
      const std::string prefix = std::to_string(h) + "," + std::to_string(i) + ",";
      const std::string& query = queries[static_cast<std::size_t>(i)];
      for (int j = 0; j < Tk; ++j) {
        // Room for the longest row: the texts, two floats (≤ 16 characters each) and separators.
        const std::size_t longest = prefix.size() + key_parts[static_cast<std::size_t>(j)].size() + query.size() +
                                    keys[static_cast<std::size_t>(j)].size() + 100;
        if (used + longest > block.size()) {
          out.write(block.data(), static_cast<std::streamsize>(used));
          used = 0;
          if (longest > block.size()) block.resize(longest);
        }
        put(prefix);
        put(key_parts[static_cast<std::size_t>(j)]);
        put(query);
        put(keys[static_cast<std::size_t>(j)]);
        put_float(S(i, j));
        block[used++] = ',';
        put_float(A(i, j));
        if (sinks) {
          block[used++] = ',';
          put_float(r.attention.sink_share[h](i));
        }
        if (split) {
          block[used++] = ',';
          put_float(r.attention.score_content[h](i, j));
          block[used++] = ',';
          put_float(r.attention.score_position[h](i, j));
        }
        block[used++] = '\n';
      }
    }
  }
  out.write(block.data(), static_cast<std::streamsize>(used));
}

void write_frequencies_csv(std::ostream& out, const ModelSettings& s, int rotary_dim, int T) {
  const std::vector<double> base = rope_thetas(rotary_dim, s.base);
  const RopeFrequencies scaled = rope_frequencies(rotary_dim, s.base, s.scaling, T);
  out << "pair,theta,wavelength,theta_scaled,wavelength_scaled\n";
  char line[160];
  for (std::size_t i = 0; i < base.size(); ++i) {
    const double t = base[i], ts = scaled.thetas[i];
    std::snprintf(line, sizeof line, "%zu,%.17g,%.17g,%.17g,%.17g\n", i, t, 2 * std::numbers::pi / t, ts,
                  2 * std::numbers::pi / ts);
    out << line;
  }
}

void write_bias_csv(std::ostream& out, const ModelSettings& s, const Results& r) {
  out << "head,query,key,bucket,bias\n";
  const Matrix& bias = r.problem.relative_bias;
  const int Tq = r.problem.queries(), Tk = r.problem.keys();
  for (int h = 0; h < r.problem.heads; ++h)
    for (int i = 0; i < Tq; ++i)
      for (int j = 0; j < Tk; ++j) {
        out << h << ',' << i << ',' << j << ',';
        if (s.bias == BiasKind::T5) out << t5_bucket(j - i, !s.causal, s.buckets, s.max_distance);
        out << ',' << format_float(bias.size() == 0 ? 0.0f : bias(h, j - i + Tq - 1)) << '\n';
      }
}

}  // namespace poslab
