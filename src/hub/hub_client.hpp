#pragma once
// A model from the Hub into Hugging Face's cache, as huggingface_hub does it, limited to the files
// PosLab reads:
//  1. The revision: a commit hash whose snapshot is complete needs no request at all. Otherwise
//     one metadata request ($HF_ENDPOINT/api/models/ORG/NAME/revision/REV) gives the commit and
//     the file list; refs/<REV> is updated. A complete snapshot then needs nothing more.
//  2. Each missing file: a HEAD of its resolve URL gives the blob's name (X-Linked-Etag, else
//     ETag), its size (X-Linked-Size, else Content-Length) and, for a large file, the redirect to
//     where its bytes are. A blob already in the cache (another commit had it) is only linked.
//  3. The bytes: into blobs/<etag>.incomplete under .locks/…/<etag>.lock, resumed with a Range
//     request after a cut, renamed to blobs/<etag> once whole; several files at once.
// Offline (HF_HUB_OFFLINE=1) uses the cache only and says what is missing.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hub/hub_cache.hpp"
#include "hub/model_name.hpp"
#include "base/result.hpp"

namespace poslab::hub {

inline constexpr std::string_view kDefaultEndpoint = "https://huggingface.co";

struct HubSettings {
  std::string endpoint{kDefaultEndpoint};  // no trailing slash
  std::string token;                       // empty: anonymous
  // Why the token found cannot be used (a line break in $HF_TOKEN would smuggle a header into
  // every request): every request is refused with this, none is made.
  std::string token_problem;
  bool offline = false;
  HubCache cache;
  int parallel = 4;  // files downloaded at once
  // $HF_ENDPOINT, $HF_TOKEN (else the file $HF_TOKEN_PATH, else $HF_HOME/token), $HF_HUB_OFFLINE,
  // and the cache root (hub_cache.hpp).
  static HubSettings from_environment();
};

struct DownloadProgress {
  std::uint64_t done_bytes = 0;
  std::uint64_t total_bytes = 0;  // of the files being downloaded
  int files_done = 0;
  int files_total = 0;
  std::string file;  // the file that moved last ("" once all are done)
  ModelName model;
};

struct FetchControl {
  std::function<void(const DownloadProgress&)> progress;  // from any thread, never two at once
  const std::atomic<bool>* cancel = nullptr;
  // What a fetch waits for while it waits, in words (another process's lock on a blob, a server's
  // Retry-After, a body that stopped coming): from any thread, possibly two at once.
  std::function<void(const std::string& what)> waiting;
};

struct RemoteFile {
  std::string name;            // in the repository
  std::string etag;            // the blob's name
  std::uint64_t size = 0;
  std::string download_url;    // where the bytes are (the redirect's target, or the resolve URL)
  std::string sha256;          // the bytes' SHA-256 when the Hub gives it (LFS files), checked before the blob is kept
  bool have_blob = false;      // the blob is in the cache already: only the link is written
};

// What fetching a model will do, known before any byte of a file moves.
struct FetchPlan {
  ModelName model;
  std::string commit;
  std::vector<RemoteFile> files;           // missing from the snapshot
  std::vector<std::string> absent;         // wanted names the commit does not have (.no_exist)
  std::vector<std::string> notes;          // e.g. the Hub could not be reached: the cache is used
  std::uint64_t bytes_to_download() const;
  int requests = 0;                        // HTTP requests made for the plan
};

// The repository's URL for a user (where a gated model's license is accepted).
std::string model_page(const HubSettings& s, const ModelName& m);

Result<FetchPlan> plan_fetch(const ModelName& model, const HubSettings& settings, const FetchControl& control = {});
// The plan's downloads and links; the snapshot folder.
Result<std::filesystem::path> run_fetch(const FetchPlan& plan, const HubSettings& settings, const FetchControl& control = {});
// Both.
Result<std::filesystem::path> fetch_model(const ModelName& model, const HubSettings& settings, const FetchControl& control = {});

// "1.4 GB", "350 kB": sizes as the user reads them.
std::string format_bytes(std::uint64_t bytes);

}  // namespace poslab::hub
