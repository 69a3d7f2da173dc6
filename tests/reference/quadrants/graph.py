"""qd.graph: graph kernels, `@qd.kernel(graph=True)` with `while qd.graph.do_while(flag):` loops.

What the stand-in runs is what Quadrants 1.3.3 runs on the CPU (and on CUDA below sm_90): the
loop's body once, then again while flag[()] is non-zero, the flag read after each pass
(quadrants/lang/misc.py graph_do_while; the host repeats the body's tasks). Statements before and
after the loop at the kernel top level run once. The structural rules and their messages follow
Quadrants' compiler: FunctionDefTransformer._validate_graph_do_while_structure (which statements a
kernel that uses the loop may hold), ASTTransformer._is_graph_do_while_call / build_While (the
flag is a name or an attribute chain; graph=True; not inside a for-loop) and
ndarray_arg_resolver.resolve_ndarray_kernel_arg_id (the flag is an ndarray kernel parameter, or a
member of a dataclass parameter). Both spellings are recognized by their source text, as
ast_transformers/graph_api.py does: `qd.graph.do_while` and the deprecated `qd.graph_do_while`
(a DeprecationWarning).

Refused (NotImplementedError), where Quadrants does something the stand-in does not model:
`checkpoints=True` / `qd.checkpoint`, `qd.graph.parallel_context` / `qd.graph.parallel`; a
do_while loop inside a runtime `if` or `while` (Quadrants 1.3.3 compiles one inside an `if`
and runs its body only once); a flag that is not a 0-dim qd.i32 ndarray (Quadrants reads the
first 4 bytes of any ndarray as an i32); a flag that is a member of a data_oriented object (the
stand-in has no ndarray members there); a kernel local declared before the loop and changed in
its body (Quadrants 1.3.3 does not carry it to the next pass: `k = 5` before the loop and
`k = k + 1` in the body, every pass sees 5)."""

import ast
import warnings

from . import dtypes as dt
from .lang.exception import QuadrantsSyntaxError
from .ndarray import ArrayArg
from .values import Cell, Scalar, Tensor

# Canonical attribute name under qd.graph -> the deprecated flat qd.<name> spelling.
_FLAT_NAME = {"do_while": "graph_do_while", "parallel_context": "graph_parallel_context",
              "parallel": "graph_parallel"}


def _value_is_graph(value):
    if isinstance(value, ast.Attribute):
        return value.attr == "graph"
    return isinstance(value, ast.Name) and value.id == "graph"


def is_deprecated_spelling(func, name):
    flat = _FLAT_NAME[name]
    return (isinstance(func, ast.Attribute) and func.attr == flat) or (
        isinstance(func, ast.Name) and func.id == flat)


def matches(func, name):
    """Whether the callee `func` (an AST) spells qd.graph.<name> or qd.graph_<name>."""
    if isinstance(func, ast.Attribute) and func.attr == name and _value_is_graph(func.value):
        return True
    return is_deprecated_spelling(func, name)


def is_do_while_loop(stmt):
    return isinstance(stmt, ast.While) and isinstance(stmt.test, ast.Call) and \
        matches(stmt.test.func, "do_while")


def flag_node(test):
    """The flag's AST of `while qd.graph.do_while(flag):` (a Name or an Attribute chain), else
    None: then the test is an ordinary call (ASTTransformer._is_graph_do_while_call)."""
    if not isinstance(test, ast.Call) or not matches(test.func, "do_while"):
        return None
    if len(test.args) == 1 and isinstance(test.args[0], (ast.Name, ast.Attribute)):
        return test.args[0]
    return None


def _is_checkpoint_with(stmt):
    if not isinstance(stmt, ast.With) or len(stmt.items) != 1:
        return False
    call = stmt.items[0].context_expr
    if not isinstance(call, ast.Call):
        return False
    f = call.func
    return (isinstance(f, ast.Attribute) and f.attr == "checkpoint") or (
        isinstance(f, ast.Name) and f.id == "checkpoint")


def _is_with_of(stmt, name):
    if not isinstance(stmt, ast.With) or len(stmt.items) != 1:
        return False
    call = stmt.items[0].context_expr
    return isinstance(call, ast.Call) and matches(call.func, name)


def refused_with(stmt):
    """The name of a graph construct opened by this `with` statement (refused by the stand-in),
    else None."""
    if _is_checkpoint_with(stmt):
        return "qd.checkpoint"
    for name in ("parallel_context", "parallel"):
        if _is_with_of(stmt, name):
            return f"qd.graph.{name}"
    return None


def validate_kernel_body(body):
    """FunctionDefTransformer._validate_graph_do_while_structure: a kernel that uses
    qd.graph.do_while() anywhere may hold, at its top level and in do_while bodies (and the
    branches of an `if` there), only for-loops, do_while loops (without `else`), expression
    statements and (augmented / annotated) assignments."""
    if any(is_do_while_loop(n) for stmt in body for n in ast.walk(stmt)):
        _validate_stmt_list(body, is_kernel_top=True)


def _validate_stmt_list(stmts, is_kernel_top):
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, ast.For):
            continue  # a task; its body is ordinary loop code
        if is_do_while_loop(stmt):
            if stmt.orelse:
                raise QuadrantsSyntaxError(
                    "'else' clause for 'while' not supported in Quadrants kernels")
            _validate_stmt_list(stmt.body, is_kernel_top=False)
            continue
        if isinstance(stmt, (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign)):
            continue
        if isinstance(stmt, ast.If):
            _validate_stmt_list(stmt.body, is_kernel_top)
            _validate_stmt_list(stmt.orelse, is_kernel_top)
            continue
        if _is_checkpoint_with(stmt):
            _validate_stmt_list(stmt.body, is_kernel_top)  # (then refused when it runs)
            continue
        if _is_with_of(stmt, "parallel_context"):
            continue  # refused when it runs
        where = "the kernel body" if is_kernel_top else "a qd.graph.do_while() body"
        kind = type(stmt).__name__
        raise QuadrantsSyntaxError(
            f"When a kernel uses qd.graph.do_while(), {where} may not contain a {kind} "
            f"statement. Allowed: for-loops, qd.graph.do_while() while-loops, bare assignments, "
            f"and @qd.func calls (freely mixed and nested). [offending stmt {i}: {kind}]")


def _resolve_flag(interp, node):
    """The flag's ndarray (resolve_ndarray_kernel_arg_id: any failure to build the expression, or
    a value that is not an ndarray kernel argument, is the same error)."""
    label = ast.unparse(node)
    bad = QuadrantsSyntaxError(
        f"qd.graph.do_while(...) got {label!r} which does not resolve to an ndarray kernel "
        f"parameter of {interp.ctx.kernel_name!r}. The argument must reference an ndarray kernel "
        f"parameter (e.g. `flag`) or a @qd.data_oriented member ndarray (e.g. `self.flag`); other "
        f"expressions are not supported.")
    try:
        value = interp.eval(node)
    except Exception as e:  # noqa: BLE001 - any resolution failure is the user's misuse
        raise bad from e
    if isinstance(value, ArrayArg):
        if value.dtype is not dt.i32 or value.array_shape != () or value.elem_type is not None:
            raise NotImplementedError(
                f"qd.graph.do_while()'s flag {label!r} is a {len(value.array_shape)}-dim "
                f"{value.elem_type or value.dtype} ndarray: the stand-in takes a 0-dim qd.i32 "
                f"ndarray (real Quadrants 1.3.3 reads the first 4 bytes of any ndarray as an i32)")
        return value
    if not isinstance(value, (Scalar, Tensor, Cell)) and _is_buffer(value):
        raise NotImplementedError(
            f"qd.graph.do_while({label}): an ndarray member of a data_oriented object is not "
            f"supported by the stand-in (pass the flag as a kernel ndarray parameter or a member "
            f"of a dataclass parameter)")
    raise bad


def _is_buffer(value):
    try:
        memoryview(value)
    except TypeError:
        return False
    return True


def _snapshot(value):
    if isinstance(value, Scalar):
        return (value.dtype, value.v)
    if isinstance(value, Tensor):
        return (value.dtype, value.shape) + tuple(value.data)
    return (value,)


def _changed(before, after):
    """Whether two snapshots differ (a NaN is unchanged when it stays a NaN)."""
    return len(before) != len(after) or not all(
        a == b or (a != a and b != b) for a, b in zip(before, after))


def _outer_locals(interp):
    """The kernel (or func) locals declared before the loop: (name, cell, value at the entry)."""
    out = []
    for scope in interp.scopes:
        for name, entry in scope.items():
            if type(entry) is Cell:  # not a place or lazy value bound to a func parameter
                out.append((name, entry, _snapshot(entry.value)))
    return out


def run_do_while(interp, node, flag_ast):
    """`while qd.graph.do_while(flag): body` (ASTTransformer.build_While, then the host loop)."""
    from .interpreter import BreakSignal, ContinueSignal

    ctx = interp.ctx
    if node.orelse:
        raise QuadrantsSyntaxError("'else' clause for 'while' not supported in Quadrants kernels")
    if is_deprecated_spelling(node.test.func, "do_while"):
        warnings.warn("qd.graph_do_while() is deprecated and will be removed in a future release; "
                      "use qd.graph.do_while() instead.", DeprecationWarning, stacklevel=2)
    if not ctx.graph:
        raise QuadrantsSyntaxError("qd.graph.do_while() requires @qd.kernel(graph=True)")
    if ctx.loop_depth:
        raise QuadrantsSyntaxError(
            "qd.graph.do_while() must be at the kernel top level or directly nested inside "
            "another qd.graph.do_while(); it cannot appear inside a for-loop.")
    if ctx.control_depth:
        raise NotImplementedError(
            f"qd.graph.do_while() inside a runtime if or while (line {node.lineno}) is not "
            f"supported by the stand-in (real Quadrants 1.3.3 compiles it inside an if and runs "
            f"its body only once); put the loop at the kernel top level or directly inside "
            f"another qd.graph.do_while()")
    flag = _resolve_flag(interp, flag_ast)
    outer = _outer_locals(interp)
    while True:
        try:
            interp.run_graph_body(node.body)
        except (BreakSignal, ContinueSignal):
            raise SyntaxError("break / continue directly in a qd.graph.do_while() body is not "
                              f"supported (line {node.lineno})") from None
        for name, cell, before in outer:
            if _changed(before, _snapshot(cell.value)):
                raise NotImplementedError(
                    f"the local '{name}', declared before the qd.graph.do_while() loop of line "
                    f"{node.lineno}, changes in its body: real Quadrants 1.3.3 does not carry a "
                    f"kernel local from one pass to the next (each pass sees its value at the "
                    f"loop's entry), the stand-in refuses it; keep loop-carried state in an "
                    f"ndarray")
        if flag.load(()).v == 0:
            return


def graph_do_while(condition):
    """Only recognized, by its spelling, as the test of a while loop (see run_do_while)."""
    raise SyntaxError(
        "qd.graph.do_while() is recognized only as the test of a while loop whose one argument "
        "is the flag by name or attribute chain (`while qd.graph.do_while(flag):`); real Quadrants "
        "1.3.3 compiles any other use as an ordinary call evaluated at compile time, the stand-in "
        "refuses it")


def _refused(name):
    def construct(*_args, **_kwargs):
        raise NotImplementedError(f"{name} is not supported by the reference stand-in")
    construct.__name__ = name.rsplit(".", 1)[-1]
    return construct


do_while = graph_do_while
parallel_context = graph_parallel_context = _refused("qd.graph.parallel_context")
parallel = graph_parallel = _refused("qd.graph.parallel")
checkpoint = _refused("qd.checkpoint")
