// AST -> kernel IR for one kernel instance (docs/language.md §0): the tracer Quadrants runs
// in Python, done statically. One Lowerer per instance; not thread-safe itself, but any number
// may run concurrently over one (read-only) Program.
//
// Files: lower_kernel.cpp (entry, parameters, instance values), lower_stmt.cpp (statements,
// scopes, assignment), lower_place.cpp (places: what an assignment writes), lower_loops.cpp
// (for / while, qd.static unrolling), lower_expr.cpp (names, operators, casts, typing),
// lower_call.cpp (call dispatch, builtins, atomics), lower_math.cpp (math and numpy calls),
// lower_api.cpp (the qd.* API and its refusals), lower_func_call.cpp (qd.func inlining,
// methods), lower_tensor.cpp (vectors and matrices), lower_globals.cpp (module-level values).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/lower/lower.hpp"
#include "ir/lower/val.hpp"
#include "syntax/ast_nodes.hpp"

namespace qd::ir::lower {

namespace ast = syntax::ast;

// Thrown to abandon the instance at the first error (caught in Lowerer::run).
struct LowerError {
  ast::Pos pos;
  std::string code;
  std::string message;
  int32_t module = -1;
};

// The extent of canonical axis `axis` of ndarray parameter `param` (its physical axis under a
// permuted layout).
const Expr* canonical_shape(Kernel& k, int32_t param, int32_t axis);

// QD204's message for an assignment to `name`, bound to `b`, whose value is not a place
// (lower_place.cpp).
std::string not_assignable(const Binding& b, std::string_view name);

class Lowerer {
public:
  explicit Lowerer(const LowerInput& in);
  LowerResult run();

private:
  // --- context ---------------------------------------------------------------------------------
  using Scope = std::unordered_map<std::string, BindingRef>;
  struct Frame {
    int32_t module = -1;
    sema::DefId def = sema::k_none;
    std::vector<Scope> scopes;
    bool is_kernel = false;
    // A plain Python function called at trace time (Quadrants runs it as Python): names are
    // bound to values (no variable is created), branches need compile-time conditions.
    bool python = false;
    int32_t runtime_depth = 0;  // enclosing non-static if / for / while in this frame
    const ast::Expr* returns = nullptr;
    bool returned = false;
    std::optional<Val> ret;
  };
  struct Loop {
    enum class Kind : uint8_t { parallel, serial, static_ } kind;
    int32_t runtime_depth = 0;  // frame runtime_depth when entered (static loops)
    size_t frame = 0;
    int32_t block_dim = 0;  // parallel: qd.loop_config(block_dim=...), 0 when not given
  };
  enum class Jump : uint8_t { none, break_, continue_ };

  Frame& frame() { return m_frames.back(); }
  [[noreturn]] void fail(const ast::Pos& pos, const char* code, std::string message);
  [[noreturn]] void unsupported(const ast::Pos& pos, const std::string& construct);
  [[noreturn]] void type_error(const ast::Pos& pos, std::string message);
  Stmt* emit(StmtKind kind, const ast::Pos& pos);
  std::string line_text(int32_t line) const;

  // --- kernel (lower_kernel.cpp) ----------------------------------------------------------------
  void declare_params();
  Val template_value(const sema::Param& p, int32_t index, const ast::Pos& pos);
  // "f32" / "vector(3, f32)" / "matrix(3, 3, f32)" (int / float: the defaults).
  bool parse_dtype_text(std::string_view text, DType& dt, std::vector<int32_t>& shape) const;
  Val eval_type_text(const std::string& text, const ast::Pos& pos);  // a dtype or tensor type
  // An ndarray parameter `name` of annotation `t`, its missing dtype / ndim / layout from the
  // instance's table `v`.
  Param ndarray_param(const std::string& name, const sema::ParamType& t, const sema::ConfigValue* v,
                      const ast::Pos& pos);

  // --- dataclass arguments, template objects, classes (lower_object.cpp) ------------------------
  // The sort key of template objects' ndarray members: after every parameter of the kernel.
  static constexpr int32_t k_object_members = 1 << 20;
  struct DataclassField {
    sema::ClassId owner;
    const sema::FieldInfo* field;
  };
  // dataclasses.fields() order: base classes' fields first; a redefined field keeps its place.
  std::vector<DataclassField> dataclass_fields(sema::ClassId cls, int depth = 0);
  sema::ClassId find_class(const std::string& qualified) const;  // "pkg.mod.Class"
  // Appends a kernel parameter; `order` places it in the argument list (finish_params).
  int32_t add_param(Param p, std::vector<int32_t> order);
  void finish_params();  // the documented order, then the launch slots
  Val make_object(bool dataclass, sema::ClassId cls, std::string class_name, std::string path,
                  const sema::ConfigValue* values, std::vector<int32_t> order);
  Val object_member(const Val& base, std::string_view attr, const ast::Pos& pos);
  Val dataclass_member(Object& o, std::string_view attr, const ast::Pos& pos);
  Val template_member(Object& o, std::string_view attr, const ast::Pos& pos);
  // A recorded class or module ({__classref__} / {__module__}) as a Val; false: not one.
  bool held_reference(const sema::ConfigValue& v, const std::string& what, const ast::Pos& pos,
                      Val* out);
  // A member an object's instance does not hold, from its class's __init__ (self.a = 3, a
  // constructed member object); *ok false when the source does not give it.
  Val static_member(Object& o, std::string_view attr, bool* ok);
  // A recorded value (a member of a template object, an item of a recorded tuple) as a Val;
  // `owner`: the object holding it (what a method bound to its holder is called on).
  Val recorded_value(const std::string& where, const sema::ConfigValue& value,
                     std::vector<int32_t> order, const ast::Pos& pos, Object* owner = nullptr);
  Val class_attribute(sema::ClassId cls, std::string_view attr, const ast::Pos& pos,
                      Object* receiver = nullptr);

  // Fields (lower_field.cpp).
  Val field_member(const std::string& where, const sema::ConfigValue& given,
                   std::vector<int32_t> order, const ast::Pos& pos);
  Val struct_element(const Val& struct_field, std::vector<Val> index);
  Val struct_element_member(const Object& elem, std::string_view attr, const ast::Pos& pos);
  const Object* struct_element_of(const ast::Expr* e);  // `sf[i, j]` naming a struct element
  LValue array_lvalue(int32_t param, const Expr* flat, bool snapshot, const ast::Pos& pos);
  LValue struct_member_lvalue(const ast::Attribute* a, bool snapshot);
  void assign_struct_element(const ast::Subscript* target, const Val& value, const ast::Pos& pos);
  Val fill_array(int32_t param, const Val& value, const ast::Pos& pos);
  Val local_struct(const ast::Call* c, std::vector<Val>& args);  // qd.Struct(a=..., b=...)
  Object* local_struct_of(const ast::Expr* e);  // a name bound to a qd.Struct value, else null
  // f.n / f.m / f.ndim (a vector/matrix field's element), f.snode; *ok false: not one
  static constexpr const char* k_field_snode = "<field SNode>";
  Val field_attribute(const Val& field, std::string_view attr, const ast::Pos& pos, bool* ok);
  Val py_value(const sema::Value& v);  // enum members as their values
  // A recorded Python-scope qd.Vector / qd.Matrix member: a constant tensor of its dtype.
  Val constant_matrix(const std::string& where, const sema::ConfigValue& entries,
                      const sema::ConfigValue& given, const ast::Pos& pos);
  DType default_ip() const { return m_default_ip; }
  DType default_fp() const { return m_default_fp; }

  // --- statements (lower_stmt.cpp) ---------------------------------------------------------------
  void lower_body(const ast::Seq<ast::Stmt*>& body);   // a new scope
  void lower_stmts(const ast::Seq<ast::Stmt*>& body);  // the current scope
  void lower_stmt(const ast::Stmt* s);
  void lower_assign(const ast::Assign* s);
  void lower_ann_assign(const ast::AnnAssign* s);
  void lower_aug_assign(const ast::AugAssign* s);
  void lower_if(const ast::If* s);
  void lower_return(const ast::Return* s);
  void lower_expr_stmt(const ast::ExprStmt* s);
  void assign_to(const ast::Expr* target, const Val& value, const ast::Pos& pos,
                 std::optional<DType> annotated = std::nullopt);
  void assign_name(std::string_view name, const Val& value, const ast::Pos& pos,
                   std::optional<DType> annotated);
  Val materialize(const Val& v, const ast::Pos& pos);  // copies runtime values into fresh vars
  BindingRef declare(std::string_view name, const Val& value, const ast::Pos& pos,
                     std::optional<DType> annotated = std::nullopt);
  BindingRef find_local(std::string_view name);
  void push_scope() { frame().scopes.emplace_back(); }
  void pop_scope() { frame().scopes.pop_back(); }
  bool stopped() const;

  // Lvalues (lower_place.cpp): a scalar variable, an array element, or a tensor of them (val.hpp).
  using LValue = lower::LValue;
  // Whether `target` names an assignable place (what lvalue() accepts), decided without
  // evaluating anything: a qd.template() argument that is one is bound by reference.
  bool is_lvalue_expr(const ast::Expr* target);
  bool is_member_array(const ast::Expr* e);  // `obj.member...` naming an ndarray
  // `snapshot`: a runtime index into a vector / matrix ndarray element is computed once, into a
  // local, so storing the element's first component cannot move where the next one goes
  // (`a[0, a[0, 0][0] % n] = v`). A template parameter bound to a place passes false: Quadrants
  // substitutes the expression, so its index is evaluated again at every use.
  LValue lvalue(const ast::Expr* target, bool snapshot = true);
  LValue lvalue_of_binding(const BindingRef& b, const ast::Expr* at);
  LValue dynamic_element(const LValue& base, const std::vector<Val>& idx, const ast::Pos& pos);
  Val read(const LValue& lv);
  void write(const LValue& lv, const Val& v, const ast::Pos& pos);
  // qd.atomic_* / augmented assignment: returns the old value(s).
  // `expected`: the compare value of an atomic cas (`v` is then the desired value).
  Val atomic(AtomicOp op, const LValue& lv, const Val& v, const ast::Pos& pos, bool want_old,
             const Val* expected = nullptr);

  // --- loops (lower_loops.cpp)
  // --------------------------------------------------------------------
  void lower_for(const ast::For* s);
  void lower_while(const ast::While* s);
  void lower_graph_loop(const ast::While* s, const ast::Call* call);  // qd.graph.do_while
  void check_graph_structure(const ast::Seq<ast::Stmt*>& stmts, bool kernel_top);
  void lower_static_for(const ast::For* s, const Val& iterable);
  bool is_static_call(const ast::Expr* e);  // qd.static(...)
  void static_iterable(const ast::For* s);  // QD205 unless the loop is under qd.static
  // `for x in qd.static((a, b[i], ...))` (or a list) with one loop variable: the display's
  // elements; nullptr for any other loop.
  const ast::Seq<ast::Expr*>* static_display(const ast::For* s);
  void lower_static_display_for(const ast::For* s, const ast::Seq<ast::Expr*>& elts);
  void lower_range_for(const ast::For* s, const Expr* begin, const Expr* end);
  void lower_ndrange_for(const ast::For* s, const Val& ndrange, bool grouped);
  void lower_break_continue(const ast::Stmt* s, bool is_break);
  const Expr* loop_bound(const Val& v, const ast::Pos& pos);
  std::vector<Val> static_items(const Val& iterable, const ast::Pos& pos);
  bool at_root() const;
  Block* enter_loop(Stmt* st, Loop::Kind kind);  // into st's body; returns the block to restore
  void leave_loop(Block* saved);

  // --- expressions (lower_expr.cpp) --------------------------------------------------------------
  Val eval(const ast::Expr* e);
  Val eval_name(const ast::Name* n);
  Val eval_attribute(const ast::Attribute* a);
  Val eval_subscript(const ast::Subscript* s);
  Val eval_binop(const ast::BinOp* b);
  Val eval_unary(const ast::UnaryOp* u);
  Val eval_compare(const ast::Compare* c);
  Val eval_boolop(const ast::BoolOp* b);
  Val eval_ifexp(const ast::IfExp* e);
  Val eval_constant(const ast::Constant* c);
  // For short-circuit `and`/`or` and `a if c else b`: temporaries of type t declared before the
  // (not yet emitted) `if` st, then st appended, each branch assigning its values.
  std::vector<const Expr*> branch_results(Stmt* st, DType t, const std::vector<const Expr*>& init,
                                          const std::vector<const Expr*>& then_values,
                                          const std::vector<const Expr*>& else_values,
                                          const ast::Pos& pos);
  Val binary(ast::Operator op, const Val& a, const Val& b, const ast::Pos& pos);
  const Expr* scalar_binary(ast::Operator op, const Expr* a, const Expr* b, const ast::Pos& pos);
  const Expr* compare(ast::CmpOperator op, const Expr* a, const Expr* b, const ast::Pos& pos);
  const Expr* to_scalar(const Val& v, const ast::Pos& pos);          // runtime scalar or py number
  const Expr* to_typed(const Val& v, DType t, const ast::Pos& pos);  // ... cast to t
  const Expr* condition(const Val& v, const ast::Pos& pos);          // integral -> u1
  bool static_truth(const Val& v, const ast::Pos& pos);              // a compile-time condition
  const Expr* array_index(int32_t param, const std::vector<Val>& indices, const ast::Pos& pos);
  // Makes `prm` (an ndarray parameter from ndarray_param) the qd.field `given` describes: its
  // recorded shape and layout (lower_field.cpp).
  void make_field(Param& prm, const sema::ConfigValue& given, const std::string& where,
                  const ast::Pos& pos);
  // The place of component k (row-major in the element) of the element at `flat`.
  const Expr* component_index(int32_t param, const Expr* flat, int32_t k);
  Val array_element(int32_t param, const Expr* flat);                // scalar or tensor element
  Val cast_val(const Val& v, DType t, const ast::Pos& pos);          // implicit casts, qd.cast
  Val construct_scalar(const Val& v, DType t, const ast::Pos& pos);  // T(x)
  int64_t static_int(const Val& v, const ast::Pos& pos, const char* what);

  // --- calls (lower_call.cpp, lower_math.cpp, lower_api.cpp, lower_func_call.cpp)
  // ----------------------------------------------------------------------
  Val eval_call(const ast::Call* c);
  Val call_api(const std::string& path, const ast::Call* c, std::vector<Val>& args);
  Val call_builtin(const std::string& name, const ast::Call* c, std::vector<Val>& args);
  Val call_math(const std::string& name, const ast::Call* c, std::vector<Val>& args);
  Val call_numpy(const std::string& name, const ast::Call* c, std::vector<Val>& args);
  Val call_atomic(const std::string& name, const ast::Call* c);
  Val call_svd(const ast::Call* c, std::vector<Val>& args);  // qd.svd (lower_svd.cpp)
  void reject_out_of_reach(const std::string& path, const ast::Pos& pos);
  // The body of the def whose frame was pushed last (m_inline_depth raised): lowered in a new
  // scope, then its frame popped and returned (its `ret`).
  Frame lower_inlined_body(const ast::Seq<ast::Stmt*>& body);
  Val call_func(sema::DefId def, const ast::Call* c, std::vector<Val>& args,
                std::vector<BindingRef>& refs, size_t bound_first = 0);
  // The binding of a by-reference name for the argument `e` (a qd.template() parameter, a
  // qd.static loop variable over a display): the caller's variable, a place (ref), or the
  // value read again at every use, not assignable (`what` names it in messages). `value`: the
  // argument's value now.
  BindingRef bind_by_reference(const ast::Expr* e, Val& value, const char* what);
  std::vector<const ast::Arg*> func_params(sema::DefId def) const;  // positional, in order
  bool is_template_param(sema::DefId def, const ast::Arg* prm);
  std::vector<bool> template_params(sema::DefId def);  // per positional parameter
  Val call_method(const Val& method, const ast::Call* c, std::vector<Val>& args);
  Val unary_math(UnOp op, const Val& v, const ast::Pos& pos, bool int_to_float, bool int_ok);
  Val min_max(bool is_max, std::vector<Val>& args, const ast::Pos& pos);
  const ast::Expr* keyword(const ast::Call* c, std::string_view name);
  Val random_value(const ast::Call* c, std::vector<Val>& args);  // qd.random(dtype)
  // qd.simt.* (lower_simt.cpp): nullopt for a path it does not know
  std::optional<Val> call_simt(const std::string& path, const ast::Call* c, std::vector<Val>& args);
  Val shared_array(const ast::Call* c, std::vector<Val>& args);
  const Expr* scan_identity(const std::string& op, const Expr* v, const ast::Pos& pos);
  std::optional<Val> block_collective(const std::string& name, const ast::Call* c,
                                      std::vector<Val>& args);
  void fence_block(const ast::Pos& pos);  // a qd.simt.block.sync()
  void require_full_mask(const Val& mask, const std::string& what, const ast::Pos& pos);
  std::optional<Val> warp_intrinsic(const std::string& name, const ast::Call* c,
                                    std::vector<Val>& args);
  std::optional<Val> subgroup_op(const std::string& name, const ast::Call* c,
                                 std::vector<Val>& args);
  const Expr* warp_op(WarpOp op, const Expr* value, const Expr* index, const ast::Pos& pos);
  const Expr* lane_id();
  const Expr* zero_i32();
  bool in_parallel_loop() const;
  // A recorded scalar: the def a "module:qualname" string names (a func held as a value), else
  // the Python value.
  Val scalar_or_func(const sema::Value& s);
  Val cast_to_annotation(const Val& v, const ast::Expr* annotation, int32_t module,
                         const ast::Pos& pos);

  // --- tensors (lower_tensor.cpp)
  // Element i of an operand broadcast against a tensor: the tensor's element, or the scalar
  // itself (as a runtime scalar); and the element type it contributes to the promotion.
  const Expr* element_of(const Val& v, int32_t i, const ast::Pos& pos);
  DType element_type(const Val& v, const ast::Pos& pos);
  // ------------------------------------------------------------------
  Val make_vector(const std::vector<Val>& items, std::optional<DType> dt, const ast::Pos& pos);
  Val make_matrix(const std::vector<Val>& rows, std::optional<DType> dt, const ast::Pos& pos);
  Val construct_tensor_type(const Val& type, std::vector<Val>& args, const ast::Pos& pos);
  Val tensor_binary(ast::Operator op, const Val& a, const Val& b, const ast::Pos& pos);
  Val tensor_unary(const Val& v, const std::function<const Expr*(const Expr*)>& f);
  Val matmul(const Val& a, const Val& b, const ast::Pos& pos);
  Val tensor_method(const Val& t, const std::string& name, std::vector<Val>& args,
                    const ast::Call* c, const ast::Pos& pos);
  Val tensor_index(const Val& t, const std::vector<Val>& idx, const ast::Pos& pos);
  // One index of a subscript: a value, or a slice with its bounds (compile-time ints).
  struct IndexItem {
    Val value;
    bool is_slice = false;
    std::optional<Val> lower, upper, step;
    ast::Pos pos;
  };
  // The indices of `x[...]`, evaluated in order; `x[None]` has none (a 0-d ndarray's element).
  std::vector<IndexItem> subscript_items(const ast::Expr* slice);
  static bool has_slice(const std::vector<IndexItem>& items);
  // Register tiles (lower_tile.cpp): qd.simt.Tile16x16 / Tile32x32 as Quadants' simt/_tile.py.
  Val tile_new(int32_t n, bool eye, const ast::Call* c, std::vector<Val>& args);
  Val array_slice(const Val& base, const std::vector<IndexItem>& items, const ast::Pos& pos);
  bool tile_assign(const ast::Expr* target, const Val& value, const ast::Pos& pos);
  bool tile_aug_assign(const ast::AugAssign* s);
  std::optional<Val> tile_method(const ast::Call* c);
  BindingRef tile_binding(const ast::Expr* e);  // a name bound to a tile, else null
  void tile_rows(const Val& proxy, int32_t n, const std::function<void(int32_t, const Expr*)>& each,
                 const ast::Pos& pos);
  void tile_load(const Binding& tile, const Val& proxy, const ast::Pos& pos);
  void tile_store(const Val& proxy, const std::vector<const Expr*>& rows, const ast::Pos& pos);
  const Expr* tile_vec(const Val& v, DType t, const ast::Pos& pos);  // qd.outer's operand
  void tile_cholesky(const Binding& tile, const Val& eps, const ast::Pos& pos);
  void tile_trsm(const Binding& b, const Binding& l, const ast::Pos& pos);
  void emit_if(const Expr* cond, const std::function<void()>& then, const ast::Pos& pos);
  void set_var(int32_t var, const Expr* value, const ast::Pos& pos);
  int32_t new_local(const Expr* init, const ast::Pos& pos);  // a fresh variable = init
  // min(stop, the extent of arr's canonical axis), in a local.
  const Expr* clip_to_extent(int32_t arr, int32_t axis, const Expr* stop, const ast::Pos& pos);
  const Expr* tile_row(const Val& proxy, const ast::Pos& pos);  // the slice's row start + lane
  std::vector<Val> index_values(const std::vector<IndexItem>& items);  // no slices among them
  // The element indices a slice selects along an axis of `n` (Quadrants' _calc_slice).
  std::vector<int64_t> slice_indices(const IndexItem& item, int64_t n, const ast::Pos& pos);
  // v[a:b], m[i, :], m[:, j], m[a:b, c:d]: the selected elements' indices per axis (one entry
  // for a non-slice index), and the result's shape.
  struct SliceSelection {
    std::vector<std::vector<Val>> axes;  // per axis: the indices (ints, or one runtime value)
    int32_t rows = 0, cols = 0;          // cols == 0: a vector
  };
  SliceSelection select_slices(int32_t rows, int32_t cols, const std::vector<IndexItem>& items,
                               const ast::Pos& pos);
  Val tensor_slice(const Val& t, const std::vector<IndexItem>& items, const ast::Pos& pos);
  Val python_slice(const Val& base, const std::vector<IndexItem>& items, const ast::Pos& pos);
  Val call_fill(const ast::Attribute* a, const ast::Call* c);
  Val det_inverse(const Val& t, bool inverse, const ast::Pos& pos);
  Val swizzle(const Val& t, std::string_view attr, const ast::Pos& pos, bool* ok);
  Val as_tensor(const Val& v, const ast::Pos& pos);  // tuple/list of scalars -> vector
  Val tensor_cast(const Val& t, DType dt, const ast::Pos& pos);
  Val reduce(const Val& t, BinOp op, const ast::Pos& pos);
  Val dot(const Val& a, const Val& b, const ast::Pos& pos);

  // --- print (lower_print.cpp)
  // ------------------------------------------------------------------------
  struct PrintLine {
    std::string format;  // printf format: text with '%' doubled, one conversion per argument
    std::vector<const Expr*> args;
  };
  Val call_print(const ast::Call* c, std::vector<Val>& args);
  Val eval_joined_str(const ast::JoinedStr* j);
  Val format_string(const std::string& text, const ast::Call* c, std::vector<Val>& args);
  Val make_formatted(std::vector<Val> pieces, const ast::Pos& pos);
  void print_piece(const Val& v, const std::string* spec, PrintLine& line, const ast::Pos& pos);
  std::string print_conversion(DType t, const std::string* spec, const ast::Pos& pos);
  std::string python_str(const Val& v, const ast::Pos& pos);

  // --- globals (lower_globals.cpp)
  // ------------------------------------------------------------------
  Val global(int32_t module, std::string_view name, const ast::Pos& pos);
  Val from_entity(const sema::Entity& e, const ast::Pos& pos, std::string_view what,
                  int32_t via_module = -1);
  Val member(const Val& base, std::string_view attr, const ast::Pos& pos);
  Val api_constant(const std::string& path, const ast::Pos& pos, bool* ok);
  Val eval_module_expr(int32_t module, const ast::Expr* e);
  std::optional<DType> dtype_of_api(const std::string& path) const;
  static std::string api_path(std::string_view path);  // "quadrants.math.pi" -> "math.pi"

  LowerInput m_in;
  std::unique_ptr<Kernel> m_kernel;
  std::vector<Frame> m_frames;
  std::vector<Loop> m_loops;
  Block* m_block = nullptr;
  Block* m_graph_body = nullptr;  // the innermost graph loop's body being lowered (at_root)
  bool m_graph_checked = false;   // the kernel's graph structure checked (check_graph_structure)
  Jump m_jump = Jump::none;
  bool m_pending_serialize = false;
  int64_t m_pending_block_dim = 0;  // qd.loop_config(block_dim=N) for the next loop
  int32_t m_shared_count = 0;       // qd.simt.block.SharedArray params made so far
  int64_t m_shared_bytes = 0;       // and their bytes per block
  DType m_default_ip = DType::i32;
  DType m_default_fp = DType::f32;
  int32_t m_inline_depth = 0;
  std::vector<std::vector<int32_t>> m_param_order;  // per parameter: its sort key
};

}  // namespace qd::ir::lower
