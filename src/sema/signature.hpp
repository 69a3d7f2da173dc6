// Kernel signatures: every parameter classified per docs/kernel-keys.md's parameter table.
//
//   annotation                                         kind           key holds
//   qd.types.NDArray[dt, ndim] / [dt] / bare,          ndarray        dtype, ndim, needs_grad,
//   qd.types.ndarray(dtype=, ndim=, ...) / bare                        boundary, layout (a missing
//                                                                     dtype/ndim comes from an
//                                                                     instance)
//   torch.Tensor / numpy.ndarray                       torch / numpy  dtype, ndim (from instance)
//   a @dataclasses.dataclass class                     dataclass      class name, field types;
//                                                                     values of fields marked
//                                                                     FIELD_METADATA_CACHE_VALUE
//   self of a @qd.data_oriented method, or a class      data_oriented  class name, member layout;
//   annotation naming one                                             primitive values unless
//                                                                     template_primitives=False
//   qd.Template / qd.template()                        template       the instance value
//   qd.i32 ... qd.f64, int, float, bool                primitive      type
//   an enum.Enum class                                  enum           class name (+ instance
//   value) qd.types.vector/matrix, qd.math.vec3, ...          vector/matrix  shape and element
//   dtype
//   @qd.dataclass / qd.types.struct(...)               struct         class name / field types
//   qd.Tensor                                          tensor         ndarray or field at run time
//   qd.ScalarField / qd.MatrixField / qd.Field          field          - (not eligible; a warning)
// Aliases (`vec3 = qd.types.vector(3, qd.f32)`, `Arr = qd.types.NDArray[qd.f32, 1]`) are followed
// across modules. An annotation qdbuild cannot read is an error that says what it found (QD107).
#pragma once

#include <string>
#include <vector>

#include "sema/body_refs.hpp"

namespace qd::sema {

struct ParamType {
  enum class Kind : uint8_t {
    ndarray,
    torch_tensor,
    numpy_array,
    dataclass,
    data_oriented,
    template_,
    primitive,
    enum_,
    vector,
    matrix,
    struct_,
    tensor,
    field,
    any,
    invalid
  };
  Kind kind = Kind::invalid;
  std::string dtype;    // primitive / element dtype ("" when it comes from an instance)
  int32_t ndim = -1;    // ndarray; -1 when it comes from an instance
  std::string options;  // ndarray: ", needs_grad=True", ", boundary='clamp'", ...
  ClassId cls = k_none;
  std::string text;      // canonical text, e.g. "ndarray(f32, 1)", "dataclass mod.Params"
  std::string error;     // invalid: the message
  bool partial() const;  // needs an instance (template, partial ndarray, torch/numpy dtype)
};

const char* name_of(ParamType::Kind k);

struct Param {
  std::string name;
  ParamType type;
  SourceSpan span;
  bool is_self = false;
};

struct Signature {
  std::vector<Param> params;
  std::string returns;       // canonical text of the return annotation ("None" when absent)
  std::string text() const;  // "(x: ndarray(f32, 1), dt: f32) -> None"
};

Signature signature_of(const Program& p, DefId def);

// Classifies one annotation written in `module` (exposed for tests and dataclass fields).
ParamType classify_annotation(const Program& p, int32_t module,
                              const syntax::ast::Expr* annotation);

}  // namespace qd::sema
