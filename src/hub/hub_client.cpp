#include "hub/hub_client.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "base/files.hpp"
#include "base/json.hpp"
#include "hub/http.hpp"
#include "hub/sha256.hpp"

namespace poslab::hub {

namespace fs = std::filesystem;

namespace {

std::string env_or(const char* name, std::string fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

bool truthy(std::string v) {
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return v == "1" || v == "ON" || v == "YES" || v == "TRUE";
}

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(s.begin());
  return s;
}

// What a server said, fit for a message: printable, one line, short.
std::string printable(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 300)) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? ' ' : c;
  return out;
}

// huggingface_hub's _normalize_etag: a weak marker and the quotes are not part of the name.
std::string normalize_etag(std::string etag) {
  if (etag.rfind("W/", 0) == 0) etag = etag.substr(2);
  etag.erase(std::remove(etag.begin(), etag.end(), '"'), etag.end());
  return etag;
}

std::string escaped_path(std::string_view file) {
  std::string out;
  std::size_t start = 0;
  while (start <= file.size()) {
    const std::size_t slash = std::min(file.find('/', start), file.size());
    if (!out.empty() || start > 0) out += '/';
    out += url_escape(file.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

// The Hub's refusals, as huggingface_hub tells them apart (X-Error-Code), in the user's words.
Error hub_error(const HttpResponse& r, const ModelName& m, const HubSettings& s, const std::string& what) {
  const std::string code = r.header("x-error-code");
  const std::string page = model_page(s, m);
  if (code == "GatedRepo" || ((r.status == 401 || r.status == 403) && r.body.find("gated") != std::string::npos)) {
    if (s.token.empty())
      return Error{m.repo_id() + " is a gated model: accept its license at " + page +
                   " while logged in, then give that account's token in $HF_TOKEN (or run `huggingface-cli login`)"};
    return Error{m.repo_id() + " is a gated model and the token given has no access to it yet: accept its license at " + page};
  }
  if (code == "RevisionNotFound") return Error{m.repo_id() + " has no revision \"" + m.revision + "\" (" + page + ")"};
  if (code == "EntryNotFound") return Error{m.repo_id() + " has no file " + what};
  if (code == "RepoNotFound" || r.status == 401 || r.status == 404)
    return Error{m.repo_id() + ": no such model at " + s.endpoint +
                 (s.token.empty() ? ", or it is private (a private model needs $HF_TOKEN)" : ", or the token given cannot see it")};
  std::string message = s.endpoint + " answered HTTP " + std::to_string(r.status) + " for " + m.repo_id() + " " + what;
  if (const std::string detail = r.header("x-error-message"); !detail.empty()) message += ": " + printable(detail);
  return Error{message};
}

struct Listing {
  std::string commit;
  std::vector<std::string> files;
};

// The revision's commit and files (one request). `reached` says whether the Hub answered at all.
Result<Listing> fetch_listing(const ModelName& m, const HubSettings& s, const FetchControl& c, bool& reached) {
  HttpRequest request;
  request.url = s.endpoint + "/api/models/" + m.org + "/" + m.name + "/revision/" + url_escape(m.revision);
  request.token = s.token;
  request.cancel = c.cancel;
  request.waiting = c.waiting;
  auto response = http_request_retrying(request);
  reached = response.ok();
  if (!response) return Error{response.error()};
  if (response->status != 200) return hub_error(*response, m, s, "");
  const auto json = nlohmann::json::parse(response->body, nullptr, false);
  const nlohmann::json* sha = json_member(json, "sha", &nlohmann::json::is_string);
  if (!sha) return Error{s.endpoint + ": the answer for " + m.text() + " names no commit"};
  Listing out{sha->get<std::string>(), {}};
  if (!is_commit_hash(out.commit)) return Error{s.endpoint + ": " + m.text() + "'s commit \"" + printable(out.commit) + "\" is not a commit hash"};
  if (const nlohmann::json* siblings = json_member(json, "siblings", &nlohmann::json::is_array))
    for (const auto& f : *siblings)
      if (const nlohmann::json* file = json_member(f, "rfilename", &nlohmann::json::is_string)) out.files.push_back(file->get<std::string>());
  return out;
}

// A missing file's blob name, size and where its bytes are (one HEAD, as hf_hub_download makes).
Result<RemoteFile> fetch_file_metadata(const ModelName& m, const std::string& commit, const std::string& file,
                                       const HubSettings& s, const FetchControl& c) {
  HttpRequest request;
  request.url = s.endpoint + "/" + m.org + "/" + m.name + "/resolve/" + commit + "/" + escaped_path(file);
  request.head = true;
  request.headers = {"Accept-Encoding: identity"};  // the size is the file's, not a compressed one's
  request.token = s.token;
  request.redirects = Redirects::RelativeOnly;
  request.cancel = c.cancel;
  request.waiting = c.waiting;
  auto response = http_request_retrying(request);
  if (!response) return Error{response.error()};
  const bool redirect = response->status >= 300 && response->status < 400;
  if (response->status != 200 && !redirect) return hub_error(*response, m, s, file);
  RemoteFile out;
  out.name = file;
  const std::string linked = response->header("x-linked-etag");
  out.etag = normalize_etag(linked.empty() ? response->header("etag") : linked);
  // An LFS file's linked ETag is the SHA-256 of its bytes (a git blob's ETag is a SHA-1, 40 digits).
  if (!linked.empty() && is_sha256(out.etag)) out.sha256 = out.etag;
  if (!is_safe_blob_name(out.etag))
    return Error{s.endpoint + ": the answer for " + m.repo_id() + " " + file + " has no usable ETag (\"" + printable(out.etag) + "\")"};
  const std::string linked_size = response->header("x-linked-size");
  const std::string size = linked_size.empty() ? response->header("content-length") : linked_size;
  char* end = nullptr;
  out.size = std::strtoull(size.c_str(), &end, 10);
  if (size.empty() || *end) return Error{s.endpoint + ": the answer for " + m.repo_id() + " " + file + " gives no size"};
  out.download_url = redirect && !response->location.empty() ? response->location : request.url;
  std::error_code ec;
  out.have_blob = fs::file_size(s.cache.blob(m, out.etag), ec) == out.size && !ec;
  return out;
}

bool listed(const Listing& l, const std::string& file) { return std::find(l.files.begin(), l.files.end(), file) != l.files.end(); }

// The shards model.safetensors.index.json names: from the cached snapshot's copy, else asked of
// the Hub (one GET of the small file). Each must be a safe name the commit lists.
Result<std::vector<std::string>> index_shards(const ModelName& m, const std::string& commit, const Listing& l, const HubSettings& s,
                                              const FetchControl& c, int& requests) {
  const std::string index = "model.safetensors.index.json";
  auto text = read_whole_file(s.cache.snapshot(m, commit) / index, kJsonConfigFile);
  if (!text) {
    HttpRequest request;
    request.url = s.endpoint + "/" + m.org + "/" + m.name + "/resolve/" + commit + "/" + index;
    request.token = s.token;
    request.cancel = c.cancel;
    request.waiting = c.waiting;
    auto response = http_request_retrying(request);
    ++requests;
    if (!response) return Error{response.error()};
    if (response->status != 200) return hub_error(*response, m, s, index);
    text = std::move(response->body);
  }
  const auto json = nlohmann::json::parse(*text, nullptr, false);
  const nlohmann::json* weight_map = json_member(json, "weight_map", &nlohmann::json::is_object);
  if (!weight_map) return Error{m.repo_id() + " " + index + " has no \"weight_map\" naming its shards"};
  std::vector<std::string> shards;
  for (const auto& [tensor, shard] : weight_map->items()) {
    if (!shard.is_string()) return Error{m.repo_id() + " " + index + ": the shard of " + tensor + " is not a file name"};
    const std::string name = shard.get<std::string>();
    if (auto bad = unsafe_file_name(name); bad || name.find('/') != std::string::npos)
      return Error{m.repo_id() + " " + index + " names a shard PosLab refuses to write: " + printable(name)};
    if (!listed(l, name)) return Error{m.repo_id() + " " + index + " names " + printable(name) + ", which the commit does not have"};
    if (std::find(shards.begin(), shards.end(), name) == shards.end()) shards.push_back(name);
  }
  return shards;
}

// The files PosLab will read, of those the commit lists: config.json, the tokenizer's files, and
// the weights a model folder's reader opens — model.safetensors alone when it is there (other
// *.safetensors beside it, as Mistral's consolidated.safetensors, are never read), else the index
// and the shards it names. Nothing else is asked for.
Result<std::vector<std::string>> files_to_read(const ModelName& m, const std::string& commit, const Listing& l, const HubSettings& s,
                                               const FetchControl& c, int& requests) {
  std::vector<std::string> wanted;
  for (const char* file : {"config.json", "tokenizer.json", "tokenizer_config.json"})
    if (listed(l, file)) wanted.emplace_back(file);
  if (listed(l, "model.safetensors")) {
    wanted.emplace_back("model.safetensors");
  } else if (listed(l, "model.safetensors.index.json")) {
    auto shards = index_shards(m, commit, l, s, c, requests);
    if (!shards) return Error{shards.error()};
    wanted.emplace_back("model.safetensors.index.json");
    wanted.insert(wanted.end(), shards->begin(), shards->end());
  }
  return wanted;
}

Result<FetchPlan> from_cache(const ModelName& m, const HubSettings& s, const std::string& why) {
  FetchPlan plan;
  plan.model = m;
  const auto commit = s.cache.commit_of(m);
  const std::string where = s.cache.repo(m).string();
  if (!commit) return Error{why + ", and " + m.text() + " is not in the cache (" + where + ")"};
  plan.commit = *commit;
  const auto missing = missing_model_files(s.cache.snapshot(m, *commit));
  if (!missing.empty()) {
    std::string list;
    for (const auto& f : missing) list += (list.empty() ? "" : ", ") + f;
    return Error{why + ", and the cached snapshot of " + m.text() + " (" + commit->substr(0, 12) + ") lacks " + list};
  }
  return plan;
}

}  // namespace

HubSettings HubSettings::from_environment() {
  HubSettings s;
  s.endpoint = env_or("HF_ENDPOINT", std::string(kDefaultEndpoint));
  while (!s.endpoint.empty() && s.endpoint.back() == '/') s.endpoint.pop_back();
  std::string where = std::getenv("HF_TOKEN") && *std::getenv("HF_TOKEN") ? "$HF_TOKEN" : "$HUGGING_FACE_HUB_TOKEN";
  s.token = env_or("HF_TOKEN", env_or("HUGGING_FACE_HUB_TOKEN", ""));
  if (s.token.empty()) {
    const fs::path file = env_or("HF_TOKEN_PATH", (hf_home() / "token").string());
    where = "the token file " + file.string();
    if (auto text = read_whole_file(file, kSmallTextFile)) s.token = trimmed(*text);
  }
  if (!one_header_line(s.token)) {
    s.token_problem = where + " holds a line break or another control character, which a token never has; "
                      "refusing to send it (give the token alone, on one line)";
    s.token.clear();
  }
  s.offline = truthy(env_or("HF_HUB_OFFLINE", "0"));
  return s;
}

std::string model_page(const HubSettings& s, const ModelName& m) { return s.endpoint + "/" + m.repo_id(); }

std::uint64_t FetchPlan::bytes_to_download() const {
  std::uint64_t total = 0;
  for (const auto& f : files)
    if (!f.have_blob) total += f.size;
  return total;
}

std::string format_bytes(std::uint64_t bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1000.0 && u < 4) v /= 1000.0, ++u;
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.3g %s", v, units[u]);
  return text;
}

Result<FetchPlan> plan_fetch(const ModelName& m, const HubSettings& s, const FetchControl& c) {
  if (!s.token_problem.empty()) return Error{s.token_problem};
  // A commit hash names fixed files: a whole snapshot of it needs no request at all.
  if (is_commit_hash(m.revision) && missing_model_files(s.cache.snapshot(m, m.revision)).empty()) {
    FetchPlan plan;
    plan.model = m;
    plan.commit = m.revision;
    return plan;
  }
  if (s.offline) return from_cache(m, s, "offline (HF_HUB_OFFLINE=1)");
  bool reached = false;
  auto listing = fetch_listing(m, s, c, reached);
  if (!listing && !reached && listing.error() != "cancelled") {
    // As huggingface_hub does: the Hub out of reach, a cached snapshot is used, and said.
    auto cached = from_cache(m, s, "cannot reach " + s.endpoint + " (" + listing.error() + ")");
    if (cached) cached->notes.push_back("cannot reach " + s.endpoint + "; using the cached snapshot " + cached->commit.substr(0, 12));
    return cached;
  }
  if (!listing) return Error{listing.error()};
  FetchPlan plan;
  plan.model = m;
  plan.commit = listing->commit;
  plan.requests = 1;
  // Every name is checked before anything is written: none may leave the snapshot folder.
  for (const auto& file : listing->files) {
    const std::string base = file.substr(file.find_last_of('/') == std::string::npos ? 0 : file.find_last_of('/') + 1);
    if (!is_wanted_file(base)) continue;
    if (auto bad = unsafe_file_name(file)) return Error{s.endpoint + " lists a file PosLab refuses to write: " + *bad};
  }
  auto wanted = files_to_read(m, plan.commit, *listing, s, c, plan.requests);
  if (!wanted) return Error{wanted.error()};
  if (auto r = s.cache.write_ref(m, plan.commit); !r) return Error{r.error()};
  for (const char* optional : {"tokenizer.json", "tokenizer_config.json"})
    if (std::find(wanted->begin(), wanted->end(), optional) == wanted->end()) plan.absent.emplace_back(optional);
  const fs::path snapshot = s.cache.snapshot(m, plan.commit);
  std::error_code ec;
  for (const auto& file : *wanted) {
    if (fs::exists(snapshot / file, ec)) continue;
    auto meta = fetch_file_metadata(m, plan.commit, file, s, c);
    ++plan.requests;
    if (!meta) return Error{meta.error()};
    plan.files.push_back(std::move(*meta));
  }
  return plan;
}

Result<fs::path> fetch_model(const ModelName& m, const HubSettings& s, const FetchControl& c) {
  auto plan = plan_fetch(m, s, c);
  if (!plan) return Error{plan.error()};
  return run_fetch(*plan, s, c);
}

}  // namespace poslab::hub
