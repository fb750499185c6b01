// llama.cpp's forward pass through node-llama-cpp (its prebuilt CPU binary from npm), timed for
// bench/runtimes_run.sh. Not a test.
//
//   node bench/node/llama_forward.mjs FILE.gguf --tokens T --vocab V [--threads 2] [--warmup 1] [--repeat 1]
//
// Loads the GGUF (memory-mapped, gpu: false, build: "never" so that nothing is compiled or
// downloaded), makes a context of T + 1 tokens whose batch is T (one llama_decode for the whole
// sequence), then runs warm-up + repeat forwards of ids = (arange(T) * 7919) % V, clearing the
// sequence's KV cache before each.
//
// All positions' logits: llama.cpp computes logits only for the batch entries flagged for output,
// and node-llama-cpp flags an entry when controlledEvaluate asks for something about the next
// token there. Each position asks for its next token (greedy), so llama.cpp computes the LM head
// for all T positions, as PosLab, PyTorch and ONNX Runtime do. node-llama-cpp then samples each
// position in turn (an argmax over the vocabulary after the decode); its first result arrives when
// the decode is done, so forward_s is the time to the first result and total_s adds the T samplings.
// The warm-up also asks for the last position's full probability list: log p of tokens 0..15
// there are compared with PyTorch's log-softmax (the logits less their logsumexp).
//
// Prints one JSON object on stdout.
import { getLlama, LlamaLogLevel } from "node-llama-cpp";
import { options } from "./options.mjs";


const o = options(process.argv.slice(2), "llama_forward.mjs FILE.gguf --tokens T --vocab V [--threads N] [--warmup W] [--repeat R]");
const logs = [];
const llama = await getLlama({
  gpu: false,
  build: "never",
  usePrebuiltBinaries: true,
  progressLogs: false,
  // "log" is the level of ggml's "loaded CPU backend from ...": which of the binary's CPU variants
  // (one per instruction set, picked at start-up) runs here. Debug would log inside the timings.
  logLevel: LlamaLogLevel.log,
  logger: (level, message) => { if (/load_backend|flash_attn|n_ubatch|type_k|output buffer/.test(message)) logs.push(message.trim()); },
});
const t0 = performance.now();
const model = await llama.loadModel({ modelPath: o.file, gpuLayers: 0 });
// One cell more than T: a sequence that fills its context exactly gets node-llama-cpp's context
// shift before its last token (the first tokens dropped), which left the last position's logits
// 0.9 off PyTorch's at T = 1024 while every other position agreed to 1e-3.
const context = await model.createContext({ contextSize: o.tokens + 1, batchSize: o.tokens, sequences: 1, threads: o.threads });
const loadS = (performance.now() - t0) / 1000;
const sequence = context.getSequence();
const ids = Array.from({ length: o.tokens }, (_, t) => (t * 7919) % o.vocab);

const times = [], totals = [];
let top1 = null, lastLogp16 = null;
for (let r = 0; r < o.warmup + o.repeat; r++) {
  await sequence.clearHistory();
  const check = r === 0;
  const input = ids.map((id, t) => [id, { generateNext: { token: true, probabilities: check && t === o.tokens - 1 } }]);
  let first = null;
  const start = performance.now();
  const out = await sequence.controlledEvaluate(input, { onTokenResult: () => { first ??= performance.now(); } });
  const end = performance.now();
  if (check) {
    top1 = out.map((x) => x?.next?.token ?? null);
    const probs = out[o.tokens - 1].next.probabilities;
    lastLogp16 = Array.from({ length: 16 }, (_, i) => Math.log(probs.get(i)));
  }
  process.stderr.write(`llama.cpp forward ${r < o.warmup ? "warm-up" : "run"} ${((first - start) / 1000).toFixed(3)} s (with sampling ${((end - start) / 1000).toFixed(3)} s)\n`);
  if (r >= o.warmup) {
    times.push((first - start) / 1000);
    totals.push((end - start) / 1000);
  }
}
const sorted = [...times].sort((a, b) => a - b);
console.log(JSON.stringify({
  forward_s_min: sorted[0], forward_s_median: sorted[Math.floor(sorted.length / 2)], forward_s_all: times,
  total_s_all: totals, load_s: loadS, tokens: o.tokens, threads: context.currentThreads ?? o.threads,
  batch_size: context.batchSize, context_size: context.contextSize, flash_attention: context.flashAttention,
  all_positions: true, top1_ids: top1, last_logp16: lastLogp16,
  build: llama.buildType, gpu: llama.gpu, system_info: llama.systemInfo, logs: logs.slice(0, 40),
}));
await context.dispose();
await model.dispose();
