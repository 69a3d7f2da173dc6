"""Executes a kernel or func body (an ast.FunctionDef) statement by statement.

Plain sequential execution: top-level loops run in index order. Scoping follows
docs/language.md §2: every block (if branch, loop body) is a scope, a variable's type is
fixed at its first assignment, kernel arguments are immutable. Expression evaluation lives in
expressions.py.
"""

import ast
import copy

from . import dtypes as dt
from . import graph, random_numbers, simt, tiles
from .atomics import ATOMIC_AUG_OPS, atomic_rmw
from .expressions import ExpressionEvaluator, is_static_call
from .lvalues import coerce
from .loops import Grouped, NdRange, TypedRange, iterate, order_of, range_axes
from .ndarray import ArrayArg
from .ops import binop, cast, is_typed, truth, typed
from .scope import Scope
from .values import Cell, Scalar, Tensor

_AUG = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
        ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&",
        ast.BitOr: "|", ast.BitXor: "^"}


class BreakSignal(Exception):
    pass


class ContinueSignal(Exception):
    pass


class ReturnSignal(Exception):
    def __init__(self, value):
        super().__init__()
        self.value = value


class Context:
    """State shared by a kernel and the funcs inlined into it."""

    def __init__(self, kernel_name="kernel", graph_kernel=False):
        self.dry = 0  # > 0 while evaluating an untaken ternary side for its type only
        self.kernel_name = kernel_name
        self.graph = graph_kernel  # @qd.kernel(graph=True): qd.graph.do_while() is allowed
        self.loop_depth = 0  # runtime for-loops being run (funcs included), as Quadrants counts
        self.control_depth = 0  # runtime if / while statements being run


def declare_value(value):
    """expr_init: what a new variable holds for a first assignment of `value`."""
    if isinstance(value, Tensor):
        return Cell(value.copy())
    if isinstance(value, Scalar):
        return Cell(value)
    if isinstance(value, (bool, int, float)):
        return Cell(typed(value))
    if isinstance(value, (tuple, list)):
        return type(value)(typed(v) if isinstance(v, (bool, int, float)) else v for v in value)
    return value


def loop_scope(names, idx, grouped):
    """The scope of one iteration: the loop variables (immutable) bound to the index tuple."""
    if grouped:
        bound = {names[0]: Tensor(dt.i32, (len(idx),), idx)}
    else:
        bound = {n: Scalar(dt.i32, i) for n, i in zip(names, idx)}
    bound = Scope(bound)
    bound.fixed.update(bound)  # loop variables are immutable
    return bound


class Interpreter(ExpressionEvaluator):
    def __init__(self, ctx, fn_globals, closure, is_kernel):
        self.ctx = ctx
        self.globals = fn_globals
        self.closure = closure
        self.is_kernel = is_kernel
        self.scopes = [Scope()]
        self.immutable = set()
        self.pending_loop_config = None  # qd.loop_config(...) for the next loop
        self.loaded_names = None  # the names the function reads (kernel.py), None: unknown
        self.root_depth = 1  # len(scopes) at the kernel's top level (a do_while body is one too)

    # --- scopes ---------------------------------------------------------------------------
    def run_block(self, stmts, new_scope=True):
        if new_scope:
            self.scopes.append(Scope())
        try:
            for stmt in stmts:
                self.exec_stmt(stmt)
        finally:
            if new_scope:
                self.scopes.pop()

    def find_local(self, name):
        for scope in reversed(self.scopes):
            if name in scope:
                return scope
        return None

    def assign_name(self, name, value, node):
        if name in self.immutable:
            raise SyntaxError(f'Kernel argument "{name}" is immutable in the kernel '
                              f"(line {node.lineno})")
        scope = self.find_local(name)
        if isinstance(scope, Scope) and name in scope.fixed:
            raise SyntaxError(f"Variable '{name}' cannot be assigned. Maybe it is not a Quadrants "
                              f"object? (line {node.lineno})")
        if scope is not None and isinstance(scope[name], Cell):
            if not self.ctx.dry:
                scope[name].value = coerce(value, scope[name].value)
            return
        target = scope if scope is not None else self.scopes[-1]
        target[name] = declare_value(value)

    # --- statements -----------------------------------------------------------------------
    def exec_stmt(self, node):
        handler = getattr(self, "stmt_" + type(node).__name__, None)
        if handler is None:
            raise NotImplementedError(f"unsupported statement {type(node).__name__} "
                                      f"(line {node.lineno})")
        handler(node)

    def is_draw(self, node):
        """Whether node is a call of qd.random (whose value, unread, Quadrants never draws)."""
        if not isinstance(node, ast.Call):
            return False
        try:
            f = self.eval(node.func)
        except Exception:  # noqa: BLE001 - not a name the kernel can resolve: not qd.random
            return False
        return f is random_numbers.random

    def stmt_Expr(self, node):
        if self.is_draw(node.value):
            return  # a draw nothing reads: not drawn
        value = self.eval(node.value)
        if type(value).__name__ == "LoopConfig":
            self.pending_loop_config = value

    def stmt_Pass(self, node):
        pass

    def stmt_Assert(self, node):
        pass  # checked only with debug=True

    def stmt_Break(self, node):
        raise BreakSignal()

    def stmt_Continue(self, node):
        raise ContinueSignal()

    def stmt_Return(self, node):
        raise ReturnSignal(None if node.value is None else self.eval(node.value))

    def stmt_Assign(self, node):
        if is_static_call(node.value, self):
            value = self.eval(node.value)
            for t in node.targets:
                if not isinstance(t, ast.Name):
                    raise SyntaxError("Static assign cannot be used on elements in arrays")
                self.scopes[-1][t.id] = value
            return
        if (self.loaded_names is not None and all(
                isinstance(t, ast.Name) and t.id not in self.loaded_names for t in node.targets)
                and self.is_draw(node.value)):
            return  # drawn into names the function never reads: not drawn
        value = self.eval(node.value)
        for t in node.targets:
            self.assign(t, value)

    def stmt_AnnAssign(self, node):
        ann = self.eval(node.annotation)
        value = self.convert_to(self.eval(node.value), ann)
        if not isinstance(node.target, ast.Name):
            self.assign(node.target, value)
            return
        scope = self.find_local(node.target.id)
        if scope is not None:
            raise SyntaxError(f"variable '{node.target.id}' is already declared")
        self.scopes[-1][node.target.id] = declare_value(value)

    def assign(self, target, value):
        if isinstance(target, ast.Subscript) and self.tile_assign(target, value):
            return
        if isinstance(target, ast.Name):
            self.assign_name(target.id, value, target)
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = self.unpack(value, len(target.elts))
            for t, v in zip(target.elts, items):
                self.assign(t, v)
        else:
            self.lvalue(target).set(value)

    def tile_assign(self, target, value):
        """tile[:] = arr[r0:r1, c0:c1] and arr[r0:r1, c0:c1] = tile (tiles.py)."""
        sl = target.slice
        if isinstance(sl, ast.Slice) and sl.lower is None and sl.upper is None and sl.step is None:
            tile = self.eval(target.value)
            if isinstance(tile, tiles.Tile):
                if not isinstance(value, tiles.Slice) or value.kind != "tile":
                    raise TypeError("tile[:] takes an array's rows and columns")
                tile.load(value)
                return True
            return False
        if isinstance(value, tiles.Tile):
            dest = self.eval(target)
            if not isinstance(dest, tiles.Slice) or dest.kind != "tile":
                raise TypeError("a tile is stored into arr[r0:r1, c0:c1]")
            value.store(dest)
            return True
        return False

    @staticmethod
    def unpack(value, n):
        if isinstance(value, Tensor):
            if len(value.shape) != 1:
                raise TypeError("only 1-D vectors can be unpacked")
            items = value.elems()
        else:
            items = list(value)
        if len(items) != n:
            raise ValueError(f"cannot unpack {len(items)} values into {n} targets")
        return items

    def stmt_AugAssign(self, node):
        op = _AUG[type(node.op)]
        if isinstance(node.target, ast.Name):
            tile = self.eval(node.target)
            if isinstance(tile, tiles.Tile):
                value = self.eval(node.value)
                if op != "-" or not isinstance(value, tiles.Outer):
                    raise TypeError("a tile's only augmented assignment is tile -= qd.outer(a, b)")
                tile.sub_outer(value)
                return
        if isinstance(node.target, ast.Name) and node.target.id in self.immutable:
            raise SyntaxError(f'Kernel argument "{node.target.id}" is immutable in the kernel')
        lv = self.lvalue(node.target)
        value = self.eval(node.value)
        if op in ATOMIC_AUG_OPS:
            atomic_rmw(ATOMIC_AUG_OPS[op], lv, value)
        else:
            lv.set(binop(op, lv.get(), value))

    def stmt_If(self, node):
        if is_static_call(node.test, self):
            # Only the taken branch runs; like every block it is a scope (a name first assigned
            # in it is not visible after it).
            self.run_block(node.body if self.eval(node.test) else node.orelse)
            return
        cond = truth(self.eval(node.test), "if condition")
        self.ctx.control_depth += 1
        try:
            self.run_block(node.body if cond else node.orelse)
        finally:
            self.ctx.control_depth -= 1

    def stmt_While(self, node):
        flag = graph.flag_node(node.test)
        if flag is not None:
            graph.run_do_while(self, node, flag)  # while qd.graph.do_while(flag):
            return
        if node.orelse:
            raise SyntaxError("'else' clause for 'while' not supported")
        self.ctx.control_depth += 1
        try:
            while truth(self.eval(node.test), "while condition"):
                try:
                    self.run_block(node.body)
                except BreakSignal:
                    break
                except ContinueSignal:
                    continue
        finally:
            self.ctx.control_depth -= 1

    def run_graph_body(self, stmts):
        """One pass of a qd.graph.do_while() body: a scope whose statements are at the kernel's
        top level (its for-loops are top-level loops)."""
        self.scopes.append(Scope())
        saved, self.root_depth = self.root_depth, len(self.scopes)
        try:
            for stmt in stmts:
                self.exec_stmt(stmt)
        finally:
            self.root_depth = saved
            self.scopes.pop()

    def stmt_With(self, node):
        construct = graph.refused_with(node)
        if construct is not None:
            raise NotImplementedError(f"{construct} (line {node.lineno}) is not supported by the "
                                      f"reference stand-in")
        raise NotImplementedError(f"unsupported statement With (line {node.lineno})")

    def stmt_For(self, node):
        if node.orelse:
            raise SyntaxError("'else' clause for 'for' not supported")
        config, self.pending_loop_config = self.pending_loop_config, None
        top_level = self.is_kernel and len(self.scopes) == self.root_depth and not (
            config and config.serialize)
        display = self.static_display(node)
        if display is not None:
            # Each element binds the loop variable as a qd.template() parameter is bound.
            self.static_for(node, [self.bind_reference(e) for e in display], by_reference=True)
            return
        if is_static_call(node.iter, self):
            self.static_for(node, self.eval(node.iter))
            return
        it = self.eval(node.iter)
        targets = node.target.elts if isinstance(node.target, ast.Tuple) else [node.target]
        names = [t.id for t in targets]
        grouped = isinstance(it, Grouped)
        if isinstance(it, range):
            axes = range_axes(it)
        elif isinstance(it, (TypedRange, NdRange, Grouped)):
            axes = it.axes()
        elif isinstance(it, ArrayArg):
            axes = [(0, n) for n in it.array_shape]
        else:
            raise TypeError(f"cannot loop over {type(it).__name__} in a kernel")
        if not grouped and len(names) != len(axes):
            raise TypeError(f"{len(names)} loop targets for {len(axes)} loop axes")
        self.ctx.loop_depth += 1
        block_dim = config.block_dim if config is not None and top_level else None
        simt._tls.in_loop = getattr(simt._tls, "in_loop", 0) + (1 if top_level else 0)
        try:
            if block_dim:
                self.run_blocks(node, it, names, axes, grouped, block_dim)
            else:
                self.run_loop(node, it, names, axes, grouped, top_level)
        finally:
            self.ctx.loop_depth -= 1
            simt._tls.in_loop -= 1 if top_level else 0

    def run_blocks(self, node, it, names, axes, grouped, block_dim):
        """A top-level loop as thread blocks of block_dim iterations (simt.py): each thread runs
        its iteration on its own copy of the interpreter's scopes and context."""
        indices = list(iterate(axes, order_of(it)))
        for first in range(0, len(indices), block_dim):
            chunk = indices[first:first + block_dim]

            def thread(t, chunk=chunk):
                sub = copy.copy(self)
                sub.ctx = copy.copy(self.ctx)
                sub.scopes = list(self.scopes)
                sub.scopes.append(loop_scope(names, chunk[t], grouped))
                try:
                    sub.run_block(node.body)
                except ContinueSignal:
                    pass
                except BreakSignal:
                    raise SyntaxError("Cannot break in the outermost loop")

            simt.run_block(len(chunk), thread)

    def run_loop(self, node, it, names, axes, grouped, top_level):
        for idx in iterate(axes, order_of(it)):
            self.scopes.append(loop_scope(names, idx, grouped))
            try:
                self.run_block(node.body)
            except ContinueSignal:
                pass
            except BreakSignal:
                if top_level:
                    raise SyntaxError("Cannot break in the outermost loop")
                break
            finally:
                self.scopes.pop()

    def static_display(self, node):
        """The elements of `for x in qd.static((a, b[i], ...))` (a list, or a display without
        qd.static), None for any other loop."""
        if not isinstance(node.target, ast.Name):
            return None
        it = node.iter
        if isinstance(it, ast.Call) and len(it.args) == 1 and not it.keywords and \
                is_static_call(it, self):
            it = it.args[0]
        if not isinstance(it, (ast.Tuple, ast.List)) or any(
                isinstance(e, ast.Starred) for e in it.elts):
            return None
        return it.elts

    def bind_reference(self, node):
        """What a by-reference name bound to the argument `node` holds: the caller's variable, a
        place (an array element, a vector component), a runtime value read again at every use,
        or a compile-time value."""
        from .values import LazyValue, PlaceCell

        if isinstance(node, ast.Name):
            entry = self.lookup(node.id)
            if isinstance(entry, Cell):
                return entry  # by reference: the callee writes the caller's variable
        if self.is_place(node):
            return PlaceCell(self, node)
        value = self.eval(node)
        if isinstance(value, (Scalar, Tensor)):
            return LazyValue(self, node)
        return value

    def static_for(self, node, iterable, by_reference=False):
        # Real Quadrants 1.3.3 takes `name.id` of each loop target: a nested target such as
        # `for k, (a, b) in qd.static(enumerate(zip(...)))` fails to compile there.
        if isinstance(node.target, ast.Tuple) and not all(
                isinstance(t, ast.Name) for t in node.target.elts):
            raise SyntaxError("a for loop target must be a name or a tuple of names")
        for item in iterable:
            self.scopes.append(Scope())
            try:
                if by_reference:
                    self.scopes[-1][node.target.id] = item
                    if not isinstance(item, Cell):
                        self.scopes[-1].fixed.add(node.target.id)
                else:
                    self.bind_static_target(node.target, item)
                self.run_block(node.body, new_scope=False)
            except ContinueSignal:
                pass
            except BreakSignal:
                break
            finally:
                self.scopes.pop()

    def bind_static_target(self, target, item):
        if isinstance(target, ast.Name):
            self.scopes[-1][target.id] = item
            self.scopes[-1].fixed.add(target.id)
        else:
            for t, v in zip(target.elts, self.unpack(item, len(target.elts))):
                self.bind_static_target(t, v)

    # --- conversions ----------------------------------------------------------------------
    def convert_to(self, value, ann):
        """The cast of an annotated declaration, parameter or return."""
        from .matrix import MatrixType, VectorType, as_tensor

        dtype = dt.dtype_of_annotation(ann)
        if dtype is not None:
            return cast(value, dtype)
        if isinstance(ann, (VectorType, MatrixType)):
            return as_tensor(typed(value) if not is_typed(value) and not isinstance(
                value, (list, tuple)) else value, ann)
        return value
