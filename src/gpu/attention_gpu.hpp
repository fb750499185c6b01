#pragma once
// The attention step on the GPU with compute shaders: projections, RoPE, FlashAttention-style
// tiled attention with online softmax (split over keys), the weights for display and export,
// and the output projection. Needs a current OpenGL 4.3 context; create() says why when it
// cannot run, and the caller falls back to the CPU.
#include <algorithm>
#include <initializer_list>
#include <map>
#include <memory>
#include <vector>

#include "core/attention/attention.hpp"
#include "gpu/gl.hpp"

namespace poslab::gpu {

// What paint_heatmap() draws: one head's weights or scores, coloured like the plot module does.
struct HeatmapPaint {
  int head = 0;
  bool scores = false;           // false: weights
  std::uint64_t run = 0;         // GpuThread: the run the buffers must hold (0: any)
  float vmin = 0.0f, vmax = 1.0f;
  int texels_per_cell = 1;
  std::vector<float> lut;        // 256 RGBA colours, 0 to 1
  float mask_light[4] = {0, 0, 0, 1};
  float mask_dark[4] = {0, 0, 0, 1};
};

// Paints a head of the last run into a texture: GpuBackend itself, or GpuThread for it.
class HeatmapPainter {
 public:
  virtual ~HeatmapPainter() = default;
  // RGBA8, rows·f × cols·f texels, top row first, straight from the GPU's buffers: the heatmap on
  // screen needs no round trip through the CPU.
  virtual Result<GLuint> paint_heatmap(const HeatmapPaint& paint) = 0;
};

class GpuBackend final : public AttentionBackend, public HeatmapPainter {
 public:
  static Result<std::unique_ptr<GpuBackend>> create();
  std::string name() const override { return "GPU (" + renderer_ + ")"; }
  Result<AttentionOutput> run(const AttentionProblem& problem) override;
  // A real model's layer: q, k and v already projected and rotated (see AttentionBackend).
  Result<AttentionOutput> attend(const AttentionInput& input, bool with_weights) override;
  std::optional<double> last_device_ms() const override { return last_gpu_ms_; }

  // Heads up to this width take the tiled FlashAttention kernel; wider ones a three-pass path.
  static constexpr int kFlashMaxHeadDim = 128;
  // Keys one workgroup walks at most for a head width: an invocation loops about 33·d_h times
  // per 16-key tile, and must stay under llvmpipe's 65,535 iterations; more keys are split and
  // the splits merged (flash_combine.comp).
  static int keys_per_split(int head_dim) { return 16 * std::max(1, 60000 / (34 * head_dim + 64)); }
  // The register kernel (flash_attention_regs.comp) loops about 5·d_h/4 + 1 times per four keys
  // when its inner loops are not unrolled.
  static int register_keys_per_split(int head_dim) { return 4 * std::max(1, 60000 / (5 * (head_dim / 4) + 1)); }
  // Head widths the register kernel takes: multiples of 4 up to kFlashMaxHeadDim.
  static bool register_kernel_fits(int head_dim) { return head_dim % 4 == 0 && head_dim <= kFlashMaxHeadDim; }
  // Benchmarks compare the kernels: false makes the shared-memory kernel run where it would not.
  void use_register_kernel(bool on) { register_kernel_ = on; }

  Result<GLuint> paint_heatmap(const HeatmapPaint& paint) override;

  // Attention alone on projected inputs with the tiled kernel, for benchmarks: the context, the
  // GPU time of the kernels by timer query, and the wall time from dispatch to glFinish (uploads
  // not included). llvmpipe's timer queries do not see compute work, so there the wall time is
  // the measure. Heads up to kFlashMaxHeadDim wide.
  struct Timed {
    Matrix context;
    double gpu_ms = 0.0;
    double wall_ms = 0.0;
  };
  Result<Timed> attend_only(const AttentionInput& input);

 private:
  GpuBackend() = default;
  void set_shape(int queries, int keys, int width, int heads, bool causal, bool has_bias);
  // The start of a run: its shape, masks and bias uploaded, room for the context and (with
  // `squares`) for one head's T_q × T_k scores and weights; an error when they cannot fit.
  Status begin(int queries, int keys, int width, int heads, bool causal, const std::vector<std::uint8_t>& key_valid,
               const Matrix& relative_bias, bool shaw, bool squares);
  void upload_masks(const std::vector<std::uint8_t>& key_valid, const Matrix& relative_bias);
  void project(const AttentionProblem& p);
  void apply_rope(Buffer& x, int rows, const Buffer& positions, const AttentionProblem& p);
  void use_with(const ComputeProgram& program, std::initializer_list<const Buffer*> buffers) const;
  Status attend_flash();
  Status attend_flash_with(const ComputeProgram& kernel, int split_keys);
  void scores_for_head(int head, bool normalize);
  void attend_three_pass(int head);
  // Scores and weights of every head into `out` when `keep` (and, without the flash kernel,
  // each head's context).
  void head_weights(AttentionOutput& out, double& gpu_ms, bool keep);
  void matmul(const Buffer& a, const Buffer& b, Buffer& c, int M, int N, int K);

  // The register kernel compiled for each head width in use.
  Result<const ComputeProgram*> register_kernel(int head_dim);
  std::map<int, ComputeProgram> register_kernels_;
  bool register_kernel_ = true;
  ComputeProgram matmul_shader_, rope_shader_, flash_shader_, combine_shader_, scores_shader_, softmax_shader_,
      context_shader_, colors_shader_;
  Buffer xq_, xkv_, wq_, wk_, wv_, wo_, q_, k_, v_, valid_, bias_, thetas_, qpos_, kpos_;
  Buffer partial_o_, partial_ml_, stats_, s_, a_, context_, output_, lut_;
  Texture2D heatmap_;
  GlHandle<QueryDeleter> timer_;
  std::string renderer_;
  std::size_t max_block_bytes_ = 0;
  double last_gpu_ms_ = 0.0;

  // The shape of the last run, which paint_heatmap() reads.
  int Tq_ = 0, Tk_ = 0, d_ = 0, heads_ = 0, head_dim_ = 0, splits_ = 1;
  bool causal_ = false, has_bias_ = false, flash_ = false, valid_run_ = false;
};

}  // namespace poslab::gpu
