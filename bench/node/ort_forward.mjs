// ONNX Runtime's forward pass (onnxruntime-node from npm, CPU execution provider) of the model
// that bench/runtimes_onnx.py exports, timed for bench/runtimes_run.sh. Not a test.
//
//   node bench/node/ort_forward.mjs MODEL.onnx --tokens T --vocab V [--threads 2] [--warmup 1] [--repeat 1]
//
// One session (intraOpNumThreads = threads, interOpNumThreads 1, sequential execution, all graph
// optimizations), then warm-up + repeat runs of ids = (arange(T) * 7919) % V as int64 [1, T]; each
// run returns the float32 logits of all T positions. Only session.run is timed.
// Reports PyTorch's checksum (the sum of the last position's first 16 logits), each position's
// most likely token, and log p of tokens 0..15 at the last position (for the llama.cpp check).
// Prints one JSON object on stdout.
import ort from "onnxruntime-node";
import { options } from "./options.mjs";


const o = options(process.argv.slice(2), "ort_forward.mjs MODEL.onnx --tokens T --vocab V [--threads N] [--warmup W] [--repeat R]");
const t0 = performance.now();
const session = await ort.InferenceSession.create(o.file, {
  executionProviders: ["cpu"],
  intraOpNumThreads: o.threads,
  interOpNumThreads: 1,
  executionMode: "sequential",
  graphOptimizationLevel: "all",
});
const loadS = (performance.now() - t0) / 1000;
const ids = BigInt64Array.from({ length: o.tokens }, (_, t) => BigInt((t * 7919) % o.vocab));
const feeds = { ids: new ort.Tensor("int64", ids, [1, o.tokens]) };

const times = [];
let logits = null;
for (let r = 0; r < o.warmup + o.repeat; r++) {
  logits = null;  // let the previous output go before the next run allocates its own
  const start = performance.now();
  const out = await session.run(feeds);
  const s = (performance.now() - start) / 1000;
  logits = out.logits;
  process.stderr.write(`onnxruntime forward ${r < o.warmup ? "warm-up" : "run"} ${s.toFixed(3)} s\n`);
  if (r >= o.warmup) times.push(s);
}
const [, T, V] = logits.dims;
const data = logits.data;
let checksum = 0;
for (let i = 0; i < 16; i++) checksum += data[(T - 1) * V + i];
const top1 = [];
for (let t = 0; t < T; t++) {
  let best = 0;
  for (let v = 1; v < V; v++) if (data[t * V + v] > data[t * V + best]) best = v;
  top1.push(best);
}
let max = -Infinity, sum = 0;
for (let v = 0; v < V; v++) max = Math.max(max, data[(T - 1) * V + v]);
for (let v = 0; v < V; v++) sum += Math.exp(data[(T - 1) * V + v] - max);
const lse = max + Math.log(sum);
const sorted = [...times].sort((a, b) => a - b);
console.log(JSON.stringify({
  forward_s_min: sorted[0], forward_s_median: sorted[Math.floor(sorted.length / 2)], forward_s_all: times,
  load_s: loadS, tokens: T, vocab: V, threads: o.threads, ort_version: ort.env.versions?.node ?? null,
  logits_checksum: checksum, top1_ids: top1,
  last_logp16: Array.from({ length: 16 }, (_, i) => data[(T - 1) * V + i] - lse),
  rss_peak_mb: process.resourceUsage().maxRSS / 1024,
}));
await session.release();
