#pragma once
// HTTP through libcurl, as the Hub needs it: TLS verified (never turned off), redirects followed
// here rather than by curl so that the token goes only to the origin it was given for — after a
// redirect to another scheme, host or port it is dropped and stays dropped, as huggingface_hub's
// HTTP client does (the Hub sends large files to a CDN).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace poslab::hub {

struct HttpResponse {
  long status = 0;
  std::string url;                             // the URL that answered (after redirects)
  std::map<std::string, std::string> headers;  // names lowercased; the last value of each
  std::string body;                            // unless the request had a sink for a 2xx body
  std::string location;                        // a 3xx's absolute target (not followed)
  std::string header(const std::string& lowercase_name) const;
};

enum class Redirects {
  All,           // follow every redirect (GET of a file's bytes)
  RelativeOnly,  // follow redirects within the origin, return the first to another (HEAD, as huggingface_hub)
};

struct HttpRequest {
  std::string url;
  bool head = false;
  std::vector<std::string> headers;  // "Name: value"
  std::string token;                 // sent as "Authorization: Bearer …" to url's origin only
  std::optional<std::uint64_t> range_from;  // "Range: bytes=N-"
  Redirects redirects = Redirects::All;
  // A 2xx body's bytes as they arrive; false stops the transfer. on_status is told the status
  // first (a 200 to a Range request means the server sends the whole file again).
  std::function<bool(std::string_view)> sink;
  std::function<void(long status)> on_status;
  const std::atomic<bool>* cancel = nullptr;
  // Told, in words, what the request waits for while it waits: a server that sends nothing for
  // a while (every kStallReport), a transient answer asked again after a pause.
  std::function<void(const std::string& what)> waiting;
};

// How long a transfer may receive nothing before `waiting` hears of it (and again each time).
inline constexpr std::chrono::seconds kStallReport{5};
// How long it may receive nothing before it fails (a stalled server is an error, not a hang).
inline constexpr std::chrono::seconds kStallLimit{60};

// The transfer's result, any HTTP status included; an Error only when no answer came (no
// connection, TLS refused, cut off, cancelled). `received` (when given) counts the body bytes
// that reached the sink, also on error, so that a cut transfer can resume.
Result<HttpResponse> http_request(const HttpRequest& request, std::uint64_t* received = nullptr);

// An answer worth asking again for, as huggingface_hub's http_backoff retries: 429 (too many
// requests) and 500, 502, 503, 504 (a server or its CDN briefly down).
bool transient_status(long status);

// How long to wait before asking again after `attempt` (0-based) answered `response`: its
// Retry-After in seconds when it gives one (at most 30 s), else 1, 2, 4, 8, 8 … s.
std::chrono::milliseconds retry_wait(int attempt, const HttpResponse& response);

// "ORIGIN answered HTTP 503 (Retry-After: 2); asking again in 2 s (try 2 of 5)": a retry's
// wait, as the user is told it.
std::string transient_wait_text(const HttpResponse& response, std::chrono::milliseconds wait, int attempt);

// Sleeps `wait` in short steps; false as soon as `cancel` is set.
bool wait_unless_cancelled(std::chrono::milliseconds wait, const std::atomic<bool>* cancel);

// How often a request is made in all before a transient answer is the answer.
inline constexpr int kHttpAttempts = 5;

// http_request, asked again after a transient answer (kHttpAttempts in all, retry_wait between):
// for requests without a sink (the Hub's metadata). A download's retries are its own (they resume).
Result<HttpResponse> http_request_retrying(const HttpRequest& request);

// Whether `text` can be sent as (part of) one header line: no CR, LF or other control character
// but tab. A token or header that fails is refused, never sent.
bool one_header_line(std::string_view text);

// "scheme://host:port" with the scheme's default port filled in; empty for a URL curl cannot parse.
std::string url_origin(const std::string& url);

// A path segment or query value with everything but unreserved characters %-escaped.
std::string url_escape(std::string_view text);

}  // namespace poslab::hub
