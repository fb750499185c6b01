#pragma once
// Frames to animation files through Debian's FFmpeg libraries (libavcodec, libavformat,
// libswscale; no program is spawned): MP4 (H.264, yuv420p), GIF (one palette for the whole
// animation) and a folder of numbered PNGs. Nothing reaches the destination until finish()
// succeeds: files are written under a temporary name beside it and renamed, and a sink
// destroyed without finish() removes what it wrote.
#include <filesystem>
#include <memory>
#include <string>

#include "base/result.hpp"
#include "plot/render.hpp"

namespace poslab::plot {

enum class AnimationFormat { Mp4, Gif, FramesDir };

class FrameSink {
 public:
  virtual ~FrameSink() = default;
  // The size of a video's frames (before the first add; default: the first frame's), and where
  // a frame's top-left corner goes on it. A frame is drawn there on the colour of its
  // bottom-right pixel (the figure's background); what falls outside is cut off. A frames
  // folder keeps every frame as it is.
  void set_canvas(int width, int height, int x = 0, int y = 0) {
    canvas_width_ = width;
    canvas_height_ = height;
    canvas_x_ = x;
    canvas_y_ = y;
  }
  virtual Status add(const RgbaImage& frame) = 0;
  // Completes the file (or folder) and moves it into place.
  virtual Status finish() = 0;

 protected:
  int canvas_width_ = 0, canvas_height_ = 0, canvas_x_ = 0, canvas_y_ = 0;
};

// `image` on a `width` × `height` canvas at (x, y), as FrameSink::set_canvas describes.
RgbaImage place_on_canvas(const RgbaImage& image, int width, int height, int x = 0, int y = 0);

// `fps`: frames per second (0.1 … 240). `frames`: how many frames will come (for the PNG names'
// width). For MP4 an odd width or height is padded by one pixel, repeating the last column or row.
Result<std::unique_ptr<FrameSink>> open_frame_sink(AnimationFormat format, const std::filesystem::path& path,
                                                   double fps, int frames);

// The name of frame k in a frames folder of `frames` frames: frame-0000.png, frame-0001.png, …
// (more digits when there are more than 10,000 frames).
std::string frame_file_name(int k, int frames);

}  // namespace poslab::plot
