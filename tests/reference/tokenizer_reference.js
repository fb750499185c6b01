// The reference side of tokenizer_encoder_reference_test.sh: Hugging Face's tokenizers itself (the
// Rust library, through the @anush008/tokenizers Node binding) and transformers.js (through
// @lenml/tokenizers) encode the same strings poslab does.
//   node tokenizer_reference.js expect MODULES TOKENIZER_DIR CASES_JSON... > (writes files, see below)
//     rust.txt and js.txt in TOKENIZER_DIR/..: one JSON array of ids per string (add_special_tokens);
//     strings.bin: the strings, each ended by a zero byte.
//   node tokenizer_reference.js sweep MODULES TOKENIZER_DIR
//     strings.bin and rust.txt for every code point (surrogates and NUL, which no command-line
//     argument can hold, aside) in blocks of 1024, each
//     code point after an "a" and before a space, so that marks meet a letter to combine with.
//   node tokenizer_reference.js compare DIR NAME DEVIATIONS_JSON
//     poslab's actual.txt against rust.txt (all must match) and js.txt (all but the listed
//     deviations, whose reasons are printed); exits 1 on a failure.
const fs = require("fs");
const path = require("path");
const [mode, ...args] = process.argv.slice(2);

function writeLines(file, lists) {
  fs.writeFileSync(file, lists.map((ids) => JSON.stringify(ids).replaceAll(",", ", ")).join("\n") + "\n");
}

async function rustIds(modules, tokenizerDir, strings) {
  const { Tokenizer } = require(path.join(modules, "@anush008/tokenizers"));
  const tok = Tokenizer.fromFile(path.join(tokenizerDir, "tokenizer.json"));
  const out = [];
  for (const s of strings) out.push((await tok.encode(s, null, { addSpecialTokens: true })).getIds());
  return out;
}

function jsIds(modules, tokenizerDir, strings) {
  const { TokenizerLoader } = require(path.join(modules, "@lenml/tokenizers"));
  const tok = TokenizerLoader.fromPreTrained({
    tokenizerJSON: JSON.parse(fs.readFileSync(path.join(tokenizerDir, "tokenizer.json"), "utf8")),
    tokenizerConfig: JSON.parse(fs.readFileSync(path.join(tokenizerDir, "tokenizer_config.json"), "utf8")),
  });
  return strings.map((s) => tok.encode(s, { add_special_tokens: true }));
}

async function expect([modules, tokenizerDir, ...caseFiles]) {
  const strings = caseFiles.flatMap((f) => JSON.parse(fs.readFileSync(f, "utf8")));
  const dir = path.dirname(tokenizerDir);
  fs.writeFileSync(path.join(dir, "strings.bin"), strings.join("\0") + "\0");
  writeLines(path.join(dir, "rust.txt"), await rustIds(modules, tokenizerDir, strings));
  writeLines(path.join(dir, "js.txt"), jsIds(modules, tokenizerDir, strings));
}

async function sweep([modules, tokenizerDir]) {
  const strings = [];
  for (let first = 0; first < 0x110000; first += 1024) {
    let s = "";
    for (let cp = Math.max(first, 1); cp < first + 1024; ++cp) if (cp < 0xd800 || cp > 0xdfff) s += "a" + String.fromCodePoint(cp) + " ";
    strings.push(s);
  }
  const dir = path.dirname(tokenizerDir);
  fs.writeFileSync(path.join(dir, "strings.bin"), strings.join("\0") + "\0");
  writeLines(path.join(dir, "rust.txt"), await rustIds(modules, tokenizerDir, strings));
}

// A sweep's ids are the normalized text's bytes + 1 (see the probe tokenizer): the first place
// where two of them part, as text, says which character was normalized differently.
function firstDifference(s, a, b) {
  let k = 0;
  while (k < a.length && k < b.length && a[k] === b[k]) ++k;
  const text = (ids) => Buffer.from(ids.slice(Math.max(0, k - 12), k + 12).map((i) => i - 1)).toString("utf8");
  return `at id ${k}: reference ${JSON.stringify(text(a))}, poslab ${JSON.stringify(text(b))}`;
}

function compare([dir, name, deviationsFile]) {
  const strings = fs.readFileSync(path.join(dir, "strings.bin"), "utf8").split("\0").slice(0, -1);
  const lines = (f) => (fs.existsSync(path.join(dir, f)) ? fs.readFileSync(path.join(dir, f), "utf8").split("\n") : []);
  const rust = lines("rust.txt"), js = lines("js.txt"), actual = lines("actual.txt");
  const sweep = js.length === 0;
  // A "*" entry: transformers.js reads this whole file differently; its ids are shown, not held.
  const deviations = (JSON.parse(fs.readFileSync(deviationsFile, "utf8"))[name] || {});
  const whole = deviations["*"];
  if (whole) console.log(`transformers.js deviates from tokenizers on the whole file: ${whole}`);
  let rustMatched = 0, jsMatched = 0, failed = false;
  const shown = (s) => JSON.stringify(s.length > 80 ? s.slice(0, 80) + "…" : s);
  strings.forEach((s, k) => {
    if (rust[k] === actual[k]) ++rustMatched;
    else {
      failed = true;
      console.log(`MISMATCH with tokenizers (Rust) on ${shown(s)}`);
      if (sweep) console.log("  " + firstDifference(s, JSON.parse(rust[k]), JSON.parse(actual[k] || "[]")));
      else console.log(`  tokenizers ${rust[k]}\n  poslab     ${actual[k]}`);
    }
    if (sweep) return;
    if (whole) {
      if (js[k] === actual[k]) ++jsMatched;
      return;
    }
    if (js[k] === actual[k]) {
      ++jsMatched;
      if (s in deviations) console.log(`NOTE: transformers.js no longer deviates on ${shown(s)}; the entry can go`);
    } else if (s in deviations) {
      console.log(`transformers.js deviates from tokenizers on ${shown(s)} (${deviations[s]})\n  transformers.js ${js[k]}\n  tokenizers      ${rust[k]}`);
    } else {
      failed = true;
      console.log(`MISMATCH with transformers.js, not a listed deviation, on ${shown(s)}\n  transformers.js ${js[k]}\n  poslab          ${actual[k]}`);
    }
  });
  console.log(`${name}: poslab matches tokenizers (Rust) on ${rustMatched} of ${strings.length} strings` +
              (sweep ? "" : `, transformers.js on ${jsMatched} (` + (whole ? "a whole-file deviation" : `${Object.keys(deviations).length} listed deviations`) + ")"));
  if (failed) { console.log(`FAIL: ${name}`); process.exit(1); }
}

Promise.resolve()
  .then(() => ({ expect, sweep, compare })[mode](args))
  .catch((e) => { console.error(e); process.exit(2); });
