// BLIS for bench/gemm_choice.cpp, in a file of its own: blis.h declares the whole CBLAS interface
// itself, which clashes with OpenBLAS's cblas.h in the file that includes that one.
#include <blis.h>

#include <string>

// C (m × n) = A (m × k) · Bᵀ, B being n × k, all row-major and dense: BLIS takes the strides of
// each matrix, so Bᵀ is B read with BLIS_TRANSPOSE, and nothing is copied beforehand.
void blis_abt(int m, int n, int k, const float* A, const float* B, float* C) {
  float one = 1.0f, zero = 0.0f;
  bli_sgemm(BLIS_NO_TRANSPOSE, BLIS_TRANSPOSE, m, n, k, &one, const_cast<float*>(A), k, 1, const_cast<float*>(B), k, 1,
            &zero, C, n, 1);
}

// Its version, the kernels it chose for this CPU and how it runs in parallel: for the table's header.
std::string blis_about() {
  std::string about = std::string("BLIS ") + bli_info_get_version_str() + ", kernels for " +
                      bli_arch_string(bli_arch_query_id());
  about += bli_info_get_enable_openmp() ? ", OpenMP" : bli_info_get_enable_pthreads() ? ", pthreads" : ", one thread";
  about += " (" + std::to_string(bli_thread_get_num_threads()) + " threads asked)";
  return about;
}
