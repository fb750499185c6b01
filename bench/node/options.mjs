// The command line both timing scripts take: FILE, then --name value pairs for the options below
// (numbers); an unknown option or a missing FILE or --vocab is an error with the usage.
export function options(argv, usage) {
  const o = { tokens: 64, threads: 2, warmup: 1, repeat: 1, vocab: 0 };
  const file = argv[0];
  for (let k = 1; k + 1 < argv.length; k += 2) {
    const name = argv[k].replace(/^--/, "");
    if (!(name in o)) throw new Error(`unknown option ${argv[k]}`);
    o[name] = Number(argv[k + 1]);
  }
  if (!file || !o.vocab) throw new Error(`usage: ${usage}`);
  return { file, ...o };
}
