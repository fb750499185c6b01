#include "core/dog.hpp"

namespace poslab {

Result<std::vector<DogCase>> dog_cases(const ModelSettings& settings, const EmbeddingTable& table) {
  struct Spec {
    const char* name;
    EncodingKind encoding;
    bool causal;
  };
  const Spec specs[] = {{"no positions, no mask", EncodingKind::None, false},
                        {"no positions, causal mask", EncodingKind::None, true},
                        {"sinusoidal, no mask", EncodingKind::Sinusoidal, false},
                        {"RoPE, no mask", EncodingKind::Rope, false}};
  std::vector<DogCase> cases;
  CpuBackend cpu;
  for (const Spec& spec : specs) {
    ModelSettings s = settings;
    s.encoding = spec.encoding;
    s.causal = spec.causal;
    s.bias = BiasKind::None;  // the seed's demo has no bias
    s.cross_sentence.clear();
    auto r = run_pipeline(s, table, cpu, false);
    if (!r) return Error{r.error()};
    const auto pair = first_repeated_token(r->tokens);
    if (!pair) return Error{"the sentence repeats no word: the dog demo needs one (\"The dog chased another dog\")"};
    DogCase c{spec.name, spec.encoding, spec.causal, compare_outputs(r->attention.output, pair->first, pair->second),
              Matrix(2, r->attention.output.cols())};
    c.outputs.row(0) = r->attention.output.row(pair->first);
    c.outputs.row(1) = r->attention.output.row(pair->second);
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace poslab
