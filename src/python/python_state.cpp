// The Python module's keywords as the command line's options, its errors as exception kinds, and
// its figures as the files `poslab export` writes.
#include <algorithm>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "base/memory.hpp"
#include "base/files.hpp"
#include "core/options.hpp"
#include "figures/export.hpp"
#include "figures/html_page.hpp"
#include "gpu/headless.hpp"
#include "plot/render.hpp"
#include "plot/svg.hpp"
#include "python/python_api.hpp"

namespace poslab::python {

ErrorKind error_kind(std::string_view message) {
  if (message.find("more than the memory limit") != std::string_view::npos) return ErrorKind::Memory;
  for (std::string_view missing : {": no such file", " does not exist", ": no such model at "})
    if (message.find(missing) != std::string_view::npos) return ErrorKind::FileNotFound;
  return ErrorKind::Value;
}

void fail(const std::string& message) { throw Failure(error_kind(message), message); }

void check(const Status& status) {
  if (!status) fail(status.error());
}

namespace {

// "--rope-scaling" as Python spells it: "rope_scaling".
std::string keyword_of(std::string_view option) {
  std::string name(option.substr(option.starts_with("--") ? 2 : 0));
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

// Every keyword a function takes: the state options, --session, --memory-limit and its own flags.
std::string keyword_list(const std::vector<Flag>& flags) {
  std::set<std::string> names = {"session", "memory_limit"};
  for (const StateOption& o : state_options()) names.insert(keyword_of(o.name));
  for (const Flag& f : flags)
    if (!f.name.empty()) names.insert(keyword_of(f.name));
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return list;
}

}  // namespace

bool ParsedKeywords::given(std::string_view option) const {
  return std::find(options.begin(), options.end(), option) != options.end();
}

ParsedKeywords parse_keywords(const Keywords& keywords, std::string_view function, const std::vector<Flag>& flags) {
  ParsedKeywords parsed;
  std::vector<std::string> arguments;
  for (const Keyword& k : keywords) {
    std::string option = "--" + k.name;
    std::replace(option.begin(), option.end(), '_', '-');
    parsed.options.push_back(option);
    // Always --name=value, so that a value starting with "--" is a value.
    arguments.push_back(k.value ? option + "=" + *k.value : option);
  }
  ArgParser parser;
  for (const std::string& a : arguments) parser.args.push_back(a);
  const auto unknown = [&](std::string_view option) {
    return std::string(function) + "() got an unknown keyword \"" + keyword_of(option) +
           "\"; the keywords are: " + keyword_list(flags);
  };
  const Status status = parser.parse(flags, &parsed.state, unknown);
  if (!status) {
    // A --model that names nothing here: neither a folder nor a model the resolver found.
    std::error_code ec;
    for (const Keyword& k : keywords)
      if (k.name == "model" && k.value && status.error().starts_with("--model " + *k.value + ":") &&
          !std::filesystem::exists(*k.value, ec))
        throw Failure(ErrorKind::FileNotFound, status.error());
    fail(status.error());
  }
  return parsed;
}

MemoryLimitScope::MemoryLimitScope() {
  const MemoryBudget budget = memory_budget();
  bytes_ = budget.bytes;
  source_ = budget.source;
}

MemoryLimitScope::~MemoryLimitScope() { set_memory_limit(bytes_, source_); }

namespace {

// Renders need a current OpenGL context and use an ImGui context of their own (a process-wide
// current one): one render at a time, each in a headless context made for it.
std::mutex& render_mutex() {
  static std::mutex m;
  return m;
}

template <typename Draw>
auto with_gl(Draw draw) {
  std::lock_guard lock(render_mutex());
  auto context = gpu::HeadlessContext::create();
  if (!context) throw Failure(ErrorKind::Runtime, "drawing a PNG needs OpenGL: " + context.error());
  return draw();
}

}  // namespace

std::string Figure::png(float scale) const {
  auto image = with_gl([&] { return plot::render_figure(figure, scale); });
  return plot::encode_png(take(std::move(image)));
}

std::string Figure::svg() const { return plot::render_svg(figure); }

std::string Figure::to_html() const {
  if (!html) return static_page(figure, "PosLab");  // no cells to answer the pointer with: the figure alone
  return take(html());
}

void Figure::save(const std::string& path, float scale) const {
  ExportRequest request;
  request.scale = scale;
  const std::string suffix = std::filesystem::path(path).extension().string();
  if (suffix == ".png") request.png = path;
  else if (suffix == ".svg") request.svg = path;
  else if (suffix == ".csv") request.csv = path;
  else if (suffix == ".html") return check(write_file_atomic(path, to_html()));
  else fail("save(\"" + path + "\"): the suffix says what to write: .png, .svg, .csv or .html");
  std::vector<std::string> written;
  if (request.png.empty()) return check(write_export(&figure, &csv, request, written));
  with_gl([&] {
    check(write_export(&figure, &csv, request, written));
    return 0;
  });
}

}  // namespace poslab::python
