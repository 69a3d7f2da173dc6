"""@qd.kernel and @qd.func: parse the function's source once, then interpret it per call.

Kernel arguments bind by annotation: scalars become typed values (an integer parameter rejects a
Python float), ndarrays become views of the caller's buffers, qd.Template values stay Python
values (a different value is a different instance). Module globals are read from the function's
__globals__ at call time (the stand-in has no compile cache)."""

import ast
import dataclasses
import inspect
import numbers
import textwrap
import typing

from . import dtypes as dt
from . import graph
from .interpreter import Context, Interpreter, ReturnSignal, declare_value
from .matrix import MatrixType, VectorType, as_tensor
from .lang.exception import QuadrantsSyntaxError
from .ndarray import ArrayArg, NdarrayType
from .ops import cast, constant, is_typed, typed
from .values import Cell, Scalar, Tensor


_UNSET = object()


class Template:
    """qd.Template (the class) and qd.template() (an instance) as annotations."""


def template():
    return Template()


def is_template(ann):
    return ann is Template or isinstance(ann, Template)


def _parse(fn):
    source = textwrap.dedent(inspect.getsource(fn))
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == fn.__name__:
            return node
    raise ValueError(f"cannot find the source of {fn.__qualname__}")


def _closure(fn):
    if not fn.__closure__:
        return {}
    return {n: c.cell_contents for n, c in zip(fn.__code__.co_freevars, fn.__closure__)}


class _Callable:
    def __init__(self, fn):
        self.fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self._fdef = None
        sig = inspect.signature(fn)
        self.params = list(sig.parameters.values())
        hints = dict(fn.__annotations__)
        for k, v in hints.items():
            if isinstance(v, str):
                hints[k] = eval(v, fn.__globals__)  # noqa: S307 - the user's own annotation
        self.annotations = hints

    @property
    def fdef(self):
        if self._fdef is None:
            self._fdef = _parse(self.fn)
        return self._fdef

    def __get__(self, obj, objtype=None):
        """A kernel or func of a data_oriented class, looked up on an object: bound to it (its
        `self` parameter is a template value)."""
        if obj is None:
            return self
        return BoundKernel(self, obj) if isinstance(self, Kernel) else BoundFunc(self, obj)

    def new_interpreter(self, ctx, is_kernel):
        interp = Interpreter(ctx, self.fn.__globals__, _closure(self.fn), is_kernel)
        # The names the function reads: a qd.random() drawn into a name it never reads is not
        # drawn (Quadrants' dead-code elimination drops it, and its generator does not advance).
        interp.loaded_names = {n.id for n in ast.walk(self.fdef)
                               if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        return interp

    def run_body(self, interp):
        try:
            interp.run_block(self.fdef.body, new_scope=False)
        except ReturnSignal as r:
            return r.value
        return None


def cast_return(value, ann, in_func=False):
    """The return annotation's cast. An inlined func casts only primitive types (a vector /
    matrix annotation casts and checks nothing, ast_transformer.build_Return)."""
    if ann is None or ann is inspect.Signature.empty:
        return value
    if typing.get_origin(ann) is tuple:
        return tuple(cast_return(v, a, in_func) for v, a in zip(value, typing.get_args(ann)))
    dtype = dt.dtype_of_annotation(ann)
    if dtype is not None:
        return cast(value, dtype)
    if isinstance(ann, (VectorType, MatrixType)) and in_func:
        return value
    if isinstance(ann, (VectorType, MatrixType)):
        return as_tensor(typed(value) if not isinstance(value, (list, tuple)) else value, ann)
    return value


def to_python(value):
    if isinstance(value, Scalar):
        return bool(value.v) if value.dtype is dt.u1 else value.v
    if isinstance(value, Tensor):
        if len(value.shape) == 1:
            return list(value.data)
        return [value.data[i * value.shape[1]:(i + 1) * value.shape[1]] for i in range(value.shape[0])]
    if isinstance(value, tuple):
        return tuple(to_python(v) for v in value)
    return value


class DataclassArg:
    """A dataclass kernel argument: each field bound by its annotation as a kernel parameter
    would be (ndarrays as views, scalars typed, nested dataclasses recursively); other
    attributes (ClassVar constants, methods) are the object's own."""

    def __init__(self, value, cls, path, bind):
        self._value = value
        self._members = {}
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            ann = hints.get(f.name, f.type)
            v = getattr(value, f.name)
            where = f"{path}.{f.name}"
            if ann is typing.Final or typing.get_origin(ann) is typing.Final:
                self._members[f.name] = v  # baked: a compile-time value of the instance
            elif dataclasses.is_dataclass(ann):
                self._members[f.name] = DataclassArg(v, ann, where, bind)
            else:
                self._members[f.name] = bind(where, ann, v)

    def __getattr__(self, name):
        members = self.__dict__.get("_members", {})
        if name in members:
            return members[name]
        return getattr(self.__dict__["_value"], name)


class BoundKernel:
    def __init__(self, kernel, obj):
        self.kernel = kernel
        self.obj = obj

    def __call__(self, *args, **kwargs):
        return self.kernel(self.obj, *args, **kwargs)


class BoundFunc:
    """obj.method for a @qd.func method: inlined with obj as its first parameter."""

    def __init__(self, func, obj):
        self.func = func
        self.obj = obj


class Kernel(_Callable):
    """@qd.kernel; graph=True allows `while qd.graph.do_while(flag):` (graph.py), checkpoints=True
    is refused."""

    def __init__(self, fn, graph=False, checkpoints=False):
        super().__init__(fn)
        self.graph = bool(graph)
        self.checkpoints = bool(checkpoints)

    def __call__(self, *args, **kwargs):
        if self.checkpoints:
            raise NotImplementedError(
                f"@qd.kernel({self.__name__!r}, checkpoints=True) (qd.checkpoint pause / "
                f"resume) is not supported by the reference stand-in")
        bound = inspect.signature(self.fn).bind(*args, **kwargs)
        graph.validate_kernel_body(self.fdef.body)
        interp = self.new_interpreter(Context(self.fn.__name__, self.graph), is_kernel=True)
        root = interp.scopes[0]
        for p in self.params:
            ann = self.annotations.get(p.name, inspect.Signature.empty)
            root[p.name] = self.bind_arg(p.name, ann, bound.arguments[p.name])
            if not is_template(ann):
                interp.immutable.add(p.name)
        result = self.run_body(interp)
        return to_python(cast_return(result, self.annotations.get("return")))

    def bind_arg(self, name, ann, value):
        if name == "self" and ann is inspect.Signature.empty and self.params and \
                self.params[0].name == "self":
            return value  # a data_oriented method's object: a template value
        if ann is inspect.Signature.empty:
            raise TypeError(f"kernel parameter '{name}' needs an annotation")
        if is_template(ann):
            return value
        if dataclasses.is_dataclass(ann):
            return DataclassArg(value, ann, name, self.bind_arg)
        if isinstance(ann, NdarrayType):
            return ArrayArg(value, ann, name)
        if isinstance(ann, (VectorType, MatrixType)):
            return as_tensor(value, ann)
        dtype = dt.dtype_of_annotation(ann)
        if dtype is None:
            raise TypeError(f"unsupported annotation {ann!r} on '{name}'")
        if dtype.is_int and isinstance(value, float):
            raise TypeError(f"argument '{name}': an integer parameter rejects a float ({value})")
        if not isinstance(value, numbers.Real):
            raise TypeError(f"argument '{name}': expected a number, got {type(value).__name__}")
        return constant(value, dtype)


class Func(_Callable):
    def __call__(self, *args, **kwargs):
        raise RuntimeError("a qd.func can only be called from a kernel or another func")

    def inline(self, caller, call_node, receiver=_UNSET):
        """Inlines a call: by-value copies for primitive/vector/unannotated parameters, the
        caller's own variable or object for qd.template() parameters; a bound method's object
        (`receiver`) is its first parameter."""
        callee = self.new_interpreter(caller.ctx, is_kernel=False)
        scope = callee.scopes[0]
        arg_nodes = list(call_node.args)
        kw_nodes = {k.arg: k.value for k in call_node.keywords}
        given = []
        params = self.params
        if receiver is not _UNSET:
            scope[params[0].name] = receiver
            scope.fixed.add(params[0].name)
            params = params[1:]
        for i, p in enumerate(params):
            if i < len(arg_nodes):
                given.append((p, arg_nodes[i]))
            elif p.name in kw_nodes:
                given.append((p, kw_nodes[p.name]))
            elif p.default is not inspect.Parameter.empty:
                scope[p.name] = declare_value(p.default)
            else:
                raise TypeError(f"{self.__qualname__}() missing argument '{p.name}'")
        # Quadrants builds every argument first (inlining the funcs they call), then the
        # prologue copies the by-value parameters: a variable or ndarray element passed by
        # value is read after the later arguments' funcs ran.
        later_nodes = [node for _, node in given]
        pending = []
        for k, (p, node) in enumerate(given):
            ann = self.annotations.get(p.name, inspect.Signature.empty)
            if not is_template(ann) and not isinstance(ann, NdarrayType):
                get = caller.deferred(node, later_nodes[k + 1:])
                pending.append((p, node, ann, get))
                continue
            scope[p.name] = self.bind_param(caller, node, ann)
            if is_template(ann) and not isinstance(scope[p.name], Cell):
                scope.fixed.add(p.name)
        for p, node, ann, get in pending:
            scope[p.name] = self.bind_param(caller, node, ann, value=get())
        result = self.run_body(callee)
        return cast_return(result, self.annotations.get("return"), in_func=True)

    @staticmethod
    def bind_param(caller, node, ann, value=_UNSET):
        if is_template(ann):
            return caller.bind_reference(node)
        if value is _UNSET:
            value = caller.eval(node)
        if isinstance(ann, NdarrayType) or isinstance(value, (ArrayArg, DataclassArg)):
            return value
        if isinstance(ann, (VectorType, MatrixType)):
            # A copy of the argument with its own dtype, whatever dtype the annotation names
            # (function_def_transformer: expr_init_func(data)); it must be a vector/matrix of
            # the annotated shape.
            if not isinstance(value, Tensor):
                raise SyntaxError(f"Argument of type {ann!r} is expected to be a Matrix, "
                                  f"but got {type(value).__name__}.")
            if value.shape != ann.shape:
                raise SyntaxError(f"Argument of type {ann!r} is expected to be a Matrix of "
                                  f"shape {ann.shape}, but got {value.shape}.")
            return declare_value(value)
        if ann is inspect.Signature.empty:
            return declare_value(value) if (is_typed(value) or isinstance(
                value, (bool, int, float))) else value
        return declare_value(caller.convert_to(value, ann))


def kernel(fn=None, *, graph=False, checkpoints=False, **_options):
    """@qd.kernel, @qd.kernel(graph=True), ... (pure / fastcache change nothing here)."""

    def decorate(f):
        if checkpoints and not graph:
            raise QuadrantsSyntaxError(
                f"@qd.kernel({f.__name__!r}, checkpoints=True) requires graph=True; "
                "the checkpoint resume model is only meaningful for graph kernels.")
        return Kernel(f, graph=graph, checkpoints=checkpoints)

    if fn is None:
        return decorate
    return decorate(fn)


def func(fn=None, **_options):
    if fn is None:
        return lambda f: Func(f)
    return Func(fn)


def data_oriented(cls=None, **_options):
    """@qd.data_oriented: the stand-in reads such objects' members as Python values (a
    qd.template() argument stays the object itself)."""
    if cls is None:
        return lambda c: c
    return cls
