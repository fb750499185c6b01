#include "core/export_data.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace poslab {

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string format_float(float v) {
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (std::isnan(v)) return "nan";
  char buf[32];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, ptr) : std::string("nan");
}

void write_attention_csv(std::ostream& out, const Results& r) {
  out << "head,query,key,query_token,key_token,score,weight\n";
  const int T = static_cast<int>(r.tokens.size());
  std::vector<std::string> names;
  for (const auto& t : r.tokens) names.push_back(csv_field(t.text));
  for (std::size_t h = 0; h < r.attention.weights.size(); ++h) {
    const Matrix& S = r.attention.scores[h];
    const Matrix& A = r.attention.weights[h];
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < T; ++j)
        out << h << ',' << i << ',' << j << ',' << names[static_cast<std::size_t>(i)] << ','
            << names[static_cast<std::size_t>(j)] << ',' << format_float(S(i, j)) << ','
            << format_float(A(i, j)) << '\n';
  }
}

Status write_file_atomic(const std::filesystem::path& path, std::string_view bytes) {
  const std::string name = path.string();
  if (name.empty()) return Error{"no output path given"};
  std::error_code ec;
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(dir, ec)) return Error{name + ": the folder " + dir.string() + " does not exist"};
  if (std::filesystem::is_directory(path, ec)) return Error{name + ": is a folder"};
  const std::filesystem::path tmp = path.string() + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Error{name + ": cannot write in " + dir.string() + " (permission denied?)"};
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      out.close();
      std::filesystem::remove(tmp, ec);
      return Error{name + ": write failed (disk full?)"};
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return Error{name + ": cannot replace the file: " + ec.message()};
  }
  return Ok{};
}

}  // namespace poslab
