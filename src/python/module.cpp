// `import poslab`: the Python module (pybind11). Arguments in, NumPy arrays out; the GIL released
// while PosLab computes; PosLab's errors as ValueError, FileNotFoundError, MemoryError or
// RuntimeError; a tqdm bar (when tqdm is installed) on a model run that lasts. The computations
// are in python_api.hpp, which knows no Python.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "figures/hub_resolver.hpp"
#include "python/python_api.hpp"

namespace py = pybind11;
using namespace poslab;
using namespace poslab::python;

namespace {

// A keyword's value as the option's text: True for a switch that is on (False leaves it out),
// numbers as Python writes them, a list or tuple as "a,b,c".
Keywords keywords_of(const py::kwargs& kwargs) {
  Keywords keywords;
  for (const auto& [key, value] : kwargs) {
    const std::string name = py::str(key);
    if (value.is_none()) continue;
    if (py::isinstance<py::bool_>(value)) {
      if (value.cast<bool>()) keywords.push_back({name, std::nullopt});
      continue;
    }
    if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
      std::string joined;
      for (const auto& item : value) joined += (joined.empty() ? "" : ",") + std::string(py::str(item));
      keywords.push_back({name, joined});
      continue;
    }
    keywords.push_back({name, std::string(py::str(value))});
  }
  return keywords;
}

py::array_t<float> array_of(const Matrix& m) {
  py::array_t<float> a({m.rows(), m.cols()});
  std::copy(m.data(), m.data() + m.size(), a.mutable_data());
  return a;
}

// Per head T_q × T_k matrices as one heads × T_q × T_k array.
py::array_t<float> array_of(const std::vector<Matrix>& heads) {
  const Eigen::Index rows = heads.empty() ? 0 : heads.front().rows(), cols = heads.empty() ? 0 : heads.front().cols();
  py::array_t<float> a({static_cast<Eigen::Index>(heads.size()), rows, cols});
  float* out = a.mutable_data();
  for (const Matrix& m : heads) out = std::copy(m.data(), m.data() + m.size(), out);
  return a;
}

// heads × T × T (or T × T, one head) as PosLab's matrices.
std::vector<Matrix> matrices_of(const py::array_t<float, py::array::c_style | py::array::forcecast>& a) {
  if (a.ndim() != 2 && a.ndim() != 3) fail("plot_attention: the weights must be heads × T × T or T × T, not " + std::to_string(a.ndim()) + "-D");
  const Eigen::Index heads = a.ndim() == 3 ? a.shape(0) : 1, rows = a.shape(a.ndim() - 2), cols = a.shape(a.ndim() - 1);
  std::vector<Matrix> out;
  for (Eigen::Index h = 0; h < heads; ++h)
    out.push_back(Eigen::Map<const Matrix>(a.data() + h * rows * cols, rows, cols));
  return out;
}

// A tqdm bar over a run's fraction done, shown only once the run has lasted half a second; none
// when tqdm is not installed. Called without the GIL, from the computing thread.
struct ProgressBar {
  std::shared_ptr<py::object> bar;
  ProgressBar() {
    try {
      py::object tqdm = py::module_::import("tqdm").attr("tqdm");
      bar = std::make_shared<py::object>(tqdm(py::arg("total") = 100, py::arg("delay") = 0.5, py::arg("leave") = false,
                                              py::arg("desc") = "poslab", py::arg("unit") = "%"));
    } catch (const py::error_already_set&) {
      bar.reset();
    }
  }
  ~ProgressBar() {
    if (bar) bar->attr("close")();
  }
  Progress callback() const {
    if (!bar) return {};
    auto shown = std::make_shared<int>(0);
    return [b = bar, shown](double fraction) {
      const int now = static_cast<int>(fraction * 100.0);
      if (now <= *shown) return;
      py::gil_scoped_acquire gil;
      b->attr("update")(now - *shown);
      *shown = now;
    };
  }
};

// Runs `work` without the GIL, the progress bar around it.
template <typename Work>
auto with_progress(Work work) {
  ProgressBar bar;
  Progress progress = bar.callback();
  py::gil_scoped_release release;
  return work(progress);
}

py::object attention_object(Attention a) {
  py::dict fields;
  fields["weights"] = array_of(a.weights);
  fields["scores"] = array_of(a.scores);
  fields["tokens"] = a.tokens;
  fields["key_tokens"] = a.key_tokens;
  fields["figure_"] = py::cast(std::move(a.figure));
  return py::module_::import("poslab").attr("Attention")(**fields);
}

void define_figure(py::module_& m) {
  py::class_<Figure>(m, "Figure", "A figure as `poslab export` draws it, with its view's CSV.")
      .def("_repr_png_", [](const Figure& f) {
        std::string png;
        {
          py::gil_scoped_release release;
          png = f.png();
        }
        return py::bytes(png);
      })
      .def("_repr_svg_", &Figure::svg, py::call_guard<py::gil_scoped_release>())
      .def("png", [](const Figure& f, float scale) {
        std::string png;
        {
          py::gil_scoped_release release;
          png = f.png(scale);
        }
        return py::bytes(png);
      }, py::arg("scale") = 1.0f, "The PNG file's bytes at `scale` pixels per point.")
      .def("svg", &Figure::svg, "The SVG text.", py::call_guard<py::gil_scoped_release>())
      .def_readonly("csv", &Figure::csv, "The view's CSV, as `poslab export VIEW --csv` writes it.")
      .def("save", [](const Figure& f, const py::object& path, float scale) {
        const std::string file = py::str(py::module_::import("os").attr("fspath")(path));
        py::gil_scoped_release release;
        f.save(file, scale);
      }, py::arg("path"), py::arg("scale") = 1.0f, "Writes .png, .svg, .csv or .html, as the path's suffix says.")
      .def("to_html", &Figure::to_html, py::call_guard<py::gil_scoped_release>(),
           "The figure as one self-contained HTML page; the attention and heads figures answer the pointer with each cell's values, "
           "with a head selector.")
      .def_property_readonly("width", [](const Figure& f) { return f.figure.width; })
      .def_property_readonly("height", [](const Figure& f) { return f.figure.height; });
}

void define_model(py::module_& m) {
  py::class_<Model>(m, "Model", "A model folder, or ORG/NAME[@REVISION] through the Hub's cache, as --model reads it.")
      .def(py::init([](const std::string& name) {
        py::gil_scoped_release release;
        return std::make_unique<Model>(name);
      }), py::arg("name_or_dir"))
      .def_property_readonly("folder", &Model::folder)
      .def_property_readonly("design", &Model::design, "The design line `poslab info --model` prints.")
      .def("tokens", &Model::tokens, py::arg("text"), py::call_guard<py::gil_scoped_release>())
      .def("attention", [](const Model& model, const std::string& text, int layer, std::optional<std::string> stack,
                           const py::kwargs& kwargs) {
        const Keywords k = keywords_of(kwargs);
        return attention_object(with_progress([&](const Progress& p) { return model.attention(text, layer, stack, k, p); }));
      }, py::arg("text"), py::arg("layer"), py::arg("stack") = py::none())
      .def("heads", [](const Model& model, const std::string& text, int layer, const py::kwargs& kwargs) {
        const Keywords k = keywords_of(kwargs);
        return with_progress([&](const Progress& p) { return model.heads(text, layer, k, p); });
      }, py::arg("text"), py::arg("layer"))
      .def("predict", [](const Model& model, const std::string& text, int top, const py::kwargs& kwargs) {
        const Keywords k = keywords_of(kwargs);
        const std::string json = with_progress([&](const Progress& p) { return model.predict(text, top, k, p); });
        return py::module_::import("json").attr("loads")(json);
      }, py::arg("text"), py::arg("top") = 5)
      .def("frequency_usage", [](const Model& model, const std::string& text, int layer, const py::kwargs& kwargs) {
        const Keywords k = keywords_of(kwargs);
        return array_of(with_progress([&](const Progress& p) { return model.frequency_usage(text, layer, k, p); }));
      }, py::arg("text"), py::arg("layer"))
      .def("__repr__", [](const Model& model) { return "poslab.Model('" + model.folder() + "')"; });
}

void define_functions(py::module_& m) {
  m.def("encoding", [](const std::string& kind, long long positions, long long dim, const py::kwargs& kwargs) {
    const Keywords k = keywords_of(kwargs);
    Matrix table;
    {
      py::gil_scoped_release release;
      table = encoding(kind, positions, dim, k);
    }
    return array_of(table);
  }, py::arg("kind"), py::arg("positions"), py::arg("dim"), "positions × dim: row p is position p's encoding.");
  m.def("_attention", [](const std::string& sentence, const py::kwargs& kwargs) {
    const Keywords k = keywords_of(kwargs);
    return attention_object(with_progress([&](const Progress& p) { return attention(sentence, k, p); }));
  }, py::arg("sentence"));
  m.def("figure", [](const std::string& view, const py::kwargs& kwargs) {
    const Keywords k = keywords_of(kwargs);
    return with_progress([&](const Progress& p) { return view_figure(view, k, p); });
  }, py::arg("view"), "Any view `poslab export VIEW` draws, for the state the keywords give.");
  m.def("_papers_check", [](const std::vector<std::string>& ids, const std::optional<std::string>& model) {
    std::string json;
    {
      py::gil_scoped_release release;
      json = papers_check(ids, model);
    }
    return py::module_::import("json").attr("loads")(json);
  }, py::arg("ids"), py::arg("model"));
  m.def("_papers_list", &papers_list);
  m.def("plot_attention", [](const py::array_t<float, py::array::c_style | py::array::forcecast>& weights,
                             const std::vector<std::string>& tokens, const py::kwargs& kwargs) {
    const Keywords k = keywords_of(kwargs);
    std::vector<Matrix> heads = matrices_of(weights);
    py::gil_scoped_release release;
    return plot_attention(std::move(heads), tokens, k);
  }, py::arg("weights"), py::arg("tokens"), "Draws heads × T × T (or T × T) weights as PosLab draws attention.");
}

// The exceptions PosLab's messages become.
void translate(std::exception_ptr e) {
  try {
    if (e) std::rethrow_exception(e);
  } catch (const Failure& f) {
    PyObject* type = PyExc_ValueError;
    if (f.kind() == ErrorKind::FileNotFound) type = PyExc_FileNotFoundError;
    else if (f.kind() == ErrorKind::Memory) type = PyExc_MemoryError;
    else if (f.kind() == ErrorKind::Runtime) type = PyExc_RuntimeError;
    PyErr_SetString(type, f.what());
  }
}

}  // namespace

PYBIND11_MODULE(_poslab, m) {
  m.doc() = "PosLab from Python: positional encodings, attention, real models and their figures.";
  m.attr("__version__") = POSLAB_VERSION;
  py::register_exception_translator(translate);
  // A --model ORG/NAME is fetched into Hugging Face's cache as the command line fetches it.
  install_command_line_resolver();
  define_figure(m);
  define_model(m);
  define_functions(m);
}
