#!/usr/bin/env python3
"""A small Hugging Face Hub for PosLab's tests, on 127.0.0.1 only (no other network exists here).

  fake_hub.py serve ROOT --ports FILE [--log FILE] [--token T] [--cut-after N] [--rate BYTES_PER_S]
                     [--unavailable N]
                     [--tls-cert FILE --tls-key FILE]
  fake_hub.py publish ROOT ORG/NAME FOLDER [--ref main] [--tag TAG ...] [--gated]

`publish` stores FOLDER's files as a new commit of ORG/NAME (its hash: SHA-1 of the files' names
and contents, 40 hex digits) and points --ref and each --tag at it:
  ROOT/ORG/NAME/repo.json        {"refs": {"main": COMMIT, ...}, "gated": false}
  ROOT/ORG/NAME/commits/COMMIT/  the files
`serve` answers as the Hub does (read from ROOT on every request, so a test may publish while
it runs), on two ports: the Hub, and a "CDN" on another port, another origin, where large
(LFS: *.safetensors) files are redirected to, as the Hub sends them to its CDN:
  GET  /api/models/ORG/NAME/revision/REV   {"id", "sha", "siblings": [{"rfilename"}]}
  HEAD /ORG/NAME/resolve/REV/FILE           X-Repo-Commit; small files: 200, ETag (git blob id),
                                            Content-Length; LFS files: 302 to the CDN with
                                            X-Linked-Etag (sha256), X-Linked-Size, Location
  GET  the same                             the bytes (small files) or the same 302
  GET  (CDN) /lfs/SHA256                    the bytes, with Range: bytes=N- (206)
Errors carry X-Error-Code as the Hub's do: RepoNotFound, RevisionNotFound, EntryNotFound,
GatedRepo (401 without a token, 403 with a wrong one; --token is the one that has access).
--tls-cert FILE --tls-key FILE: the Hub speaks HTTPS with that (self-signed) certificate.
--cut-after N: the CDN's first answer for each blob closes the connection after N bytes (the next
request must resume with Range). --rate: the CDN sends no faster (to watch progress and Cancel).
--unavailable N: the first N requests of each method and path, on either server, are answered
503 Service Unavailable with Retry-After: 0 (a Hub or CDN briefly down; a client asks again).
--retry-after S: those 503s say Retry-After: S instead (a storm a client waits out).
Hostile servers (issue 36):
--oversize N: the CDN streams N bytes more than the size the Hub announced, with no
Content-Length (the body ends when the connection closes), as a CDN that streams on would.
--stall-after N: the CDN's answer for each blob sends N bytes, then nothing (the connection stays
open) until the client goes.
--api-padding N: the /api/models answer carries N entries of "spaces" (popular models list
thousands), so that it is hundreds of kB.
--corrupt: the CDN sends bytes of the announced length whose SHA-256 is not the announced one.
Every request is a JSON line in --log: server, method, path, range, authorization (the value).
"""
import hashlib
import http.server
import json
import os
import shutil
import sys
import threading
import time
import urllib.parse

LFS_SUFFIXES = (".safetensors", ".bin")


def repo_dir(root, repo_id):
    return os.path.join(root, *repo_id.split("/"))


def load_repo(root, repo_id):
    path = os.path.join(repo_dir(root, repo_id), "repo.json")
    if not os.path.isfile(path):
        return None
    with open(path) as f:
        return json.load(f)


def files_of(folder):
    out = []
    for base, _, names in os.walk(folder):
        for n in names:
            out.append(os.path.relpath(os.path.join(base, n), folder))
    return sorted(out)


def git_blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def publish(root, repo_id, folder, ref, tags, gated):
    digest = hashlib.sha1()
    for name in files_of(folder):
        with open(os.path.join(folder, name), "rb") as f:
            digest.update(name.encode() + b"\0" + hashlib.sha256(f.read()).digest())
    commit = digest.hexdigest()
    target = os.path.join(repo_dir(root, repo_id), "commits", commit)
    if not os.path.isdir(target):
        shutil.copytree(folder, target)
    repo = load_repo(root, repo_id) or {"refs": {}, "gated": False}
    repo["refs"][ref] = commit
    for t in tags:
        repo["refs"][t] = commit
    repo["gated"] = repo.get("gated", False) or gated
    tmp = os.path.join(repo_dir(root, repo_id), "repo.json.tmp")
    with open(tmp, "w") as f:
        json.dump(repo, f)
    os.replace(tmp, os.path.join(repo_dir(root, repo_id), "repo.json"))
    print(commit)


class State:
    def __init__(self, args):
        self.root = args["root"]
        self.token = args.get("token")
        self.cut_after = args.get("cut_after")
        self.rate = args.get("rate")
        self.log_path = args.get("log")
        self.lock = threading.Lock()
        self.cut_done = set()
        self.unavailable = args.get("unavailable", 0)
        self.unavailable_sent = {}
        self.cdn_origin = None
        self.retry_after = args.get("retry_after", 0)
        self.oversize = args.get("oversize", 0)
        self.stall_after = args.get("stall_after")
        self.api_padding = args.get("api_padding", 0)
        self.corrupt = args.get("corrupt", False)

    def log(self, entry):
        if not self.log_path:
            return
        with self.lock, open(self.log_path, "a") as f:
            f.write(json.dumps(entry) + "\n")


def make_handler(state, server_name):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def record(self):
            state.log({"server": server_name, "method": self.command, "path": self.path,
                       "range": self.headers.get("Range"), "authorization": self.headers.get("Authorization")})

        def send_error_code(self, status, code, message):
            body = json.dumps({"error": message}).encode()
            self.send_response(status)
            self.send_header("X-Error-Code", code)
            self.send_header("X-Error-Message", message)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def send_bytes(self, data, headers, status=200):
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        def do_HEAD(self):
            self.record()
            if not self.refused():
                self.route()

        def do_GET(self):
            self.record()
            if not self.refused():
                self.route()

        def refused(self):
            """--unavailable: a 503 for the first N requests of this method and path."""
            key = (server_name, self.command, self.path)
            with state.lock:
                sent = state.unavailable_sent.get(key, 0)
                if sent >= state.unavailable:
                    return False
                state.unavailable_sent[key] = sent + 1
            self.send_response(503)
            self.send_header("Retry-After", str(state.retry_after))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return True

        def route(self):
            path = urllib.parse.urlparse(self.path).path
            parts = [urllib.parse.unquote(p) for p in path.split("/")[1:]]
            if server_name == "cdn":
                return self.cdn(parts)
            if len(parts) >= 6 and parts[:2] == ["api", "models"] and parts[4] == "revision":
                return self.api(parts[2] + "/" + parts[3], "/".join(parts[5:]))
            if len(parts) >= 5 and parts[2] == "resolve":
                return self.resolve(parts[0] + "/" + parts[1], parts[3], "/".join(parts[4:]))
            self.send_error_code(404, "NotFound", "no such page")

        def access(self, repo_id):
            """The repository and its commit table, or None after answering with the error."""
            repo = load_repo(state.root, repo_id)
            if repo is None:
                self.send_error_code(401, "RepoNotFound", "Repository not found")
                return None
            if repo.get("gated"):
                given = self.headers.get("Authorization")
                if given is None:
                    self.send_error_code(401, "GatedRepo", "Access to model %s is restricted." % repo_id)
                    return None
                if given != "Bearer %s" % state.token:
                    self.send_error_code(403, "GatedRepo", "Access to model %s is restricted." % repo_id)
                    return None
            return repo

        def commit_of(self, repo, revision):
            if revision in repo["refs"]:
                return repo["refs"][revision]
            if revision in repo["refs"].values():
                return revision
            self.send_error_code(404, "RevisionNotFound", "Invalid rev id: %s" % revision)
            return None

        def api(self, repo_id, revision):
            repo = self.access(repo_id)
            commit = repo and self.commit_of(repo, revision)
            if not commit:
                return
            folder = os.path.join(repo_dir(state.root, repo_id), "commits", commit)
            siblings = [{"rfilename": n} for n in files_of(folder)]
            extra = os.path.join(repo_dir(state.root, repo_id), "extra_siblings.json")
            if os.path.isfile(extra):  # names a hostile Hub might list
                siblings += [{"rfilename": n} for n in json.load(open(extra))]
            answer = {"id": repo_id, "sha": commit, "siblings": siblings}
            if state.api_padding:
                answer["spaces"] = ["someone/space-number-%06d" % k for k in range(state.api_padding)]
            body = json.dumps(answer).encode()
            self.send_bytes(body, {"Content-Type": "application/json"})

        def resolve(self, repo_id, revision, name):
            repo = self.access(repo_id)
            commit = repo and self.commit_of(repo, revision)
            if not commit:
                return
            file = os.path.join(repo_dir(state.root, repo_id), "commits", commit, name)
            if not os.path.isfile(file):
                return self.send_error_code(404, "EntryNotFound", "%s does not exist" % name)
            with open(file, "rb") as f:
                data = f.read()
            headers = {"X-Repo-Commit": commit, "ETag": '"%s"' % git_blob_id(data)}
            if name.endswith(LFS_SUFFIXES):
                sha = hashlib.sha256(data).hexdigest()
                headers.update({"X-Linked-Etag": '"%s"' % sha, "X-Linked-Size": str(len(data)),
                                "Location": "%s/lfs/%s?repo=%s" % (state.cdn_origin, sha, repo_id)})
                return self.send_bytes(b"", headers, status=302)
            self.send_bytes(data, headers)

        def cdn(self, parts):
            if len(parts) != 2 or parts[0] != "lfs":
                return self.send_error_code(404, "NotFound", "no such blob")
            sha = parts[1]
            data = None
            for base, _, names in os.walk(state.root):
                for n in names:
                    if n.endswith(LFS_SUFFIXES):
                        with open(os.path.join(base, n), "rb") as f:
                            blob = f.read()
                        if hashlib.sha256(blob).hexdigest() == sha:
                            data = blob
            if data is None:
                return self.send_error_code(404, "NotFound", "no such blob")
            start = 0
            rng = self.headers.get("Range")
            if rng and rng.startswith("bytes=") and rng.endswith("-"):
                start = int(rng[6:-1])
                if start >= len(data):
                    self.send_response(416)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
            body = data[start:]
            if state.corrupt:  # the announced length, other bytes
                body = bytes(b ^ 0x5a for b in body)
            self.send_response(206 if rng else 200)
            if rng:
                self.send_header("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data)))
            if state.oversize:  # more than announced: the body ends when the connection closes
                body = body + b"\0" * state.oversize
                self.close_connection = True
                self.send_header("Connection", "close")
            else:
                self.send_header("Content-Length", str(len(body)))
            self.send_header("ETag", '"%s"' % sha)
            self.end_headers()
            if self.command == "HEAD":
                return
            cut = None
            with state.lock:
                if state.cut_after is not None and sha not in state.cut_done and not rng:
                    state.cut_done.add(sha)
                    cut = state.cut_after
            if state.stall_after is not None:
                try:
                    self.wfile.write(body[:state.stall_after])
                    self.wfile.flush()
                    while self.connection.recv(1):  # nothing more is sent until the client goes
                        pass
                except OSError:
                    pass
                self.close_connection = True
                return
            try:
                self.send_body(body, cut)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client went (a Cancel): nothing to report

        def send_body(self, body, cut):
            chunk = 16384
            sent = 0
            while sent < len(body):
                if cut is not None and sent >= cut:
                    self.close_connection = True
                    self.wfile.flush()
                    self.connection.shutdown(2)
                    return
                end = min(len(body), sent + chunk, cut if cut is not None and cut > sent else len(body))
                self.wfile.write(body[sent:end])
                sent = end
                if state.rate:
                    time.sleep(chunk / state.rate)

    return Handler


def serve(args):
    state = State(args)
    hub = http.server.ThreadingHTTPServer(("127.0.0.1", 0), make_handler(state, "hub"))
    if args.get("tls_cert"):  # HTTPS with a certificate no authority signed: a client must refuse it
        import ssl
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args["tls_cert"], args["tls_key"])
        hub.socket = context.wrap_socket(hub.socket, server_side=True)
    cdn = http.server.ThreadingHTTPServer(("127.0.0.1", 0), make_handler(state, "cdn"))
    state.cdn_origin = "http://127.0.0.1:%d" % cdn.server_address[1]
    threading.Thread(target=cdn.serve_forever, daemon=True).start()
    tmp = args["ports"] + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d %d\n" % (hub.server_address[1], cdn.server_address[1]))
    os.replace(tmp, args["ports"])  # the test waits for this file: both ports are listening
    hub.serve_forever()


def main(argv):
    if len(argv) >= 4 and argv[0] == "publish":
        rest = argv[4:]
        ref, tags, gated = "main", [], False
        while rest:
            flag = rest.pop(0)
            if flag == "--ref":
                ref = rest.pop(0)
            elif flag == "--tag":
                tags.append(rest.pop(0))
            elif flag == "--gated":
                gated = True
        return publish(argv[1], argv[2], argv[3], ref, tags, gated)
    if len(argv) >= 2 and argv[0] == "serve":
        args = {"root": argv[1]}
        rest = argv[2:]
        while rest:
            flag = rest.pop(0)[2:].replace("-", "_")
            if flag == "corrupt":
                args[flag] = True
                continue
            value = rest.pop(0)
            numbers = ("cut_after", "rate", "unavailable", "retry_after", "oversize", "stall_after", "api_padding")
            args[flag] = int(value) if flag in numbers else value
        return serve(args)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]) or 0)
