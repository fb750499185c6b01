// `poslab export VIEW --animate PARAM …` as a user runs it (headless, EGL): every frame is the
// still `poslab export VIEW --PARAM v_k --png` writes, the MP4 decodes back through libavcodec to
// those stills, and a failed export leaves nothing behind.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>
#include <thread>
#include <chrono>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

#include "plot/render.hpp"
#include "core/options.hpp"
#include "gpu/headless.hpp"
#include "gui/panels/animation_panel.hpp"
#include "core/tour/tour.hpp"
#include "plot/draw.hpp"
#include "poslab_process.hpp"
#include "temp_folder.hpp"

using namespace poslab;
namespace fs = std::filesystem;

namespace {

using test_support::RunResult;
using test_support::TempFolder;

RunResult run(const std::string& args) { return test_support::run_poslab(args); }


std::string read_file(const fs::path& p) { return test_support::read_whole_file(p); }

plot::RgbaImage read_png(const fs::path& p) { return test_support::read_png_file(p); }

// Frame k's value, computed here from the formula, spelled so that it reads back exactly.
std::string frame_value(double a, double b, int n, int k, bool integer) {
  const double v = a + k * (b - a) / (n - 1);
  char buf[64];
  if (integer)
    std::snprintf(buf, sizeof buf, "%lld", std::llround(v));
  else
    std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// The stills of a sweep, through plain `poslab export VIEW --PARAM v --png`.
std::vector<plot::RgbaImage> stills(const std::string& view, const std::string& options, const std::string& param,
                                    double a, double b, int n, bool integer, const fs::path& dir) {
  std::vector<plot::RgbaImage> images;
  for (int k = 0; k < n; ++k) {
    const fs::path png = dir / ("still-" + std::to_string(k) + ".png");
    const RunResult r = run("export " + view + " " + options + " --" + param + " " + frame_value(a, b, n, k, integer) +
                            " --png " + png.string());
    EXPECT_EQ(r.exit_code, 0) << r.output;
    images.push_back(read_png(png));
  }
  return images;
}

// Every file in `dir`, hidden ones included.
std::set<std::string> files_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::recursive_directory_iterator(dir)) names.insert(fs::relative(e.path(), dir).string());
  return names;
}

struct DecodedVideo {
  std::string codec, pix_fmt;
  int width = 0, height = 0;
  double duration = 0.0;  // seconds
  std::vector<plot::RgbaImage> frames;
  std::vector<std::array<std::vector<std::uint8_t>, 3>> yuv;  // yuv420p frames: Y, U, V planes, packed
};

// The Y, U and V planes of a yuv420p picture, packed row after row.
std::array<std::vector<std::uint8_t>, 3> planes_of(const std::uint8_t* const data[], const int linesize[], int width,
                                                   int height) {
  std::array<std::vector<std::uint8_t>, 3> planes;
  for (int p = 0; p < 3; ++p) {
    const int w = p == 0 ? width : (width + 1) / 2, h = p == 0 ? height : (height + 1) / 2;
    for (int y = 0; y < h; ++y)
      planes[static_cast<std::size_t>(p)].insert(planes[static_cast<std::size_t>(p)].end(),
                                                 data[p] + static_cast<std::ptrdiff_t>(y) * linesize[p],
                                                 data[p] + static_cast<std::ptrdiff_t>(y) * linesize[p] + w);
  }
  return planes;
}

// Decodes every frame of a video file back to RGBA with libavformat, libavcodec and libswscale.
DecodedVideo decode(const fs::path& path) {
  DecodedVideo out;
  AVFormatContext* format = nullptr;
  if (avformat_open_input(&format, path.c_str(), nullptr, nullptr) < 0) {
    ADD_FAILURE() << "cannot open " << path;
    return out;
  }
  avformat_find_stream_info(format, nullptr);
  const int index = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
  EXPECT_GE(index, 0);
  if (index < 0) {
    avformat_close_input(&format);
    return out;
  }
  AVStream* stream = format->streams[index];
  const AVCodec* codec = avcodec_find_decoder(stream->codecpar->codec_id);
  AVCodecContext* ctx = avcodec_alloc_context3(codec);
  avcodec_parameters_to_context(ctx, stream->codecpar);
  EXPECT_EQ(avcodec_open2(ctx, codec, nullptr), 0);
  out.codec = codec->name;
  out.width = ctx->width;
  out.height = ctx->height;
  const char* pf = av_get_pix_fmt_name(ctx->pix_fmt);
  out.pix_fmt = pf ? pf : "";
  if (stream->duration > 0)
    out.duration = static_cast<double>(stream->duration) * av_q2d(stream->time_base);
  else if (format->duration > 0)
    out.duration = static_cast<double>(format->duration) / AV_TIME_BASE;
  AVPacket* packet = av_packet_alloc();
  AVFrame* frame = av_frame_alloc();
  auto receive = [&] {
    while (avcodec_receive_frame(ctx, frame) == 0) {
      plot::RgbaImage img;
      img.width = frame->width;
      img.height = frame->height;
      std::string buffer(static_cast<std::size_t>(img.width) * img.height * 4 + 4096,
                         '\0');  // swscale may write a little past
      SwsContext* sws =
          sws_getContext(frame->width, frame->height, static_cast<AVPixelFormat>(frame->format), frame->width,
                         frame->height, AV_PIX_FMT_RGBA, SWS_BICUBIC | SWS_ACCURATE_RND, nullptr, nullptr, nullptr);
      if (frame->colorspace == AVCOL_SPC_BT709) {
        const int* coefficients = sws_getCoefficients(SWS_CS_ITU709);
        sws_setColorspaceDetails(sws, coefficients, frame->color_range == AVCOL_RANGE_JPEG, coefficients, 1, 0, 1 << 16,
                                 1 << 16);
      }
      std::uint8_t* dst[1] = {reinterpret_cast<std::uint8_t*>(buffer.data())};
      const int stride[1] = {img.width * 4};
      sws_scale(sws, frame->data, frame->linesize, 0, frame->height, dst, stride);
      sws_freeContext(sws);
      buffer.resize(static_cast<std::size_t>(img.width) * img.height * 4);
      img.rgba = std::move(buffer);
      out.frames.push_back(std::move(img));
      if (frame->format == AV_PIX_FMT_YUV420P)
        out.yuv.push_back(planes_of(frame->data, frame->linesize, frame->width, frame->height));
    }
  };
  while (av_read_frame(format, packet) == 0) {
    if (packet->stream_index == index) {
      avcodec_send_packet(ctx, packet);
      receive();
    }
    av_packet_unref(packet);
  }
  avcodec_send_packet(ctx, nullptr);
  receive();
  av_frame_free(&frame);
  av_packet_free(&packet);
  avcodec_free_context(&ctx);
  avformat_close_input(&format);
  return out;
}

// PSNR in dB of `decoded` (the video's frame, which may be larger) against `still` placed at
// (x, y) on it, over the still's pixels and the R, G and B channels.
double psnr(const plot::RgbaImage& still, const plot::RgbaImage& decoded, int x0 = 0, int y0 = 0) {
  double sum = 0.0;
  std::size_t n = 0;
  for (int y = 0; y < still.height; ++y)
    for (int x = 0; x < still.width; ++x)
      for (int c = 0; c < 3; ++c) {
        const auto a = static_cast<unsigned char>(still.rgba[(static_cast<std::size_t>(y) * still.width + x) * 4 + c]);
        const auto b = static_cast<unsigned char>(
            decoded.rgba[(static_cast<std::size_t>(y + y0) * decoded.width + x + x0) * 4 + c]);
        sum += (a - b) * (a - b);
        ++n;
      }
  const double mse = sum / static_cast<double>(n);
  return mse == 0.0 ? 100.0 : 10.0 * std::log10(255.0 * 255.0 / mse);
}

// PSNR as FFmpeg's psnr filter reports it for yuv420p: the still converted to yuv420p (BT.709,
// limited range, as the stream is tagged), the mean squared error over all samples of the three
// planes together.
double psnr_yuv420(const plot::RgbaImage& still, const std::array<std::vector<std::uint8_t>, 3>& decoded) {
  std::array<std::vector<std::uint8_t>, 3> ref;
  std::uint8_t* dst[4] = {};
  int linesize[4] = {};
  std::vector<std::uint8_t> buffer(static_cast<std::size_t>(still.width) * still.height * 2 + 4096);
  linesize[0] = still.width;
  linesize[1] = linesize[2] = (still.width + 1) / 2;
  dst[0] = buffer.data();
  dst[1] = dst[0] + static_cast<std::size_t>(still.width) * still.height;
  dst[2] = dst[1] + static_cast<std::size_t>(linesize[1]) * ((still.height + 1) / 2);
  SwsContext* sws = sws_getContext(still.width, still.height, AV_PIX_FMT_RGBA, still.width, still.height,
                                   AV_PIX_FMT_YUV420P, SWS_BICUBIC | SWS_ACCURATE_RND, nullptr, nullptr, nullptr);
  const int* coefficients = sws_getCoefficients(SWS_CS_ITU709);
  sws_setColorspaceDetails(sws, coefficients, 1, coefficients, 0, 0, 1 << 16, 1 << 16);
  const std::uint8_t* src[1] = {reinterpret_cast<const std::uint8_t*>(still.rgba.data())};
  const int src_stride[1] = {still.width * 4};
  sws_scale(sws, src, src_stride, 0, still.height, dst, linesize);
  sws_freeContext(sws);
  ref = planes_of(dst, linesize, still.width, still.height);
  double sum = 0.0;
  std::size_t n = 0;
  for (std::size_t p = 0; p < 3; ++p) {
    EXPECT_EQ(ref[p].size(), decoded[p].size());
    for (std::size_t i = 0; i < std::min(ref[p].size(), decoded[p].size()); ++i) {
      const double e = static_cast<double>(ref[p][i]) - decoded[p][i];
      sum += e * e;
      ++n;
    }
  }
  const double mse = sum / static_cast<double>(n);
  return mse == 0.0 ? 100.0 : 10.0 * std::log10(255.0 * 255.0 / mse);
}

}  // namespace

TEST(AnimateCli, FramesDirIsTheStillsPixelForPixel) {
  const TempFolder dir("animate-frames");
  // A whole-number option whose frame values need rounding: 0, 5/3, 10/3, 5 → 0, 2, 3, 5.
  const RunResult r = run("export shift --backend cpu --animate shift-k --from 0 --to 5 --frames 4 --frames-dir " +
                          (dir / "out").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("4 frames of shift-k from 0 to 5"), std::string::npos) << r.output;
  EXPECT_EQ(files_in(dir / "out"),
            (std::set<std::string>{"frame-0000.png", "frame-0001.png", "frame-0002.png", "frame-0003.png"}));
  const auto expected = stills("shift", "--backend cpu", "shift-k", 0, 5, 4, true, dir);
  for (int k = 0; k < 4; ++k) {
    const plot::RgbaImage frame = read_png(dir / "out" / ("frame-000" + std::to_string(k) + ".png"));
    ASSERT_GT(frame.width, 0);
    EXPECT_EQ(frame.width, expected[static_cast<std::size_t>(k)].width);
    EXPECT_EQ(frame.height, expected[static_cast<std::size_t>(k)].height);
    EXPECT_TRUE(frame.rgba == expected[static_cast<std::size_t>(k)].rgba) << "frame " << k << " differs from its still";
  }
  // The frames move: consecutive ones differ.
  EXPECT_NE(expected[0].rgba, expected[1].rgba);
  EXPECT_NE(expected[2].rgba, expected[3].rgba);
}

TEST(AnimateCli, FramesDirOfARealOptionAtScale2IsTheStills) {
  const TempFolder dir("animate-frames-real");
  const std::string options = "--rope-scaling linear --scale 2";
  const RunResult r = run("export frequencies " + options +
                          " --animate factor --from 1 --to 4.5 --frames 3 --frames-dir " + (dir / "out").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto expected = stills("frequencies", options, "factor", 1, 4.5, 3, false, dir);
  for (int k = 0; k < 3; ++k) {
    const plot::RgbaImage frame = read_png(dir / "out" / ("frame-000" + std::to_string(k) + ".png"));
    EXPECT_TRUE(frame.rgba == expected[static_cast<std::size_t>(k)].rgba) << "frame " << k;
  }
  EXPECT_NE(expected[0].rgba, expected[2].rgba);
}

TEST(AnimateCli, LayersOfAModelFolderAreItsStills) {
  // A tiny Llama folder written by tests/reference/make_model_reference.py: its own forward pass.
  const std::string model = std::string(POSLAB_MODEL_REFERENCE) + "/llama";
  const TempFolder dir("animate-layers");
  const RunResult r = run("export attention --model " + model +
                          " --backend cpu --animate layer --from 0 --to 1 --frames 2 "
                          "--frames-dir " +
                          (dir / "out").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto expected = stills("attention", "--model " + model + " --backend cpu", "layer", 0, 1, 2, true, dir);
  for (int k = 0; k < 2; ++k)
    EXPECT_TRUE(read_png(dir / "out" / ("frame-000" + std::to_string(k) + ".png")).rgba ==
                expected[static_cast<std::size_t>(k)].rgba)
        << "layer " << k;
  EXPECT_NE(expected[0].rgba, expected[1].rgba);
}

TEST(AnimateGuiExport, AModelFoldersFramesComeFromAThreadAndAreTheStills) {
  // The GUI's Export animation… on a model folder's view: the forward passes run on the export's
  // figure thread while the window pumps; the frames are the command line's, pixel for pixel.
  const std::string model = std::string(POSLAB_MODEL_REFERENCE) + "/llama";
  const TempFolder dir("animate-gui-model");
  const RunResult r = run("export attention --model " + model +
                          " --backend cpu --animate layer --from 0 --to 1 --frames 2 --frames-dir " + (dir / "cli").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;

  // The glyphs every poslab command bakes (run_command_line), so the fonts are the CLI's.
  plot::add_figure_glyphs(tour_japanese_text());
  auto context = gpu::HeadlessContext::create();
  ASSERT_TRUE(context) << context.error();
  State state;
  ASSERT_TRUE(find_state_option("--model")->apply(state, model));
  ASSERT_TRUE(find_state_option("--backend")->apply(state, "cpu"));
  state.view.layer = 0;
  auto checkpoint = Checkpoint::open(model);
  ASSERT_TRUE(checkpoint) << checkpoint.error();
  auto sweep = make_sweep("layer", 0, 1, 2);
  ASSERT_TRUE(sweep) << sweep.error();
  auto sink = plot::open_frame_sink(plot::AnimationFormat::FramesDir, dir / "gui", 24.0, 2);
  ASSERT_TRUE(sink) << sink.error();
  AnimationSource source;
  source.view = ViewId::Attention;
  source.model = *checkpoint;
  AnimationExport exporter(source, std::make_unique<Workspace>(), state, *sweep, 1.0f, std::move(*sink));
  int pumps = 0;
  for (; !exporter.done() && pumps < 60000; ++pumps) {
    exporter.pump();  // as the window does once a frame; it never waits for a forward pass
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(exporter.done());
  EXPECT_EQ(exporter.error(), "");
  for (int k = 0; k < 2; ++k) {
    const std::string name = "frame-000" + std::to_string(k) + ".png";
    EXPECT_TRUE(read_png(dir / "gui" / name).rgba == read_png(dir / "cli" / name).rgba) << name;
  }
}

TEST(AnimateCli, Mp4DecodesToTheStills) {
  const TempFolder dir("animate-mp4");
  const fs::path mp4 = dir / "k.mp4";
  const int n = 6;
  // The shift view's width changes with k (1113 to 1117 pixels): odd widths, padded to even.
  const RunResult r =
      run("export shift --backend cpu --animate shift-k --from 0 --to 5 --frames 6 --fps 12 --mp4 " + mp4.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(files_in(dir), (std::set<std::string>{"k.mp4"}));  // no temporary file left
  const DecodedVideo video = decode(mp4);
  EXPECT_EQ(video.codec, "h264");
  EXPECT_EQ(video.pix_fmt, "yuv420p");
  EXPECT_EQ(video.width % 2, 0);
  EXPECT_EQ(video.height % 2, 0);
  ASSERT_EQ(static_cast<int>(video.frames.size()), n);
  EXPECT_NEAR(video.duration, n / 12.0, 0.5 / 12.0);
  const auto expected = stills("shift", "--backend cpu", "shift-k", 0, 5, n, true, dir);
  // The frames share the largest still's size, rounded up to even sides.
  int widest = 0, tallest = 0;
  for (const auto& still : expected) {
    widest = std::max(widest, still.width);
    tallest = std::max(tallest, still.height);
  }
  EXPECT_EQ(video.width, widest + widest % 2);
  EXPECT_EQ(video.height, tallest + tallest % 2);
  for (int k = 0; k < n; ++k) {
    const auto& still = expected[static_cast<std::size_t>(k)];
    const double db = psnr(still, video.frames[static_cast<std::size_t>(k)]);
    std::printf("frame %d: PSNR %.1f dB in RGB\n", k, db);
    EXPECT_GE(db, 35.0) << "frame " << k;
    // And each frame is its own still, not its neighbour's.
    if (k > 0) {
      EXPECT_GT(db, psnr(expected[static_cast<std::size_t>(k - 1)], video.frames[static_cast<std::size_t>(k)]));
    }
  }
}

// The patterns heatmap changes colour every 3 pixels, finer than yuv420p's chroma (half the
// resolution each way) can follow: in RGB it is ~28 dB however well it is encoded. What the
// encoder adds is measured as FFmpeg's psnr filter measures it, against the stills in yuv420p.
TEST(AnimateCli, Mp4OfThePatternsViewMatchesTheStillsInYuv420) {
  const TempFolder dir("animate-mp4-patterns");
  const fs::path mp4 = dir / "base.mp4";
  const int n = 5;
  const RunResult r =
      run("export patterns --backend cpu --encoding sinusoidal --animate base --from 100 --to 10000 "
          "--frames 5 --fps 10 --mp4 " +
          mp4.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const DecodedVideo video = decode(mp4);
  ASSERT_EQ(static_cast<int>(video.yuv.size()), n);
  EXPECT_NEAR(video.duration, 0.5, 0.05);
  const auto expected = stills("patterns", "--backend cpu --encoding sinusoidal", "base", 100, 10000, n, false, dir);
  for (int k = 0; k < n; ++k) {
    const auto& still = expected[static_cast<std::size_t>(k)];
    ASSERT_EQ(video.width, still.width);  // 940 × 576: even already
    ASSERT_EQ(video.height, still.height);
    const double yuv = psnr_yuv420(still, video.yuv[static_cast<std::size_t>(k)]);
    const double rgb = psnr(still, video.frames[static_cast<std::size_t>(k)]);
    std::printf("frame %d: PSNR %.1f dB in yuv420p, %.1f dB in RGB\n", k, yuv, rgb);
    EXPECT_GE(yuv, 35.0) << "frame " << k;
    EXPECT_GE(rgb, 25.0) << "frame " << k;
  }
  EXPECT_NE(expected[0].rgba, expected[n - 1].rgba);
}

TEST(AnimateCli, Mp4SizePutsTheFiguresInTheMiddleOfTheFrame) {
  const TempFolder dir("animate-size");
  const fs::path mp4 = dir / "720p.mp4";
  const RunResult r =
      run("export shift --backend cpu --animate shift-k --from 1 --to 3 --frames 3 --fps 3 --size 1280x720 --mp4 " +
          mp4.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const DecodedVideo video = decode(mp4);
  EXPECT_EQ(video.width, 1280);
  EXPECT_EQ(video.height, 720);
  ASSERT_EQ(video.frames.size(), 3u);
  EXPECT_NEAR(video.duration, 1.0, 1.0 / 6.0);
  const auto expected = stills("shift", "--backend cpu", "shift-k", 1, 3, 3, true, dir);
  // Every frame's top-left corner where the first figure's is, centred.
  const int x = (1280 - expected[0].width) / 2, y = (720 - expected[0].height) / 2;
  for (int k = 0; k < 3; ++k) {
    const auto& still = expected[static_cast<std::size_t>(k)];
    EXPECT_GE(psnr(still, video.frames[static_cast<std::size_t>(k)], x, y), 35.0) << "frame " << k;
  }
  EXPECT_LT(psnr(expected[0], video.frames[0], 0, 0), 20.0);  // not at the top left
  // A frame smaller than the figures is refused, and nothing is written.
  const RunResult small = run("export shift --animate shift-k --from 1 --to 3 --frames 3 --size 320x200 --mp4 " +
                              (dir / "small.mp4").string());
  EXPECT_EQ(small.exit_code, 1) << small.output;
  EXPECT_NE(small.output.find("larger than --size 320x200"), std::string::npos) << small.output;
  EXPECT_FALSE(fs::exists(dir / "small.mp4"));
}

TEST(AnimateCli, GifHasOneFramePerValueAndItsColours) {
  const TempFolder dir("animate-gif");
  const fs::path gif = dir / "positions.gif";
  const int n = 5;
  const RunResult r =
      run("export trajectory --backend cpu --encoding binary --animate positions --from 2 --to 64 --frames 5 "
          "--fps 10 --gif " +
          gif.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(files_in(dir), (std::set<std::string>{"positions.gif"}));
  EXPECT_EQ(read_file(gif).substr(0, 6), "GIF89a");
  const DecodedVideo video = decode(gif);
  EXPECT_EQ(video.codec, "gif");
  ASSERT_EQ(static_cast<int>(video.frames.size()), n);
  const auto expected = stills("trajectory", "--backend cpu --encoding binary", "positions", 2, 64, n, true, dir);
  // The frames differ by a few pixels in width (tick labels): the GIF holds the largest.
  int widest = 0, tallest = 0;
  for (const auto& still : expected) {
    widest = std::max(widest, still.width);
    tallest = std::max(tallest, still.height);
  }
  EXPECT_EQ(video.width, widest);
  EXPECT_EQ(video.height, tallest);
  for (int k = 0; k < n; ++k) {
    // 256 colours for the whole animation: close to every still.
    EXPECT_GE(psnr(expected[static_cast<std::size_t>(k)], video.frames[static_cast<std::size_t>(k)]), 30.0)
        << "frame " << k;
  }
}

TEST(AnimateCli, BadInputsAreUsageErrorsAndWriteNothing) {
  const TempFolder dir("animate-bad");
  const std::string mp4 = (dir / "x.mp4").string();
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"export patterns --animate bogus --from 0 --to 1 --frames 3 --mp4 " + mp4, "unknown option \"bogus\""},
      {"export patterns --animate encoding --from 0 --to 1 --frames 3 --mp4 " + mp4, "not a number"},
      {"export patterns --animate base --from 100 --to 200 --frames 1 --mp4 " + mp4, "--frames must be between 2"},
      {"export patterns --animate base --to 200 --frames 3 --mp4 " + mp4, "needs --from A and --to B"},
      {"export patterns --animate base --from 100 --to 200 --mp4 " + mp4, "needs --frames N"},
      {"export patterns --animate base --from 100 --to 200 --frames 3", "nothing to write"},
      {"export patterns --animate base --from 100 --to 200 --frames 3 --mp4 " + mp4 + " --gif " + mp4 + ".gif",
       "only one of"},
      {"export patterns --animate base --from 100 --to 200 --frames 3 --png " + mp4 + ".png",
       "cannot be combined with --animate"},
      {"export patterns --animate base --from 100 --to 200 --frames 3 --wobble 2 --mp4 " + mp4,
       "unknown option \"--wobble\""},
      {"export patterns --animate base --from abc --to 200 --frames 3 --mp4 " + mp4, "expects a number"},
      {"export trajectory --animate positions --from 0 --to 10 --frames 3 --mp4 " + mp4, "frame 0 (positions = 0)"},
      {"export nowhere --animate base --from 1 --to 2 --frames 3 --mp4 " + mp4, "unknown view"},
      {"export patterns --animate base --from 100 --to 200 --frames 3 --fps 0 --mp4 " + mp4, "--fps must be between"},
  };
  for (const Case& c : cases) {
    const RunResult r = run(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_TRUE(files_in(dir).empty()) << c.args;
  }
}

TEST(AnimateCli, AFailureHalfwayLeavesNoFile) {
  const TempFolder dir("animate-halfway");
  // Heads 1 and 2 divide the width 100, 3 does not: frames 0 and 1 draw, frame 2 fails. (A head
  // past the last one is refused before any frame, with exit code 2: app_hostile_test.cpp.)
  // Without --size a video measures every figure first and fails before the file is begun; with
  // it, and into a folder, after two frames were written.
  for (const std::string& out :
       {"--mp4 " + (dir / "h.mp4").string(), "--size 1600x1200 --mp4 " + (dir / "h.mp4").string(),
        "--gif " + (dir / "h.gif").string(), "--frames-dir " + (dir / "frames").string()}) {
    const RunResult r = run("export attention --backend cpu --animate heads --from 1 --to 8 --frames 8 " + out);
    EXPECT_EQ(r.exit_code, 1) << out << "\n" << r.output;
    EXPECT_NE(r.output.find("frame 2 (heads = 3)"), std::string::npos) << r.output;
    EXPECT_TRUE(files_in(dir).empty()) << out;
  }
  // A folder that does not exist is a runtime error, and creates nothing.
  const RunResult r =
      run("export patterns --animate base --from 100 --to 200 --frames 2 --mp4 " + (dir / "no" / "x.mp4").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(files_in(dir).empty());
}
