// Hugging Face's tokenizers (the Rust library, through the @anush008/tokenizers Node binding)
// timed on text files, for bench/tokenizer_run.sh; the same output as tokenizer_bench (CPU time of
// the whole process: the encoding runs on one of Node's worker threads).
//   node tokenizer_hf.js MODULES TOKENIZER.json REPEAT TEXT...
const fs = require("fs");
const path = require("path");
const [modules, tokenizerFile, repeatText, ...texts] = process.argv.slice(2);
const { Tokenizer } = require(path.join(modules, "@anush008/tokenizers"));

(async () => {
  const tok = Tokenizer.fromFile(tokenizerFile);
  for (const file of texts) {
    const text = fs.readFileSync(file, "utf8");
    let best = Infinity, tokens = 0;
    for (let r = 0; r < Number(repeatText); ++r) {
      const start = process.cpuUsage();
      const encoding = await tok.encode(text, null, { addSpecialTokens: true });
      const used = process.cpuUsage(start);
      const ms = (used.user + used.system) / 1e3;
      best = Math.min(best, ms);
      tokens = encoding.getIds().length;
    }
    console.log(`${file} ${Buffer.byteLength(text, "utf8")} ${tokens} ${best.toFixed(2)}`);
  }
})();
