"""Text for bench/tokenizer_run.sh: SIZE bytes of English-like prose, written to OUT.

Words are drawn from a Zipf distribution over 30 000 made-up words (syllables), so that a
tokenizer meets both common and rare words as in real text and no cache of whole texts helps;
sentences get capitals, commas, numbers, an occasional accented or Japanese word, and paragraphs.
Seeded: the same SIZE gives the same text.
    make_tokenizer_text.py SIZE OUT
"""
import random
import sys

size, out = int(sys.argv[1]), sys.argv[2]
rng = random.Random(36)
syllables = ["ka", "to", "ri", "an", "el", "mo", "th", "er", "in", "on", "st", "re", "de", "la", "pe", "ul", "os", "ch", "ne", "wi"]
words = ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))) for _ in range(30000)]
extra = ["café", "naïve", "日本語", "Zürich", "—", "don't", "it's", "3.14", "2026"]
cumulative, running = [], 0.0
for k in range(len(words)):
    running += 1.0 / (k + 1)
    cumulative.append(running)
parts, total = [], 0
while total < size:
    n = rng.randint(6, 24)
    sentence = rng.choices(words, cum_weights=cumulative, k=n)
    if rng.random() < 0.2:
        sentence[rng.randrange(n)] = rng.choice(extra)
    if rng.random() < 0.3:
        sentence[rng.randrange(n)] += ","
    if rng.random() < 0.1:
        sentence.append(str(rng.randint(0, 99999)))
    text = " ".join(sentence).capitalize() + rng.choice([". ", ". ", "? ", "! "])
    if rng.random() < 0.08:
        text += "\n\n"
    parts.append(text)
    total += len(text.encode())
data = "".join(parts).encode()[:size]
while data and (data[-1] & 0xC0) == 0x80:  # never end inside a character
    data = data[:-1]
if data and data[-1] >= 0xC0:
    data = data[:-1]
open(out, "wb").write(data)
