#include "plot/video.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <unordered_map>
#include <vector>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}

#include "base/atomic_stream.hpp"

namespace poslab::plot {

namespace fs = std::filesystem;

std::string frame_file_name(int k, int frames) {
  int digits = 4;
  for (int n = frames - 1; n >= 10000; n /= 10) ++digits;
  std::string number = std::to_string(k);
  if (static_cast<int>(number.size()) < digits) number.insert(0, static_cast<std::size_t>(digits) - number.size(), '0');
  return "frame-" + number + ".png";
}

RgbaImage place_on_canvas(const RgbaImage& image, int width, int height, int x, int y) {
  RgbaImage out;
  out.width = width;
  out.height = height;
  const char* background = image.rgba.data() + (static_cast<std::size_t>(image.width) * image.height - 1) * 4;
  out.rgba.resize(static_cast<std::size_t>(width) * height * 4);
  for (std::size_t i = 0; i < out.rgba.size(); i += 4) std::memcpy(out.rgba.data() + i, background, 4);
  // The part of the image that lands on the canvas: columns x0 … x1 − 1 and rows y0 … y1 − 1.
  const int x0 = std::max(0, -x), x1 = std::min(image.width, width - x);
  const int y0 = std::max(0, -y), y1 = std::min(image.height, height - y);
  for (int row = y0; row < y1 && x0 < x1; ++row)
    std::memcpy(out.rgba.data() + (static_cast<std::size_t>(row + y) * width + (x0 + x)) * 4,
                image.rgba.data() + (static_cast<std::size_t>(row) * image.width + x0) * 4,
                static_cast<std::size_t>(x1 - x0) * 4);
  return out;
}

namespace {

std::string av_error(int code) {
  char buf[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(code, buf, sizeof buf);
  return buf;
}

// A name beside `path` for writing before the rename: hidden, and unique to this process and call.
fs::path partial_name(const fs::path& path) {
  return path.parent_path() / ("." + path.filename().string() + ".partial-" + unique_temp_tag());
}

struct FormatContextDeleter {
  void operator()(AVFormatContext* c) const {
    if (c && c->pb) avio_closep(&c->pb);
    avformat_free_context(c);
  }
};
struct CodecContextDeleter {
  void operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
};
struct FrameDeleter {
  void operator()(AVFrame* f) const { av_frame_free(&f); }
};
struct PacketDeleter {
  void operator()(AVPacket* p) const { av_packet_free(&p); }
};
struct SwsDeleter {
  void operator()(SwsContext* s) const { sws_freeContext(s); }
};
using FormatContext = std::unique_ptr<AVFormatContext, FormatContextDeleter>;
using CodecContext = std::unique_ptr<AVCodecContext, CodecContextDeleter>;
using FramePtr = std::unique_ptr<AVFrame, FrameDeleter>;
using PacketPtr = std::unique_ptr<AVPacket, PacketDeleter>;
using SwsPtr = std::unique_ptr<SwsContext, SwsDeleter>;

// One encoder feeding one muxer, written to a temporary file that finish() renames into place.
class Muxed {
 public:
  ~Muxed() {
    if (!finished_ && !partial_.empty()) {
      format_.reset();  // closes the file before it is removed
      std::error_code ec;
      fs::remove(partial_, ec);
    }
  }

  // `muxer`: "mp4" or "gif". `setup` fills the codec context before it is opened.
  Status open(const fs::path& path, const char* muxer, const AVCodec* codec, AVRational time_base,
              AVDictionary** codec_options, AVDictionary** muxer_options, auto&& setup) {
    path_ = path;
    partial_ = partial_name(path);
    AVFormatContext* raw = nullptr;
    int e = avformat_alloc_output_context2(&raw, nullptr, muxer, partial_.c_str());
    if (e < 0 || !raw) return Error{"cannot create a " + std::string(muxer) + " file: " + av_error(e)};
    format_.reset(raw);
    codec_.reset(avcodec_alloc_context3(codec));
    if (!codec_) return Error{"out of memory for the encoder"};
    codec_->time_base = time_base;
    setup(*codec_);
    if (format_->oformat->flags & AVFMT_GLOBALHEADER) codec_->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if ((e = avcodec_open2(codec_.get(), codec, codec_options)) < 0)
      return Error{std::string("cannot open the ") + codec->name + " encoder: " + av_error(e)};
    stream_ = avformat_new_stream(format_.get(), nullptr);
    if (!stream_) return Error{"out of memory for the stream"};
    stream_->time_base = time_base;
    stream_->avg_frame_rate = codec_->framerate;
    if ((e = avcodec_parameters_from_context(stream_->codecpar, codec_.get())) < 0)
      return Error{"cannot set the stream's parameters: " + av_error(e)};
    if ((e = avio_open(&format_->pb, partial_.c_str(), AVIO_FLAG_WRITE)) < 0)
      return Error{path.string() + ": cannot write: " + av_error(e)};
    if ((e = avformat_write_header(format_.get(), muxer_options)) < 0)
      return Error{path.string() + ": cannot write the header: " + av_error(e)};
    packet_.reset(av_packet_alloc());
    if (!packet_) return Error{"out of memory for a packet"};
    return Ok{};
  }

  AVCodecContext& codec() { return *codec_; }

  // Encodes `frame` (null: drains the encoder) and writes every packet that comes out, each
  // lasting `duration` in the codec's time base (0: until the next packet).
  Status encode(const AVFrame* frame, std::int64_t duration) {
    int e = avcodec_send_frame(codec_.get(), frame);
    if (e < 0) return Error{"encoding failed: " + av_error(e)};
    for (;;) {
      e = avcodec_receive_packet(codec_.get(), packet_.get());
      if (e == AVERROR(EAGAIN) || e == AVERROR_EOF) return Ok{};
      if (e < 0) return Error{"encoding failed: " + av_error(e)};
      if (duration > 0) packet_->duration = duration;
      av_packet_rescale_ts(packet_.get(), codec_->time_base, stream_->time_base);
      packet_->stream_index = stream_->index;
      if ((e = av_interleaved_write_frame(format_.get(), packet_.get())) < 0)
        return Error{path_.string() + ": cannot write: " + av_error(e)};
    }
  }

  Status finish(std::int64_t duration) {
    if (auto s = encode(nullptr, duration); !s) return s;
    int e = av_write_trailer(format_.get());
    if (e < 0) return Error{path_.string() + ": cannot finish the file: " + av_error(e)};
    if ((e = avio_closep(&format_->pb)) < 0) return Error{path_.string() + ": cannot close: " + av_error(e)};
    std::error_code ec;
    fs::rename(partial_, path_, ec);
    if (ec) return Error{path_.string() + ": cannot move into place: " + ec.message()};
    finished_ = true;
    return Ok{};
  }

 private:
  fs::path path_, partial_;
  FormatContext format_;
  CodecContext codec_;
  AVStream* stream_ = nullptr;
  PacketPtr packet_;
  bool finished_ = false;
};

// ---- MP4: H.264 in yuv420p, BT.709 -------------------------------------------------------------
class Mp4Sink final : public FrameSink {
 public:
  Mp4Sink(fs::path path, double fps) : path_(std::move(path)), fps_(fps) {}

  Status add(const RgbaImage& frame) override {
    if (frame.width < 1 || frame.height < 1) return Error{"empty frame"};
    if (!opened_) {
      if (auto s =
              open(canvas_width_ > 0 ? canvas_width_ : frame.width, canvas_height_ > 0 ? canvas_height_ : frame.height);
          !s)
        return s;
      opened_ = true;
    }
    RgbaImage placed;
    if (frame.width != width_ || frame.height != height_ || canvas_x_ != 0 || canvas_y_ != 0)
      placed = place_on_canvas(frame, width_, height_, canvas_x_, canvas_y_);
    const RgbaImage& image = placed.width > 0 ? placed : frame;
    // Pad to even sides by repeating the last column and row (yuv420p halves both).
    const int w = muxed_.codec().width, h = muxed_.codec().height;
    for (int y = 0; y < h; ++y) {
      const char* src = image.rgba.data() + static_cast<std::size_t>(std::min(y, height_ - 1)) * width_ * 4;
      char* dst = rgba_.data() + static_cast<std::size_t>(y) * w * 4;
      std::memcpy(dst, src, static_cast<std::size_t>(width_) * 4);
      if (w > width_) std::memcpy(dst + static_cast<std::size_t>(width_) * 4, src + (width_ - 1) * 4, 4);
    }
    int e = av_frame_make_writable(frame_.get());
    if (e < 0) return Error{"out of memory for a frame: " + av_error(e)};
    const std::uint8_t* src_planes[1] = {reinterpret_cast<const std::uint8_t*>(rgba_.data())};
    const int src_stride[1] = {w * 4};
    sws_scale(sws_.get(), src_planes, src_stride, 0, h, frame_->data, frame_->linesize);
    frame_->pts = count_++;
    return muxed_.encode(frame_.get(), 1);
  }

  Status finish() override {
    if (!opened_) return Error{"an animation needs at least one frame"};
    return muxed_.finish(1);
  }

 private:
  Status open(int width, int height) {
    if (width < 1 || height < 1) return Error{"empty frame"};
    width_ = width;
    height_ = height;
    const int w = width + width % 2, h = height + height % 2;
    const AVCodec* codec = avcodec_find_encoder_by_name("libx264");
    if (!codec) codec = avcodec_find_encoder(AV_CODEC_ID_H264);
    if (!codec) return Error{"this FFmpeg has no H.264 encoder (Debian's libavcodec59 brings libx264)"};
    const AVRational rate = av_d2q(fps_, 100000);
    AVDictionary* codec_options = nullptr;
    av_dict_set(&codec_options, "preset", "fast", 0);
    av_dict_set(&codec_options, "crf", "18", 0);
    AVDictionary* muxer_options = nullptr;
    av_dict_set(&muxer_options, "movflags", "+faststart", 0);  // plays while it downloads
    auto setup = [&](AVCodecContext& c) {
      c.width = w;
      c.height = h;
      c.pix_fmt = AV_PIX_FMT_YUV420P;
      c.framerate = rate;
      c.gop_size = 60;
      c.color_range = AVCOL_RANGE_MPEG;
      c.colorspace = AVCOL_SPC_BT709;
      c.color_primaries = AVCOL_PRI_BT709;
      c.color_trc = AVCOL_TRC_IEC61966_2_1;  // the figures are sRGB
    };
    Status s = muxed_.open(path_, "mp4", codec, av_inv_q(rate), &codec_options, &muxer_options, setup);
    av_dict_free(&codec_options);
    av_dict_free(&muxer_options);
    if (!s) return s;
    frame_.reset(av_frame_alloc());
    if (!frame_) return Error{"out of memory for a frame"};
    frame_->format = AV_PIX_FMT_YUV420P;
    frame_->width = w;
    frame_->height = h;
    if (int e = av_frame_get_buffer(frame_.get(), 0); e < 0) return Error{"out of memory for a frame: " + av_error(e)};
    sws_.reset(sws_getContext(w, h, AV_PIX_FMT_RGBA, w, h, AV_PIX_FMT_YUV420P,
                              SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INP, nullptr, nullptr, nullptr));
    if (!sws_) return Error{"cannot convert RGBA to yuv420p"};
    // BT.709 coefficients, limited range, to match the stream's tags.
    const int* coefficients = sws_getCoefficients(SWS_CS_ITU709);
    sws_setColorspaceDetails(sws_.get(), coefficients, 1, coefficients, 0, 0, 1 << 16, 1 << 16);
    rgba_.assign(static_cast<std::size_t>(w) * h * 4, '\0');
    return Ok{};
  }

  fs::path path_;
  double fps_;
  bool opened_ = false;
  int width_ = 0, height_ = 0;
  std::int64_t count_ = 0;
  Muxed muxed_;
  FramePtr frame_;
  SwsPtr sws_;
  std::string rgba_;  // the padded frame
};

// ---- GIF: one palette for every frame ----------------------------------------------------------

// A colour box of the median cut: a range of `entries` (histogram bins) and its extent.
struct Bin {
  std::uint32_t key = 0;  // 6 bits per channel
  std::uint64_t count = 0;
  std::uint64_t sum[3] = {0, 0, 0};
  int channel(int c) const { return static_cast<int>((key >> (12 - 6 * c)) & 63u); }
};

std::uint32_t bin_key(const unsigned char* rgb) {
  return (static_cast<std::uint32_t>(rgb[0] >> 2) << 12) | (static_cast<std::uint32_t>(rgb[1] >> 2) << 6) |
         static_cast<std::uint32_t>(rgb[2] >> 2);
}
std::uint32_t pack(const unsigned char* rgb) {
  return (static_cast<std::uint32_t>(rgb[0]) << 16) | (static_cast<std::uint32_t>(rgb[1]) << 8) | rgb[2];
}

// Median cut over the histogram's bins: the box with the most pixels times extent is split at its
// weighted median along its longest side, until there are `colors` boxes; each box's colour is
// the mean of its pixels.
std::vector<std::uint32_t> median_cut(std::vector<Bin> bins, std::size_t colors) {
  struct Box {
    std::size_t begin, end;
    std::uint64_t count;
    int extent, channel;
  };
  auto measure = [&](std::size_t begin, std::size_t end) {
    Box box{begin, end, 0, 0, 0};
    int lo[3] = {63, 63, 63}, hi[3] = {0, 0, 0};
    for (std::size_t i = begin; i < end; ++i) {
      box.count += bins[i].count;
      for (int c = 0; c < 3; ++c) {
        lo[c] = std::min(lo[c], bins[i].channel(c));
        hi[c] = std::max(hi[c], bins[i].channel(c));
      }
    }
    for (int c = 0; c < 3; ++c)
      if (hi[c] - lo[c] > box.extent) {
        box.extent = hi[c] - lo[c];
        box.channel = c;
      }
    return box;
  };
  std::vector<Box> boxes{measure(0, bins.size())};
  while (boxes.size() < colors) {
    // Split the box that matters most; a box of one bin cannot split.
    std::size_t best = boxes.size();
    double best_score = 0.0;
    for (std::size_t b = 0; b < boxes.size(); ++b) {
      const double score = static_cast<double>(boxes[b].count) * boxes[b].extent;
      if (boxes[b].end - boxes[b].begin > 1 && boxes[b].extent > 0 && score > best_score) {
        best = b;
        best_score = score;
      }
    }
    if (best == boxes.size()) break;
    const Box box = boxes[best];
    const auto first = bins.begin() + static_cast<std::ptrdiff_t>(box.begin);
    const auto last = bins.begin() + static_cast<std::ptrdiff_t>(box.end);
    std::sort(first, last, [&](const Bin& a, const Bin& b) { return a.channel(box.channel) < b.channel(box.channel); });
    std::uint64_t seen = 0;
    std::size_t cut = box.begin;
    while (cut < box.end - 1 && seen + bins[cut].count <= box.count / 2) seen += bins[cut++].count;
    cut = std::clamp(cut, box.begin + 1, box.end - 1);
    boxes[best] = measure(box.begin, cut);
    boxes.push_back(measure(cut, box.end));
  }
  std::vector<std::uint32_t> palette;
  for (const Box& box : boxes) {
    std::uint64_t sum[3] = {0, 0, 0}, count = 0;
    for (std::size_t i = box.begin; i < box.end; ++i) {
      count += bins[i].count;
      for (int c = 0; c < 3; ++c) sum[c] += bins[i].sum[c];
    }
    std::uint32_t color = 0;
    for (int c = 0; c < 3; ++c)
      color = (color << 8) | static_cast<std::uint32_t>((sum[c] + count / 2) / std::max<std::uint64_t>(count, 1));
    palette.push_back(color);
  }
  return palette;
}

// A frame's RGB bytes deflated (zlib's fastest level: plots are long runs of one colour), and back.
Result<std::string> deflate_frame(const std::string& rgb) {
  uLongf size = compressBound(static_cast<uLong>(rgb.size()));
  std::string out(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(rgb.data()),
                static_cast<uLong>(rgb.size()), Z_BEST_SPEED) != Z_OK)
    return Error{"out of memory while keeping a GIF frame"};
  out.resize(size);
  out.shrink_to_fit();
  return out;
}

Status inflate_frame(const std::string& packed, std::string& rgb) {
  uLongf size = static_cast<uLongf>(rgb.size());
  if (uncompress(reinterpret_cast<Bytef*>(rgb.data()), &size, reinterpret_cast<const Bytef*>(packed.data()),
                 static_cast<uLong>(packed.size())) != Z_OK || size != rgb.size())
    return Error{"a kept GIF frame did not read back"};
  return Ok{};
}

class GifSink final : public FrameSink {
 public:
  GifSink(fs::path path, double fps) : path_(std::move(path)), fps_(fps) {}

  Status add(const RgbaImage& frame) override {
    if (frame.width < 1 || frame.height < 1) return Error{"empty frame"};
    if (frames_.empty()) {
      width_ = canvas_width_ > 0 ? canvas_width_ : frame.width;
      height_ = canvas_height_ > 0 ? canvas_height_ : frame.height;
    }
    RgbaImage placed;
    if (frame.width != width_ || frame.height != height_ || canvas_x_ != 0 || canvas_y_ != 0)
      placed = place_on_canvas(frame, width_, height_, canvas_x_, canvas_y_);
    const RgbaImage& image = placed.width > 0 ? placed : frame;
    // Keep RGB; count the colours, exactly while there are few, by histogram bin always.
    std::string rgb(static_cast<std::size_t>(width_) * height_ * 3, '\0');
    const auto* src = reinterpret_cast<const unsigned char*>(image.rgba.data());
    auto* dst = reinterpret_cast<unsigned char*>(rgb.data());
    for (std::size_t i = 0, n = static_cast<std::size_t>(width_) * height_; i < n; ++i) {
      std::memcpy(dst + 3 * i, src + 4 * i, 3);
      const unsigned char* c = dst + 3 * i;
      Bin& bin = histogram_[bin_key(c)];
      bin.key = bin_key(c);
      ++bin.count;
      for (int k = 0; k < 3; ++k) bin.sum[k] += c[k];
      if (exact_.size() <= 256) exact_.emplace(pack(c), 0);
    }
    // Kept deflated until finish(): a figure's flat colours shrink a hundredfold, so a hundred
    // 4096 × 4096 frames take megabytes where their pixels would take 5 GB.
    auto packed = deflate_frame(rgb);
    if (!packed) return Error{packed.error()};
    frames_.push_back(std::move(*packed));
    return Ok{};
  }

  Status finish() override {
    if (frames_.empty()) return Error{"an animation needs at least one frame"};
    const std::vector<std::uint32_t> palette = make_palette();
    const AVCodec* codec = avcodec_find_encoder(AV_CODEC_ID_GIF);
    if (!codec) return Error{"this FFmpeg has no GIF encoder"};
    auto setup = [&](AVCodecContext& c) {
      c.width = width_;
      c.height = height_;
      c.pix_fmt = AV_PIX_FMT_PAL8;
    };
    // GIF delays are in hundredths of a second.
    if (auto s = muxed_.open(path_, "gif", codec, AVRational{1, 100}, nullptr, nullptr, setup); !s) return s;
    FramePtr frame(av_frame_alloc());
    if (!frame) return Error{"out of memory for a frame"};
    frame->format = AV_PIX_FMT_PAL8;
    frame->width = width_;
    frame->height = height_;
    if (int e = av_frame_get_buffer(frame.get(), 0); e < 0) return Error{"out of memory for a frame: " + av_error(e)};
    std::vector<int> nearest(1u << 18, -1);  // by histogram bin: the palette entry nearest its first colour
    std::string rgb_frame(static_cast<std::size_t>(width_) * height_ * 3, '\0');
    for (std::size_t k = 0; k < frames_.size(); ++k) {
      if (auto s = inflate_frame(frames_[k], rgb_frame); !s) return s;
      if (int e = av_frame_make_writable(frame.get()); e < 0) return Error{"out of memory: " + av_error(e)};
      auto* pal = reinterpret_cast<std::uint32_t*>(frame->data[1]);
      for (std::size_t i = 0; i < 256; ++i) pal[i] = 0xff000000u | (i < palette.size() ? palette[i] : 0u);
      const auto* rgb = reinterpret_cast<const unsigned char*>(rgb_frame.data());
      for (int y = 0; y < height_; ++y) {
        std::uint8_t* row = frame->data[0] + static_cast<std::ptrdiff_t>(y) * frame->linesize[0];
        for (int x = 0; x < width_; ++x) {
          const unsigned char* c = rgb + 3 * (static_cast<std::size_t>(y) * width_ + x);
          row[x] = static_cast<std::uint8_t>(index_of(c, palette, nearest));
        }
      }
      const std::int64_t start = std::llround(static_cast<double>(k) * 100.0 / fps_);
      const std::int64_t next = std::llround(static_cast<double>(k + 1) * 100.0 / fps_);
      frame->pts = start;
      if (auto s = muxed_.encode(frame.get(), std::max<std::int64_t>(1, next - start)); !s) return s;
      frames_[k].clear();
      frames_[k].shrink_to_fit();
    }
    const std::int64_t last = static_cast<std::int64_t>(frames_.size());
    return muxed_.finish(std::max<std::int64_t>(1, std::llround(static_cast<double>(last) * 100.0 / fps_) -
                                                       std::llround(static_cast<double>(last - 1) * 100.0 / fps_)));
  }

 private:
  std::vector<std::uint32_t> make_palette() {
    std::vector<std::uint32_t> palette;
    if (exact_.size() <= 256) {
      // Few colours (flat figures): each one exactly.
      for (auto& [color, index] : exact_) {
        index = static_cast<int>(palette.size());
        palette.push_back(color);
      }
      return palette;
    }
    exact_.clear();
    std::vector<Bin> bins;
    bins.reserve(histogram_.size());
    for (const auto& [key, bin] : histogram_) bins.push_back(bin);
    std::sort(bins.begin(), bins.end(), [](const Bin& a, const Bin& b) { return a.key < b.key; });
    return median_cut(std::move(bins), 256);
  }

  int index_of(const unsigned char* c, const std::vector<std::uint32_t>& palette, std::vector<int>& nearest) const {
    if (!exact_.empty()) return exact_.at(pack(c));
    int& cached = nearest[bin_key(c)];
    if (cached >= 0) return cached;
    long best = -1;
    for (std::size_t i = 0; i < palette.size(); ++i) {
      const int dr = static_cast<int>((palette[i] >> 16) & 255u) - c[0];
      const int dg = static_cast<int>((palette[i] >> 8) & 255u) - c[1];
      const int db = static_cast<int>(palette[i] & 255u) - c[2];
      const long d = 2L * dr * dr + 4L * dg * dg + 3L * db * db;  // green matters most to the eye
      if (best < 0 || d < best) {
        best = d;
        cached = static_cast<int>(i);
      }
    }
    return cached;
  }

  fs::path path_;
  double fps_;
  int width_ = 0, height_ = 0;
  std::vector<std::string> frames_;  // RGB deflated, until finish() encodes them
  std::unordered_map<std::uint32_t, Bin> histogram_;
  std::unordered_map<std::uint32_t, int> exact_;  // colour → palette entry while there are ≤ 256
  Muxed muxed_;
};

// ---- A folder of numbered PNGs ------------------------------------------------------------------
class FramesDirSink final : public FrameSink {
 public:
  FramesDirSink(fs::path dir, int frames) : dir_(std::move(dir)), frames_(frames) {}
  ~FramesDirSink() override {
    if (finished_) return;
    std::error_code ec;
    if (!staging_.empty()) fs::remove_all(staging_, ec);
    if (created_) fs::remove(dir_, ec);
  }

  Status open() {
    std::error_code ec;
    if (dir_.empty()) return Error{"no folder given for the frames"};
    const bool existed = fs::exists(dir_, ec);
    if (existed && !fs::is_directory(dir_, ec)) return Error{dir_.string() + ": is a file, not a folder"};
    if (!existed) {
      if (!fs::create_directories(dir_, ec))
        return Error{dir_.string() + ": cannot create the folder: " + ec.message()};
      created_ = true;
    }
    staging_ = partial_name(dir_ / "frames");
    if (!fs::create_directory(staging_, ec)) {
      staging_.clear();
      return Error{dir_.string() + ": cannot write in the folder: " + ec.message()};
    }
    return Ok{};
  }

  Status add(const RgbaImage& image) override {
    if (written_ >= frames_) return Error{"more frames than announced"};
    const std::string name = frame_file_name(written_, frames_);
    if (auto s = write_png(staging_ / name, image); !s) return s;
    ++written_;
    return Ok{};
  }

  Status finish() override {
    if (written_ == 0) return Error{"an animation needs at least one frame"};
    std::error_code ec;
    for (int k = 0; k < written_; ++k) {
      const std::string name = frame_file_name(k, frames_);
      fs::rename(staging_ / name, dir_ / name, ec);
      if (ec) {
        // Take back the frames already moved, so the folder is as it was.
        for (int j = 0; j < k; ++j) fs::remove(dir_ / frame_file_name(j, frames_), ec);
        return Error{(dir_ / name).string() + ": cannot move into place: " + ec.message()};
      }
    }
    fs::remove(staging_, ec);
    finished_ = true;
    return Ok{};
  }

 private:
  static Status write_png(const fs::path& path, const RgbaImage& image) {
    const std::string bytes = encode_png(image);
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return Error{path.string() + ": cannot write"};
    const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    if (std::fclose(f) != 0 || !ok) return Error{path.string() + ": cannot write"};
    return Ok{};
  }

  fs::path dir_, staging_;
  int frames_ = 0, written_ = 0;
  bool created_ = false, finished_ = false;
};

}  // namespace

Result<std::unique_ptr<FrameSink>> open_frame_sink(AnimationFormat format, const fs::path& path, double fps,
                                                   int frames) {
  av_log_set_level(AV_LOG_ERROR);  // the encoders' statistics are not for the user
  if (!(fps >= 0.1 && fps <= 240.0)) return Error{"frames per second must be between 0.1 and 240"};
  if (frames < 1) return Error{"an animation needs at least one frame"};
  if (format == AnimationFormat::FramesDir) {
    auto sink = std::make_unique<FramesDirSink>(path, frames);
    if (auto s = sink->open(); !s) return Error{s.error()};
    return std::unique_ptr<FrameSink>(std::move(sink));
  }
  std::error_code ec;
  if (path.empty()) return Error{"no file given for the animation"};
  if (fs::is_directory(path, ec)) return Error{path.string() + ": is a folder, not a file"};
  const fs::path parent = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  if (!fs::is_directory(parent, ec)) return Error{path.string() + ": no such folder: " + parent.string()};
  if (format == AnimationFormat::Mp4) return std::unique_ptr<FrameSink>(std::make_unique<Mp4Sink>(path, fps));
  return std::unique_ptr<FrameSink>(std::make_unique<GifSink>(path, fps));
}

}  // namespace poslab::plot
