// `poslab export` as a user runs it, headless (EGL, no X server): PNGs decoded and checked, CSVs
// checked against the core's numbers, sessions, errors, the fallbacks without OpenGL 4.3.
#include <gtest/gtest.h>

#include <gtest/gtest.h>
#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include "core/workspace.hpp"
#include "core/model/forward.hpp"
#include <nlohmann/json.hpp>
#include <cmath>
#include "plot/render.hpp"
#include "figures/assets.hpp"
#include "core/tour/tour.hpp"
#include "figures/export.hpp"
#include "gui/views/tour_view.hpp"
#include "plot/draw.hpp"
#include "poslab_process.hpp"
#include "app_support.hpp"

using namespace poslab;
using namespace poslab::app_test;
namespace fs = std::filesystem;

TEST(CliExport, AttentionPngAndCsvOnTheCpu) {
  const TempFolder dir("app");
  const auto r = run("export attention --backend cpu --causal --png " + (dir / "a.png").string() + " --csv " + (dir / "a.csv").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto img = read_png(dir / "a.png");
  EXPECT_GT(img.width, 500);
  EXPECT_GT(img.height, 500);
  EXPECT_GT(distinct_colors(img), 200u);
  State state;
  state.model.causal = true;
  expect_csv_matches_core(read_file(dir / "a.csv"), state, 1e-6f);
}

TEST(CliExport, GpuBackendAgreesWithTheCore) {
  const TempFolder dir("app");
  const auto r = run("export attention --backend gpu --encoding sinusoidal --heads 4 --pad-to 9 --csv " + (dir / "g.csv").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  State state;
  state.model.encoding = EncodingKind::Sinusoidal;
  state.model.heads = 4;
  state.model.pad_to = 9;
  expect_csv_matches_core(read_file(dir / "g.csv"), state, 1e-4f);
}

TEST(CliExport, ScaleMultipliesThePixels) {
  const TempFolder dir("app");
  ASSERT_EQ(run("export attention --png " + (dir / "s1.png").string()).exit_code, 0);
  ASSERT_EQ(run("export attention --scale 2 --png " + (dir / "s2.png").string()).exit_code, 0);
  const auto a = read_png(dir / "s1.png");
  const auto b = read_png(dir / "s2.png");
  EXPECT_NEAR(b.width, 2 * a.width, 1);
  EXPECT_NEAR(b.height, 2 * a.height, 1);
}

TEST(CliExport, SameStateGivesTheSamePixels) {
  const TempFolder dir("app");
  ASSERT_EQ(run("export attention --encoding rope --png " + (dir / "r1.png").string()).exit_code, 0);
  ASSERT_EQ(run("export attention --encoding rope --png " + (dir / "r2.png").string()).exit_code, 0);
  EXPECT_EQ(read_png(dir / "r1.png").rgba, read_png(dir / "r2.png").rgba);
  ASSERT_EQ(run("export attention --encoding none --png " + (dir / "r3.png").string()).exit_code, 0);
  EXPECT_NE(read_png(dir / "r1.png").rgba, read_png(dir / "r3.png").rgba);
}

TEST(CliExport, GroupedQueryAttentionOnTheGpuAgreesWithTheCore) {
  const TempFolder dir("app");
  const auto r = run("export attention --backend gpu --heads 4 --kv-heads 2 --causal --csv " + (dir / "q.csv").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  State state;
  state.model.heads = 4;
  state.model.kv_heads = 2;
  state.model.causal = true;
  expect_csv_matches_core(read_file(dir / "q.csv"), state, 1e-4f);
}

TEST(CliExport, UserErrorsAreClearAndNonZero) {
  const TempFolder dir("app");
  struct Case { std::string args; int code; std::string message; };
  const Case cases[] = {
      {"export attention --bogus 1 --png x.png", 2, "unknown option \"--bogus\""},
      {"export attention --heads seven --png x.png", 2, "--heads expects a whole number"},
      {"export attention --encoding alibi --png x.png", 2, "none|integer|normalized|binary|sinusoidal|learned|rope"},
      {"export attention --bias relative --png x.png", 2, "none|alibi|t5|shaw"},
      {"export attention --grid 3 --png x.png", 2, "--grid expects WxH"},
      {"export attention --rope-scaling yarn --factor 0.5 --png x.png", 1, "factor"},
      {"export all --png x.png", 2, "give --dir DIR"},
      {"export all", 2, "export all needs a folder"},
      {"--view nonsense", 2, "unknown view"},
      {"export attention --heads 3 --png x.png", 1, "must divide the embedding width 100"},
      {"export attention --head 9 --png x.png", 2, "there are 5 heads"},
      {"export attention", 2, "nothing to write"},
      {"export nonsense --png x.png", 2, "unknown view"},
      {"export attention --png /no/such/dir/x.png", 1, "does not exist"},
      {"export attention --embeddings /no/such/file.txt --png x.png", 1, "no such file"},
      {"export attention --scale 0 --png x.png", 2, "--scale must be between 1 and 8"},
      {"--frames", 2, "--frames needs a value"},
      {"export attention --heads 4 --kv-heads 3 --png x.png", 1, "must divide the 4 query heads"},
      {"export attention --kv-heads 1 --projection identity --png x.png", 1, "needs random projections"},
      {"--load-rate 0", 2, "--load-rate expects a positive number"},
  };
  for (const Case& c : cases) {
    const auto r = run(c.args);
    EXPECT_EQ(r.exit_code, c.code) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
  }
  EXPECT_FALSE(fs::exists("x.png"));
}

TEST(CliExport, HelpListsEveryStateOption) {
  const auto r = run("--help");
  ASSERT_EQ(r.exit_code, 0);
  for (const char* option : {"--embeddings", "--sentence", "--encoding", "--rope-style", "--base", "--heads",
                             "--projection", "--sigma", "--seed", "--causal", "--backend"})
    EXPECT_NE(r.output.find(option), std::string::npos) << option;
}

// --backend auto, the default: the CPU on a software renderer (llvmpipe here), the GPU on
// hardware; export and `poslab info` say which and why. --backend gpu still runs the shaders.
TEST(CliExport, DefaultBackendIsAutoAndSaysWhichPathAndWhy) {
  const TempFolder dir("app");
  const auto info = run("info");
  ASSERT_EQ(info.exit_code, 0) << info.output;
  const auto at = info.output.find("renderer    ");
  ASSERT_NE(at, std::string::npos) << info.output;
  const std::string renderer = info.output.substr(at + 12, info.output.find('\n', at) - at - 12);
  const bool software = renderer.find("llvmpipe") != std::string::npos || renderer.find("softpipe") != std::string::npos;
  const std::string expected = software ? "CPU (Eigen): auto, because OpenGL here is " : "GPU compute shaders: auto";
  EXPECT_NE(info.output.find("backend     " + expected), std::string::npos) << info.output;

  const auto r = run("export attention --csv " + (dir / "d.csv").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("poslab: attention: " + expected), std::string::npos) << r.output;
  if (software) EXPECT_NE(r.output.find("software renderer"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("computed on the CPU"), std::string::npos) << r.output;  // a choice, not a fallback
  expect_csv_matches_core(read_file(dir / "d.csv"), State{}, 1e-4f);

  const auto forced = run("export attention --backend gpu --csv " + (dir / "g.csv").string());
  ASSERT_EQ(forced.exit_code, 0) << forced.output;
  EXPECT_NE(forced.output.find("poslab: attention: GPU compute shaders"), std::string::npos) << forced.output;
  EXPECT_NE(forced.output.find("--backend gpu"), std::string::npos) << forced.output;
  EXPECT_EQ(forced.output.find("computed on the CPU"), std::string::npos) << forced.output;
  const auto cpu = run("info --backend cpu");
  EXPECT_NE(cpu.output.find("backend     CPU (Eigen): --backend cpu"), std::string::npos) << cpu.output;
}

TEST(Fallback, WithoutOpenGl43TheCliComputesOnTheCpuAndSaysWhy) {
  const TempFolder dir("app");
  const auto r = run("export attention --backend gpu --causal --png " + (dir / "f.png").string() + " --csv " + (dir / "f.csv").string(),
                     "MESA_GL_VERSION_OVERRIDE=3.3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("GPU path unavailable, computed on the CPU: OpenGL 4.3 is needed"), std::string::npos) << r.output;
  EXPECT_GT(distinct_colors(read_png(dir / "f.png")), 200u);  // plots still render on OpenGL 3.3
  State state;
  state.model.causal = true;
  expect_csv_matches_core(read_file(dir / "f.csv"), state, 1e-6f);
}

TEST(Fallback, ABrokenShaderIsReportedWithTheDriversLog) {
  const TempFolder tmp("app");
  const fs::path dir = tmp / "shaders";
  fs::create_directories(dir);
  std::ofstream(dir / "flash_attention.comp") << "#version 430\nlayout(local_size_x = 1) in;\nvoid main() { undefined_call(); }\n";
  const auto r = run("export attention --backend gpu --csv " + (dir / "b.csv").string(), "POSLAB_SHADER_DIR=" + dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("flash_attention.comp failed to compile"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("undefined_call"), std::string::npos) << r.output;  // the driver's own words
  expect_csv_matches_core(read_file(dir / "b.csv"), State{}, 1e-6f);
}

TEST(Fallback, TheGuiRunsOnOpenGl33AndSaysWhy) {
  const TempFolder tmp("app");
  const fs::path shot = tmp / "gui33.png";
  const std::string command = "MESA_GL_VERSION_OVERRIDE=3.3 xvfb-run -a -s '-screen 0 1600x1000x24' " +
                              std::string(POSLAB_BINARY) + " --backend gpu --frames 3 --screenshot " + shot.string() + " 2>&1";
  RunResult r;
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::array<char, 4096> buf{};
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) r.output.append(buf.data(), n);
  ASSERT_EQ(pclose(pipe), 0) << r.output;
  EXPECT_NE(r.output.find("OpenGL 4.3 is needed"), std::string::npos) << r.output;
  EXPECT_GT(distinct_colors(read_png(shot)), 300u);
}

TEST(CliExport, FrequenciesCsvFollowsTheDefinitions) {
  const TempFolder dir("app");
  // Llama 3.2: base 500000, head_dim 64, llama3 scaling with factor 32 of 8192.
  const auto r = run("export frequencies --head-dim 64 --base 500000 --rope-scaling llama3 --factor 32 "
                     "--original-max-position 8192 --csv " + (dir / "f.csv").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const CsvTable csv = test_support::read_csv_file(dir / "f.csv");
  EXPECT_EQ(csv.header, csv_line_fields("pair,theta,wavelength,theta_scaled,wavelength_scaled"));
  int rows = 0;
  for (const auto& row : csv.rows) {
    std::vector<double> f;
    for (const std::string& field : row) f.push_back(std::stod(field));
    const double theta = std::pow(500000.0, -2.0 * f[0] / 64.0);
    EXPECT_NEAR(f[1] / theta, 1.0, 1e-12);
    EXPECT_NEAR(f[2] * theta, 2 * M_PI, 1e-9);
    const double wavelength = 2 * M_PI / theta;  // Llama 3: short waves kept, long ones ÷ 32
    if (wavelength < 8192.0 / 4.0) EXPECT_NEAR(f[3] / theta, 1.0, 1e-12);
    if (wavelength > 8192.0 / 1.0) EXPECT_NEAR(f[3] * 32.0 / theta, 1.0, 1e-12);
    ++rows;
  }
  EXPECT_EQ(rows, 32);
}

TEST(CliExport, BiasCsvHasEveryCell) {
  const TempFolder dir("app");
  const auto r = run("export bias --bias alibi --heads 4 --causal --csv " + (dir / "b.csv").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const CsvTable csv = test_support::read_csv_file(dir / "b.csv");
  EXPECT_EQ(csv.header, csv_line_fields("head,query,key,bucket,bias"));
  int rows = 0;
  for (const auto& f : csv.rows) {
    const std::string line = test_support::csv_row_text(f);
    ASSERT_EQ(f.size(), 5u) << line;
    const int h = std::stoi(f[0]), i = std::stoi(f[1]), j = std::stoi(f[2]);
    EXPECT_TRUE(f[3].empty());
    // Causal ALiBi with 4 heads: slopes 2^-2, 2^-4, 2^-6, 2^-8; bias −m·(i − j) for j ≤ i.
    const double slope = std::pow(2.0, -2.0 * (h + 1));
    if (j <= i) EXPECT_NEAR(std::stod(f[4]), -slope * (i - j), 1e-6) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 4 * 5 * 5);
}

TEST(Sessions, ASavedSessionReproducesTheExportPixelForPixel) {
  const TempFolder dir("app");
  const auto first = run("export attention --sentence \"She said that he said that they said no.\" --heads 4 --causal "
                         "--bias alibi --rope-scaling yarn --factor 2 --head 2 --value scores --png " +
                         (dir / "a.png").string() + " --save-session " + (dir / "s.json").string());
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const auto second = run("export attention --session " + (dir / "s.json").string() + " --png " + (dir / "b.png").string());
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_EQ(read_png(dir / "a.png").rgba, read_png(dir / "b.png").rgba);
  // Options after --session refine it.
  const auto third = run("export attention --session " + (dir / "s.json").string() + " --head 0 --png " +
                         (dir / "c.png").string());
  ASSERT_EQ(third.exit_code, 0) << third.output;
  EXPECT_NE(read_png(dir / "a.png").rgba, read_png(dir / "c.png").rgba);
}

TEST(Sessions, ABadSessionIsAClearError) {
  const TempFolder dir("app");
  std::ofstream(dir / "bad.json") << R"({"poslab_session": 1, "state": {"heads": "many"}})";
  const auto r = run("export attention --session " + (dir / "bad.json").string() + " --csv x.csv");
  EXPECT_EQ(r.exit_code, 1) << r.output;  // a bad file, not a bad flag
  EXPECT_NE(r.output.find("\"heads\" must be a number"), std::string::npos) << r.output;
  std::ofstream(dir / "odd.json") << R"({"poslab_session": 1, "state": {"heads": 4, "mood": "sunny"}})";
  const auto odd = run("export attention --session " + (dir / "odd.json").string() + " --csv " + (dir / "o.csv").string());
  EXPECT_EQ(odd.exit_code, 0) << odd.output;
  EXPECT_NE(odd.output.find("ignoring unknown key \"state.mood\""), std::string::npos) << odd.output;
}

TEST(CliExport, SvgIsWellFormedWithVectorText) {
  const TempFolder dir("app");
  const auto r = run("export attention --causal --svg " + (dir / "a.svg").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string svg = read_file(dir / "a.svg");
  // Parsed by Python's XML parser: a well-formed document whose root is <svg>.
  const std::string check = "/usr/bin/python3 -c \"import sys, xml.dom.minidom as m; "
                            "d = m.parse(sys.argv[1]); sys.exit(d.documentElement.tagName != 'svg')\" " +
                            (dir / "a.svg").string();
  EXPECT_EQ(std::system(check.c_str()), 0);
  for (const char* text : {">chased</text>", ">Attention weights · head 0 of 5</text>", ">masked</text>", ">query</text>"})
    EXPECT_NE(svg.find(text), std::string::npos) << text;
  EXPECT_NE(svg.find("data:image/png;base64,"), std::string::npos);  // the cells
}

TEST(CliExport, FrequenciesPlotExportsAsPngAndSvg) {
  const TempFolder dir("app");
  const auto r = run("export frequencies --rope-scaling yarn --factor 8 --png " + (dir / "f.png").string() + " --svg " +
                     (dir / "f.svg").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto img = read_png(dir / "f.png");
  EXPECT_GT(img.width, 600);
  EXPECT_GT(distinct_colors(img), 50u);
  const std::string svg = read_file(dir / "f.svg");
  EXPECT_NE(svg.find(">pair i</text>"), std::string::npos);
  EXPECT_NE(svg.find(">yarn ×8</text>"), std::string::npos);
}

TEST(CliExport, BiasPlotShowsT5BucketsBesideTheBias) {
  const TempFolder dir("app");
  const auto r = run("export bias --bias t5 --causal --png " + (dir / "b.png").string() + " --svg " + (dir / "b.svg").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GT(read_png(dir / "b.png").width, 1000);  // two heatmaps side by side
  const std::string svg = read_file(dir / "b.svg");
  EXPECT_NE(svg.find(">T5 bucket map</text>"), std::string::npos);
  EXPECT_NE(svg.find(">T5 · head 0 of 5</text>"), std::string::npos);
}

TEST(CliExport, MagnitudeCsvMatchesClosedForms) {
  const TempFolder dir("app");
  const auto r = run("export magnitude --png " + (dir / "m.png").string() + " --csv " + (dir / "m.csv").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GT(distinct_colors(read_png(dir / "m.png")), 50u);
  const CsvTable csv = test_support::read_csv_file(dir / "m.csv");
  EXPECT_EQ(csv.header, csv_line_fields("encoding,position,pe_norm,embedding_norm"));
  int rows = 0;
  for (const auto& f : csv.rows) {
    ASSERT_EQ(f.size(), 4u);
    const double p = std::stod(f[1]), norm = std::stod(f[2]);
    // d = 100: ‖p·1‖ = 10p; ‖sinusoid‖ = √(d/2) = √50 at every position; ‖p/N·1‖ = 10p/128.
    if (f[0] == "integer p") EXPECT_NEAR(norm, 10.0 * p, 1e-3);
    if (f[0] == "sinusoidal") EXPECT_NEAR(norm, std::sqrt(50.0), 1e-4);
    if (f[0] == "normalized p/N") EXPECT_NEAR(norm, 10.0 * p / 128.0, 1e-4);
    ++rows;
  }
  EXPECT_EQ(rows, 4 * 128);
}

TEST(CliExport, PatternsShowBinaryAndSinusoidSideBySide) {
  const TempFolder dir("app");
  const auto r = run("export patterns --encoding sinusoidal --png " + (dir / "p.png").string() + " --svg " +
                     (dir / "p.svg").string() + " --csv " + (dir / "p.csv").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GT(distinct_colors(read_png(dir / "p.png")), 200u);
  const std::string svg = read_file(dir / "p.svg");
  EXPECT_NE(svg.find(">PE(p, j): binary {0, 1}</text>"), std::string::npos);
  EXPECT_NE(svg.find(">PE(p, j): sinusoidal, base 10000</text>"), std::string::npos);
  // CSV: binary bit j of p, and sin/cos of p·θᵢ, θᵢ = 10000^(−2i/100).
  const CsvTable csv = test_support::read_csv_file(dir / "p.csv");
  EXPECT_EQ(csv.header, csv_line_fields("encoding,position,dimension,value"));
  int rows = 0;
  for (const auto& f : csv.rows) {
    const std::string line = test_support::csv_row_text(f);
    ASSERT_EQ(f.size(), 4u) << line;
    const bool binary = f[0].rfind("binary", 0) == 0;  // "binary {0, 1}": a quoted field with a comma
    const int p = std::stoi(f[1]);
    const int j = std::stoi(f[2]);
    const double v = std::stod(f[3]);
    if (binary) EXPECT_EQ(v, j < 30 ? (p >> j) & 1 : 0) << line;  // p < 64: high bits are 0
    else {
      const double angle = p * std::pow(10000.0, -2.0 * (j / 2) / 100.0);
      EXPECT_NEAR(v, j % 2 == 0 ? std::sin(angle) : std::cos(angle), 1e-6) << line;
    }
    ++rows;
  }
  EXPECT_EQ(rows, 2 * 64 * 100);
}

TEST(CliExport, ShiftMatricesAndResiduals) {
  const TempFolder dir("app");
  const auto r = run("export shift --shift-k 5 --png " + (dir / "s.png").string() + " --csv " + (dir / "s.csv").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GT(distinct_colors(read_png(dir / "s.png")), 30u);
  const CsvTable csv = test_support::read_csv_file(dir / "s.csv");
  EXPECT_EQ(csv.header, csv_line_fields("pair,omega,k,m00,m01,m10,m11,max_residual"));
  int rows = 0;
  for (const auto& row : csv.rows) {
    std::vector<double> f;
    for (const std::string& field : row) f.push_back(std::stod(field));
    const double omega = std::pow(10000.0, -2.0 * f[0] / 100.0);
    EXPECT_NEAR(f[1], omega, 1e-15);
    EXPECT_NEAR(f[3], std::cos(5 * omega), 1e-12);
    EXPECT_NEAR(f[4], std::sin(5 * omega), 1e-12);
    EXPECT_LT(f[7], 1e-6);  // the shift is exact up to float rounding
    ++rows;
  }
  EXPECT_EQ(rows, 50);
}

TEST(Formats, ExportReadsWord2vecBinaryAndNpyWithItsVocabulary) {
  const TempFolder dir("app");
  const std::string data = std::string(POSLAB_TEST_DATA) + "/formats/";
  // word2vec binary: "the", "über", … (4 dimensions): 2 heads of width 2.
  auto r = run("export attention --embeddings " + data + "w2v_good.bin --sentence \"the über the\" --heads 2 --csv " +
               (dir / "w.csv").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(read_file(dir / "w.csv").find(",the,über,"), std::string::npos);
  // .npy with emb.vocab.txt found beside it.
  r = run("export attention --embeddings " + data + "emb.npy --sentence \"alpha gamma beta\" --heads 2 --csv " +
          (dir / "n.csv").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(read_file(dir / "n.csv").find(",alpha,gamma,"), std::string::npos);
  // A truncated binary file is an error naming the file; nothing is written.
  r = run("export attention --embeddings " + data + "w2v_truncated.bin --csv " + (dir / "t.csv").string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("w2v_truncated.bin"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "t.csv"));
}

TEST(CliExport, DogTableHasTheFourCases) {
  const TempFolder dir("app");
  const auto r = run("export dog --png " + (dir / "d.png").string() + " --csv " + (dir / "d.csv").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GT(distinct_colors(read_png(dir / "d.png")), 100u);
  const CsvTable csv = test_support::read_csv_file(dir / "d.csv");
  EXPECT_EQ(csv.header, csv_line_fields("case,encoding,causal,max_abs_diff,cosine"));
  const auto& rows = csv.rows;
  ASSERT_EQ(rows.size(), 4u);
  // Five fields each: the case's name, which holds a comma, is quoted.
  for (const auto& f : rows) ASSERT_EQ(f.size(), 5u) << test_support::csv_row_text(f);
  const auto starts = [](const std::vector<std::string>& f) { return std::vector<std::string>(f.begin(), f.begin() + 3); };
  EXPECT_EQ(starts(rows[0]), (std::vector<std::string>{"no positions, no mask", "none", "false"}));
  EXPECT_EQ(starts(rows[1]), (std::vector<std::string>{"no positions, causal mask", "none", "true"}));
  EXPECT_EQ(starts(rows[2]), (std::vector<std::string>{"sinusoidal, no mask", "sinusoidal", "false"}));
  EXPECT_EQ(starts(rows[3]), (std::vector<std::string>{"RoPE, no mask", "rope", "false"}));
  auto diff = [](const std::vector<std::string>& f) { return std::stod(f[3]); };
  EXPECT_LT(diff(rows[0]), 1e-5);  // identical to float precision
  for (int k = 1; k < 4; ++k) EXPECT_GT(diff(rows[static_cast<std::size_t>(k)]), 1e-2);
}

TEST(CliExport, Rope2dScoreCurveIsTheSameForEveryM) {
  const TempFolder dir("app");
  const auto r = run("export rope2d --rope-m 9 --png " + (dir / "r.png").string() + " --csv " + (dir / "r.csv").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GT(distinct_colors(read_png(dir / "r.png")), 50u);
  const CsvTable csv = test_support::read_csv_file(dir / "r.csv");
  EXPECT_EQ(csv.header, csv_line_fields("m,delta,score"));
  std::map<int, std::map<int, double>> curves;  // m → delta → score
  for (const auto& f : csv.rows) {
    ASSERT_EQ(f.size(), 3u) << test_support::csv_row_text(f);
    curves[std::stoi(f[0])][std::stoi(f[1])] = std::stod(f[2]);
  }
  ASSERT_EQ(curves.size(), 3u);  // m = 0, 25 and 9
  for (const auto& [delta, score] : curves[0]) {
    EXPECT_NEAR(curves[25][delta], score, 1e-9);
    EXPECT_NEAR(curves[9][delta], score, 1e-9);
  }
}

TEST(CliExport, TrajectoryBinaryJumpsSinusoidDoesNot) {
  const TempFolder dir("app");
  const auto r = run("export trajectory --encoding integer --positions 40 --plane dims --dims 0,3 --png " +
                     (dir / "t.png").string() + " --csv " + (dir / "t.csv").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GT(distinct_colors(read_png(dir / "t.png")), 50u);
  const CsvTable csv = test_support::read_csv_file(dir / "t.csv");
  EXPECT_EQ(csv.header, csv_line_fields("encoding,position,x,y,step"));
  std::map<std::string, std::vector<std::array<double, 3>>> rows;  // encoding → (x, y, step)
  for (const auto& f : csv.rows) {
    ASSERT_EQ(f.size(), 5u) << test_support::csv_row_text(f);
    const std::string& encoding = f[0];
    EXPECT_EQ(std::stoi(f[1]), static_cast<int>(rows[encoding].size()));
    rows[encoding].push_back({std::stod(f[2]), std::stod(f[3]), f[4].empty() ? 0.0 : std::stod(f[4])});  // no step at 0
  }
  ASSERT_EQ(rows.size(), 3u);  // binary, sinusoidal and the chosen integer encoding
  for (const auto& [name, path] : rows) ASSERT_EQ(path.size(), 40u) << name;
  // Integer: dimension 0 and 3 both grow by exactly 1 per position; each step is √d = 10.
  for (int p = 1; p < 40; ++p) {
    EXPECT_NEAR(rows["integer"][p][0] - rows["integer"][p - 1][0], 1.0, 1e-5);
    EXPECT_NEAR(rows["integer"][p][1] - rows["integer"][p - 1][1], 1.0, 1e-5);
    EXPECT_NEAR(rows["integer"][p][2], 10.0, 1e-5);
  }
  // Binary {0, 1}: dimension 0 is the lowest bit, the step √(bits flipped): √6 from 31 to 32.
  for (int p = 1; p < 40; ++p)
    EXPECT_NEAR(rows["binary"][p][0] - rows["binary"][0][0], p % 2, 1e-5) << p;
  EXPECT_NEAR(rows["binary"][32][2], std::sqrt(6.0), 1e-5);
  // Sinusoid: one step length throughout.
  for (int p = 2; p < 40; ++p) EXPECT_NEAR(rows["sinusoidal"][p][2], rows["sinusoidal"][1][2], 1e-5);
}

TEST(CliExport, MeanOfHeadsAndPermuteRoundTripThroughSessions) {
  const TempFolder dir("app");
  const std::string session = (dir / "mean.json").string();
  ASSERT_EQ(run("export attention --head mean --causal --save-session " + session + " --png " + (dir / "m1.png").string()).exit_code, 0);
  EXPECT_NE(read_file(session).find("\"mean\""), std::string::npos);
  ASSERT_EQ(run("export attention --session " + session + " --png " + (dir / "m2.png").string()).exit_code, 0);
  EXPECT_EQ(read_png(dir / "m1.png").rgba, read_png(dir / "m2.png").rgba);
  ASSERT_EQ(run("export attention --head 0 --causal --png " + (dir / "h0.png").string()).exit_code, 0);
  EXPECT_NE(read_png(dir / "m1.png").rgba, read_png(dir / "h0.png").rgba);
  // The dog view with a shuffle draws the three permutation panels below the four cases.
  ASSERT_EQ(run("export dog --png " + (dir / "d0.png").string()).exit_code, 0);
  ASSERT_EQ(run("export dog --permute 2 --png " + (dir / "d2.png").string()).exit_code, 0);
  EXPECT_GT(read_png(dir / "d2.png").height, read_png(dir / "d0.png").height + 300);
}

TEST(CliExport, RopeImageScoresMoveWithThePatch) {
  const TempFolder dir("app");
  auto scores = [&](const std::string& patch, const std::string& name) {
    const auto r = run("export rope-image --image-grid 10x8 --patch " + patch + " --png " + (dir / (name + ".png")).string() +
                       " --csv " + (dir / (name + ".csv")).string());
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_GT(distinct_colors(read_png(dir / (name + ".png"))), 50u);
    const CsvTable csv = test_support::read_csv_file(dir / (name + ".csv"));
    EXPECT_EQ(csv.header, csv_line_fields("kind,x,y,score"));
    std::map<std::string, std::map<std::pair<int, int>, double>> out;  // kind → (x, y) → score
    for (const auto& f : csv.rows) {
      EXPECT_EQ(f.size(), 4u) << test_support::csv_row_text(f);
      if (f.size() == 4) out[f[0]][{std::stoi(f[1]), std::stoi(f[2])}] = std::stod(f[3]);
    }
    return out;
  };
  const auto a = scores("2,3", "a"), b = scores("5,4", "b");
  for (const char* kind : {"axial", "mixed"}) {
    ASSERT_EQ(a.at(kind).size(), 80u) << kind;
    // The scores depend on the offset only: moving the patch by (3, 1) moves the map by (3, 1).
    for (const auto& [xy, score] : a.at(kind)) {
      const std::pair<int, int> moved{xy.first + 3, xy.second + 1};
      if (moved.first < 10 && moved.second < 8) EXPECT_NEAR(b.at(kind).at(moved), score, 1e-4) << kind;
    }
    // And the patch scores highest with itself.
    double best = -1e30;
    for (const auto& [xy, score] : a.at(kind)) best = std::max(best, score);
    EXPECT_DOUBLE_EQ(a.at(kind).at({2, 3}), best) << kind;
  }
}

// Each view with nothing but the output paths: a PNG with a picture in it, an SVG that parses, a
// tidy CSV with a header and rows of the same width.
class EveryView : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryView, ExportsPngSvgAndCsvWithDefaultOptions) {
  const std::string view = GetParam();
  const TempFolder tmp("app");
  const fs::path dir = tmp / ("defaults-" + view);
  fs::create_directories(dir);
  const auto r = run("export " + view + " --png " + (dir / "v.png").string() + " --svg " + (dir / "v.svg").string() +
                     " --csv " + (dir / "v.csv").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto png = read_png(dir / "v.png");
  EXPECT_GT(png.width, 300);
  EXPECT_GT(distinct_colors(png), 40u);
  const std::string check = "/usr/bin/python3 -c \"import sys, xml.dom.minidom as m; "
                            "d = m.parse(sys.argv[1]); sys.exit(d.documentElement.tagName != 'svg')\" " +
                            (dir / "v.svg").string();
  EXPECT_EQ(std::system(check.c_str()), 0) << view;
  const CsvTable csv = test_support::read_csv_file(dir / "v.csv");
  ASSERT_FALSE(csv.header.empty());
  for (const std::string& name : csv.header)
    EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_"), std::string::npos) << name;
  // Every row as wide as the header, quoted fields (which may hold commas) read as one.
  for (const auto& f : csv.rows) EXPECT_EQ(f.size(), csv.header.size()) << test_support::csv_row_text(f);
  EXPECT_GT(csv.rows.size(), 0u) << view;
}

INSTANTIATE_TEST_SUITE_P(Views, EveryView,
                         ::testing::ValuesIn(explorer_view_names()),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(CliExport, ExportAllWritesEveryViewOrNothing) {
  const TempFolder tmp("app");
  const fs::path dir = tmp / "all";
  fs::remove_all(dir);
  const auto r = run("export all --causal --dir " + dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename().string());
  EXPECT_EQ(names.size(), 3 * all_views().size());  // every view × PNG, SVG, CSV, and no staging folder left behind
  EXPECT_EQ(all_views().size(), 11u);
  for (const char* view : {"attention", "trajectory", "rope-image", "frequencies"})
    for (const char* ext : {".png", ".svg", ".csv"}) EXPECT_TRUE(names.count(std::string(view) + ext)) << view << ext;
  // The same pixels as the single-view export of the same state.
  ASSERT_EQ(run("export shift --causal --png " + (dir.parent_path() / "shift.png").string()).exit_code, 0);
  EXPECT_EQ(read_png(dir / "shift.png").rgba, read_png(dir.parent_path() / "shift.png").rgba);
  // A file where the folder should be: a clear error, and the file is untouched.
  const fs::path file = tmp / "not-a-folder";
  { std::ofstream(file) << "keep me"; }
  const auto bad = run("export all --dir " + file.string());
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.output.find("is a file, not a folder"), std::string::npos) << bad.output;
  EXPECT_EQ(read_file(file), "keep me");
  // A folder that cannot be made: nothing appears.
  const auto nowhere = run("export all --dir /proc/poslab-nowhere/figures");
  EXPECT_EQ(nowhere.exit_code, 1);
  EXPECT_NE(nowhere.output.find("cannot create the folder"), std::string::npos) << nowhere.output;
}
