#include "hub/http.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <thread>

#include <curl/curl.h>

namespace poslab::hub {

namespace {

constexpr int kMaxRedirects = 10;
constexpr std::size_t kMaxErrorBody = 64 * 1024;  // enough for any error message the Hub sends
// A 2xx answer kept in memory (the Hub's metadata): a popular model's /api/models answer lists
// thousands of spaces (hundreds of kB), so it is read whole up to a size no metadata reaches.
constexpr std::size_t kMaxAnswerBody = 64 * 1024 * 1024;

void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Transfer {
  const HttpRequest* request = nullptr;
  HttpResponse response;
  CURL* handle = nullptr;
  std::uint64_t received = 0;
  bool sink_stopped = false;
  bool answer_too_large = false;
  bool status_told = false;
  std::chrono::steady_clock::time_point last_byte = std::chrono::steady_clock::now();
  std::chrono::seconds stall_reported{0};
};

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::string_view line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) t->response.headers.clear();  // a new response (after 100 Continue)
  const auto colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string value(line.substr(colon + 1));
    while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front()))) value.erase(value.begin());
    while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.pop_back();
    t->response.headers[lowercase(std::string(line.substr(0, colon)))] = value;
  }
  return size * count;
}

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::size_t n = size * count;
  t->last_byte = std::chrono::steady_clock::now();
  t->stall_reported = std::chrono::seconds{0};
  // The status is known once the headers are in; only a 2xx body goes to the sink.
  long status = 0;
  curl_easy_getinfo(t->handle, CURLINFO_RESPONSE_CODE, &status);
  if (status >= 200 && status < 300 && t->request->sink) {
    if (!t->status_told && t->request->on_status) t->request->on_status(status);
    t->status_told = true;
    if (!t->request->sink(std::string_view(data, n))) {
      t->sink_stopped = true;
      return 0;  // curl ends the transfer with CURLE_WRITE_ERROR
    }
    t->received += n;
    return n;
  }
  if (status >= 200 && status < 300) {  // an answer read whole, or refused whole: never cut
    if (t->response.body.size() + n > kMaxAnswerBody) {
      t->answer_too_large = true;
      return 0;
    }
    t->response.body.append(data, n);
    return n;
  }
  if (t->response.body.size() < kMaxErrorBody) t->response.body.append(data, std::min(n, kMaxErrorBody - t->response.body.size()));
  return n;
}

// Called about once a second, data or not: Cancel, and a server gone quiet said as it happens.
int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (t->request->cancel && t->request->cancel->load()) return 1;
  const auto idle = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - t->last_byte);
  if (t->request->waiting && idle >= t->stall_reported + kStallReport) {
    t->stall_reported = idle;
    t->request->waiting("no data from " + url_origin(t->response.url) + " for " + std::to_string(idle.count()) +
                        " s; waiting (it is given up after " + std::to_string(kStallLimit.count()) + " s without data)");
  }
  return 0;
}

struct CurlHandle {
  CURL* h = curl_easy_init();
  curl_slist* headers = nullptr;
  ~CurlHandle() {
    curl_slist_free_all(headers);
    if (h) curl_easy_cleanup(h);
  }
};

// One hop: the request to `url`, redirects not followed.
Result<HttpResponse> one_hop(const HttpRequest& r, const std::string& url, bool with_token, Transfer& t) {
  CurlHandle c;
  if (!c.h) return Error{"cannot start an HTTP transfer (libcurl)"};
  t.response = HttpResponse{};
  t.response.url = url;
  t.last_byte = std::chrono::steady_clock::now();
  t.stall_reported = std::chrono::seconds{0};
  t.handle = c.h;
  for (const auto& h : r.headers) c.headers = curl_slist_append(c.headers, h.c_str());
  if (with_token && !r.token.empty()) c.headers = curl_slist_append(c.headers, ("Authorization: Bearer " + r.token).c_str());
  if (r.range_from && *r.range_from > 0)
    c.headers = curl_slist_append(c.headers, ("Range: bytes=" + std::to_string(*r.range_from) + "-").c_str());
  curl_easy_setopt(c.h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c.h, CURLOPT_HTTPHEADER, c.headers);
  curl_easy_setopt(c.h, CURLOPT_NOBODY, r.head ? 1L : 0L);
  curl_easy_setopt(c.h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c.h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c.h, CURLOPT_USERAGENT, "poslab/" "0.1 (huggingface_hub-compatible cache)");
  curl_easy_setopt(c.h, CURLOPT_CONNECTTIMEOUT, 20L);
  // A stalled server (under 1 byte/s for a minute) is a failed transfer, not a hang.
  curl_easy_setopt(c.h, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c.h, CURLOPT_LOW_SPEED_TIME, static_cast<long>(kStallLimit.count()));
  curl_easy_setopt(c.h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c.h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c.h, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(c.h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c.h, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c.h, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(c.h, CURLOPT_XFERINFODATA, &t);
  curl_easy_setopt(c.h, CURLOPT_NOPROGRESS, 0L);
  const CURLcode code = curl_easy_perform(c.h);
  if (r.cancel && r.cancel->load()) return Error{"cancelled"};
  if (t.sink_stopped) return Error{"the download's file could not be written"};
  if (t.answer_too_large)
    return Error{url_origin(url) + " sent an answer larger than " + std::to_string(kMaxAnswerBody >> 20) + " MB; PosLab reads no metadata that large"};
  if (code != CURLE_OK) return Error{std::string(curl_easy_strerror(code)) + " (" + url_origin(url) + ")"};
  curl_easy_getinfo(c.h, CURLINFO_RESPONSE_CODE, &t.response.status);
  if (const char* next = nullptr; curl_easy_getinfo(c.h, CURLINFO_REDIRECT_URL, &next) == CURLE_OK && next)
    t.response.location = next;
  return t.response;
}

}  // namespace

bool one_header_line(std::string_view text) {
  return std::none_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\t') || u == 0x7f;
  });
}

std::string HttpResponse::header(const std::string& name) const {
  const auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

std::string url_origin(const std::string& url) {
  CURLU* u = curl_url();
  std::string origin;
  if (u && curl_url_set(u, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK) {
    char *scheme = nullptr, *host = nullptr, *port = nullptr;
    if (curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK && curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK)
      origin = lowercase(scheme) + "://" + lowercase(host) + ":" + port;
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
  }
  curl_url_cleanup(u);
  return origin;
}

std::string url_escape(std::string_view text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

Result<HttpResponse> http_request(const HttpRequest& request, std::uint64_t* received) {
  init_curl_once();
  // A line break in a header's value would end the header and begin another one of the
  // sender's choosing (header injection): such a request is never sent.
  for (const auto& h : request.headers)
    if (!one_header_line(h)) return Error{"refusing to send a header with a line break or control character"};
  if (!one_header_line(request.token)) return Error{"refusing to send a token with a line break or control character"};
  const std::string origin = url_origin(request.url);
  if (origin.empty()) return Error{"not a URL: " + request.url};
  Transfer t;
  t.request = &request;
  std::string url = request.url;
  bool with_token = !request.token.empty();
  for (int hop = 0; hop <= kMaxRedirects; ++hop) {
    auto response = one_hop(request, url, with_token, t);
    if (received) *received = t.received;
    if (!response) return response;
    const bool redirect = response->status >= 300 && response->status < 400 && !response->location.empty();
    if (!redirect) return response;
    const bool same_origin = url_origin(response->location) == url_origin(url);
    if (request.redirects == Redirects::RelativeOnly && !same_origin) return response;
    if (url_origin(response->location).empty()) return Error{"a redirect to something that is not a URL"};
    // The token is for the origin it was given for: a hop elsewhere drops it for good.
    if (url_origin(response->location) != origin) with_token = false;
    url = response->location;
  }
  return Error{"more than " + std::to_string(kMaxRedirects) + " redirects from " + url_origin(request.url)};
}

bool transient_status(long status) {
  return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

std::chrono::milliseconds retry_wait(int attempt, const HttpResponse& response) {
  using std::chrono::milliseconds;
  const std::string after = response.header("retry-after");
  char* end = nullptr;
  const double seconds = std::strtod(after.c_str(), &end);
  // Retry-After may also be an HTTP date; then, like a missing one, the schedule decides.
  if (!after.empty() && *end == '\0' && seconds >= 0.0) return milliseconds(static_cast<long>(std::min(seconds, 30.0) * 1000.0));
  return milliseconds(1000L << std::clamp(attempt, 0, 3));
}

std::string transient_wait_text(const HttpResponse& response, std::chrono::milliseconds wait, int attempt) {
  const auto tenths = (wait.count() + 50) / 100;
  return url_origin(response.url) + " answered HTTP " + std::to_string(response.status) +
         (response.header("retry-after").empty() ? "" : " (Retry-After: " + response.header("retry-after") + ")") + "; asking again in " +
         std::to_string(tenths / 10) + (tenths % 10 ? "." + std::to_string(tenths % 10) : "") + " s (try " + std::to_string(attempt + 2) +
         " of " + std::to_string(kHttpAttempts) + ")";
}

bool wait_unless_cancelled(std::chrono::milliseconds wait, const std::atomic<bool>* cancel) {
  const auto until = std::chrono::steady_clock::now() + wait;
  while (std::chrono::steady_clock::now() < until) {
    if (cancel && cancel->load()) return false;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(std::chrono::milliseconds(50),
                                                                             until - std::chrono::steady_clock::now()));
  }
  return !(cancel && cancel->load());
}

Result<HttpResponse> http_request_retrying(const HttpRequest& request) {
  for (int attempt = 0;; ++attempt) {
    auto response = http_request(request);
    if (!response || !transient_status(response->status) || attempt + 1 >= kHttpAttempts) return response;
    const auto wait = retry_wait(attempt, *response);
    if (request.waiting) request.waiting(transient_wait_text(*response, wait, attempt));
    if (!wait_unless_cancelled(wait, request.cancel)) return Error{"cancelled"};
  }
}

}  // namespace poslab::hub
