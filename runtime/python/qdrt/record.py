"""Recording the kernel instances an unchanged Quadrants app calls (docs/record.md).

  python -m qdrt.record -o FILE [--append] -- SCRIPT [ARGS...]
  QDRT_RECORD=FILE python app.py          (with runtime/python on PYTHONPATH: sitecustomize)

The app runs under the real Quadrants, unchanged. Each time Quadrants materializes a new
instance of a kernel (its first call with new argument types or template values), the recorder
writes down a portable description of that call's arguments; later calls of the instance cost
nothing. It also records the run-time configuration: the module-level names of the app's
packages that changed after their module was imported (`gs.qd_float`, `gs.EPS`, ... set by
`gs.init()`), that a function of the module rebinds through `global`, or that no top-level
statement of the module binds (set through `globals()[name] = ...`, as `gs.cpu`), with their
values at the time the kernels were compiled. At exit the record is
merged into FILE (a lock serializes processes that share it) as stable, sorted JSON.

The descriptions of arguments are qdrt.describe's. Nothing here imports the app or needs qdbuild
or libqdrt."""

import ast
import atexit
import enum
import fcntl
import importlib.abc
import importlib.util
import json
import os
import sys
import threading

from qdrt.describe import (capture, describe_param, describe_type, describe_value, dtype_name,
                           kernel_id, module_source, patch_attributes)

FORMAT = "qdrt-record 1"

_state = None


# --- run-time configuration -------------------------------------------------------------------

def _simple(v):
    """A description of a module global worth recording (numbers, strings, bools, None, enums,
    Quadrants types), else None."""
    if v is None or isinstance(v, (bool, int, float, str, enum.Enum)):
        return describe_value(v)
    if type(v).__module__ == "numpy" and getattr(v, "ndim", 1) == 0:
        return describe_value(v)
    t = describe_type(v)
    if t is not None:
        return t
    return None


_ABSENT = object()


def _snapshot(module):
    out = {}
    for k, v in list(getattr(module, "__dict__", {}).items()):
        if k.startswith("__"):
            continue
        d = _simple(v)
        out[k] = json.dumps(d, sort_keys=True) if d is not None else _ABSENT
    return out


_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def _stored_names(node, out):
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
        elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
            out.add(n.name)


def _bound_at_top(stmts, out):
    """Names that the module-level statements `stmts` bind (inside if / try / for / with blocks
    too; not in function or class bodies)."""
    for st in stmts:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(st.name)
            continue
        if isinstance(st, (ast.Import, ast.ImportFrom)):
            for a in st.names:
                if a.name == "*":
                    out.add(("*", st.level, st.module or ""))  # resolved by _runtime_names
                else:
                    out.add((a.asname or a.name).split(".")[0])
            continue
        for field, value in ast.iter_fields(st):
            if field in _BLOCKS:
                continue
            for v in value if isinstance(value, list) else [value]:
                if isinstance(v, ast.AST):
                    _stored_names(v, out)
        for block in ("body", "orelse", "finalbody"):
            _bound_at_top(getattr(st, block, None) or [], out)
        for h in getattr(st, "handlers", None) or []:
            if h.name:
                out.add(h.name)
            _bound_at_top(h.body, out)
        for c in getattr(st, "cases", None) or []:
            _stored_names(c.pattern, out)
            _bound_at_top(c.body, out)


def _runtime_names(module):
    """(bound, rebound): the names the module's top level binds, and those a function of it
    rebinds through `global`; None when its source cannot be read."""
    path = getattr(module, "__file__", None)
    if not path or not path.endswith(".py"):
        return None
    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        return None
    bound = set()
    _bound_at_top(tree.body, bound)
    for star in [b for b in bound if isinstance(b, tuple)]:
        bound.discard(star)
        _, level, target = star
        try:
            package = module.__name__ if hasattr(module, "__path__") else module.__package__
            source = sys.modules.get(importlib.util.resolve_name("." * level + target, package)
                                     if level else target)
        except (ImportError, ValueError, TypeError):
            source = None
        if source is None:
            return None  # cannot tell which names the star import bound
        names = getattr(source, "__all__", None)
        bound.update(names if names is not None else
                     [k for k in vars(source) if not k.startswith("_")])
    rebound = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Global):
                    rebound.update(inner.names)
    return bound, rebound


class ImportWatch(importlib.abc.MetaPathFinder):
    """Takes a snapshot of every module's simple globals right after the module ran, and patches
    Quadrants' Kernel when quadrants.lang.kernel is imported."""

    def __init__(self, state):
        self.state = state
        self.busy = threading.local()

    def find_spec(self, name, path, target=None):
        if getattr(self.busy, "on", False):
            return None
        self.busy.on = True
        try:
            # The other finders in order, as the import system asks them: another ImportWatch among
            # them (QDRT_RECORD and QDRT_STORE both set: the recorder's and the bridge's) wraps
            # the loader too, so each sees the modules it watches for.
            spec = None
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(name, path, target)
                if spec is not None:
                    break
        finally:
            self.busy.on = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        state = self.state

        class Loader(importlib.abc.Loader):
            def create_module(self, s):
                return loader.create_module(s)

            def exec_module(self, module):
                loader.exec_module(module)
                state.imported(module)

            def __getattr__(self, attr):
                return getattr(loader, attr)

        spec.loader = Loader()
        return spec


class _State:
    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()
        self.kernels = {}      # kernel id -> {json text of an instance}
        self.snapshots = {}    # module name -> {name: json text at import}
        self.defines = {}      # "module.name" -> json text
        self.conflicts = {}    # "module.name" -> set of json texts
        self.names = {}        # module name -> _runtime_names() (parsed once)
        self.modules = {}      # module name -> {"file": ..., "root": ...} (module_source)
        self.config = None
        self.patched = False

    def imported(self, module):
        name = getattr(module, "__name__", "")
        try:
            self.snapshots[name] = _snapshot(module)
        except Exception:  # noqa: BLE001 - a module with odd globals is not watched
            pass
        if name == "quadrants.lang.kernel":
            self.patch(module)
        elif name == "quadrants.lang.ast.ast_transformer":
            patch_attributes(module)

    def patch(self, kernel_module):
        if self.patched:
            return
        kernel_cls = getattr(kernel_module, "Kernel", None)
        if kernel_cls is None or not hasattr(kernel_cls, "materialize"):
            return
        self.patched = True
        original = kernel_cls.materialize
        state = self

        def materialize(self, key=None, py_args=(), arg_features=None):
            new = key is None or key not in self.materialized_kernels
            outer = capture.reads
            capture.reads = {} if new else outer
            try:
                result = original(self, key, py_args, arg_features)
                reads = capture.reads
            finally:
                capture.reads = outer
            if new:
                try:
                    state.record(self, key, py_args, reads)
                except Exception as e:  # noqa: BLE001 - recording never breaks the app
                    print(f"qdrt.record: could not record a call of {self.func!r}: {e}",
                          file=sys.stderr)
            return result

        kernel_cls.materialize = materialize

    def record(self, kernel, key, py_args, reads=None):
        func = kernel.func
        kid = kernel_id(func)
        module = kid.split(":", 1)[0]
        if module not in self.modules:
            source = module_source(func, module)
            if source is not None:
                self.modules[module] = source
        params = {}
        for k, (meta, v) in enumerate(zip(kernel.arg_metas, py_args)):
            # A method kernel's `self` (a data_oriented solver): described by what the trace
            # read of it; the whole object graph behind a solver is not the kernel's.
            is_self = k == 0 and meta.name == "self" and reads and id(v) in reads
            params[meta.name] = describe_param(meta.annotation, v, reads if is_self else None)
        inst = {"params": params}
        mode = str(getattr(kernel, "autodiff_mode", "")).split(".")[-1]
        if mode and mode.upper() != "NONE":
            inst["autodiff"] = mode.lower()
        used = getattr(kernel, "used_py_dataclass_parameters_by_key_enforcing", {}).get(key)
        if used is not None:
            inst["used"] = sorted(used)
        obs = getattr(kernel, "src_ll_cache_observations", None)
        if obs is not None:
            inst["fastcache"] = bool(getattr(obs, "cache_key_generated", False))
        with self.lock:
            self.kernels.setdefault(kid, set()).add(json.dumps(inst, sort_keys=True))
            if self.config is None:
                self.config = _config()
            self.update_defines()

    def update_defines(self):
        """Globals of the app's modules (those that use Quadrants) that changed since the module
        was imported: what the app set at run time, as the kernels compiled now see it."""
        qd = sys.modules.get("quadrants")
        for name, snap in list(self.snapshots.items()):
            module = sys.modules.get(name)
            if module is None or name == "__main__" or name.startswith(("quadrants", "qdrt")):
                continue
            values = getattr(module, "__dict__", {})
            if qd is None or not any(v is qd for v in list(values.values())):
                continue
            if name not in self.names:
                self.names[name] = _runtime_names(module)
            bound, rebound = self.names[name] or ((), ())
            now = _snapshot(module)
            for k, text in now.items():
                if k.startswith("_") or text is _ABSENT:
                    continue
                set_at_run_time = k in rebound or (self.names[name] is not None and k not in bound)
                if not set_at_run_time and snap.get(k, _ABSENT) == text:
                    continue
                full = f"{name}.{k}"
                old = self.defines.get(full)
                if old is not None and old != text:
                    self.conflicts.setdefault(full, {old}).add(text)
                self.defines.setdefault(full, text)

    def document(self):
        doc = {"format": FORMAT, "config": self.config or {}, "kernels": {}, "defines": {}}
        if self.modules:
            doc["modules"] = dict(sorted(self.modules.items()))
        for kid, insts in self.kernels.items():
            doc["kernels"][kid] = [json.loads(t) for t in sorted(insts)]
        for k, text in self.defines.items():
            doc["defines"][k] = json.loads(text)
        for k, texts in self.conflicts.items():
            doc["defines"][k] = {"conflict": [json.loads(t) for t in sorted(texts)]}
        return doc


def _config():
    try:
        from quadrants.lang import impl

        cfg = impl.current_cfg()
        out = {}
        for k in ("default_fp", "default_ip"):
            v = getattr(cfg, k, None)
            if v is not None:
                out[k] = dtype_name(v) or str(v)
        arch = getattr(cfg, "arch", None)
        if arch is not None:
            out["arch"] = str(arch).split(".")[-1]
        for k in ("fast_math", "debug"):
            if hasattr(cfg, k):
                out[k] = bool(getattr(cfg, k))
        return out
    except Exception:  # noqa: BLE001
        return {}


# --- the file ---------------------------------------------------------------------------------

def merge(into, doc):
    """Merges record `doc` into record `into` (both parsed JSON): instances are unioned per
    kernel, defines must agree (a different value is a conflict, kept with both values)."""
    if into.get("format") not in (None, FORMAT):
        raise ValueError(f"not a {FORMAT} file (format {into.get('format')!r})")
    out = {"format": FORMAT, "config": dict(into.get("config", {})), "kernels": {},
           "defines": dict(into.get("defines", {}))}
    modules = dict(into.get("modules", {}))
    modules.update(doc.get("modules", {}))  # the later run's file for a module recorded twice
    if modules:
        out["modules"] = dict(sorted(modules.items()))
    for k, v in doc.get("config", {}).items():
        out["config"].setdefault(k, v)
    kernels = {}
    for source in (into.get("kernels", {}), doc.get("kernels", {})):
        for kid, insts in source.items():
            kernels.setdefault(kid, set()).update(json.dumps(i, sort_keys=True) for i in insts)
    out["kernels"] = {k: [json.loads(t) for t in sorted(v)] for k, v in sorted(kernels.items())}
    for k, v in doc.get("defines", {}).items():
        old = out["defines"].get(k)
        if old is None or old == v:
            out["defines"][k] = v
            continue
        values = old["conflict"] if isinstance(old, dict) and "conflict" in old else [old]
        new = v["conflict"] if isinstance(v, dict) and "conflict" in v else [v]
        texts = sorted({json.dumps(x, sort_keys=True) for x in values + new})
        out["defines"][k] = {"conflict": [json.loads(t) for t in texts]}
    out["defines"] = dict(sorted(out["defines"].items()))
    return out


def dumps(doc):
    return json.dumps(doc, sort_keys=True, indent=1) + "\n"


def write(path, doc):
    """Merges doc into the record at path under a lock, atomically."""
    lock_path = path + ".lock"
    with open(lock_path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            existing = {}
            if os.path.exists(path) and os.path.getsize(path) > 0:
                with open(path) as f:
                    existing = json.load(f)
            merged = merge(existing, doc)
            tmp = f"{path}.tmp{os.getpid()}"
            with open(tmp, "w") as f:
                f.write(dumps(merged))
            os.replace(tmp, path)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def install(path):
    """Starts recording into path (merged at exit). Idempotent."""
    global _state
    if _state is not None:
        return _state
    _state = _State(os.path.abspath(path))
    finder = ImportWatch(_state)
    sys.meta_path.insert(0, finder)
    if "quadrants.lang.kernel" in sys.modules:
        _state.patch(sys.modules["quadrants.lang.kernel"])
    for name, module in list(sys.modules.items()):
        _state.snapshots.setdefault(name, _snapshot(module))

    def at_exit():
        if _state.kernels or _state.defines:
            try:
                write(_state.path, _state.document())
            except Exception as e:  # noqa: BLE001
                print(f"qdrt.record: could not write {_state.path}: {e}", file=sys.stderr)

    atexit.register(at_exit)
    return _state


def main(argv=None):
    import argparse
    import runpy

    argv = sys.argv[1:] if argv is None else argv
    if "--" in argv:
        k = argv.index("--")
        own, rest = argv[:k], argv[k + 1:]
    else:
        own, rest = argv, []
    ap = argparse.ArgumentParser(prog="python -m qdrt.record",
                                 description="Run a Quadrants app and record the kernel "
                                             "instances it calls (docs/record.md).")
    ap.add_argument("-o", "--output", required=True, help="the record file (JSON)")
    ap.add_argument("--append", action="store_true",
                    help="merge into an existing record instead of replacing it")
    opts = ap.parse_args(own)
    if not rest:
        ap.error("give the app after --: python -m qdrt.record -o FILE -- app.py [ARGS...]")
    out = os.path.abspath(opts.output)
    if not opts.append and os.path.exists(out):
        os.remove(out)
    # Subprocesses of the app record into the same file (sitecustomize reads QDRT_RECORD).
    os.environ["QDRT_RECORD"] = out
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    pp = os.environ.get("PYTHONPATH", "")
    if here not in pp.split(os.pathsep):
        os.environ["PYTHONPATH"] = here + (os.pathsep + pp if pp else "")
    install(out)
    script = rest[0]
    sys.argv = rest
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
