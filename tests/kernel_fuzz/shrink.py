"""Shrinks a diverging generated kernel to a small reproducer (scripts/kernel_fuzz.py).

Works on the Python source with `ast`, so it needs nothing from the generator: the module is cut
down to the one kernel and the funcs it still calls, then, while the divergence persists (the
same kind: see campaign.judge), statements are deleted (in chunks, then one by one), compound
statements replaced by one of their bodies, expressions replaced by one of their operands or by
a small constant, unused kernel parameters dropped (with their arguments) and array inputs
zeroed. A candidate the references reject is simply not taken."""

import ast
import copy
import time


class Candidate:
    def __init__(self, tree, case):
        self.tree = tree
        self.case = case

    def source(self):
        return ast.unparse(self.tree) + "\n"


def is_decorated(fn, name):
    for d in fn.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        if isinstance(target, ast.Attribute) and target.attr == name:
            return True
    return False


def names_used(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def only_kernel(tree, kernel):
    """The module with one kernel and the funcs and constants it (transitively) uses."""
    tree = copy.deepcopy(tree)
    body = []
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and is_decorated(stmt, "kernel") and \
                stmt.name != kernel:
            continue
        body.append(stmt)
    tree.body = body
    return drop_unused_defs(tree)


def drop_unused_defs(tree):
    while True:
        used = set()
        for stmt in tree.body:
            if isinstance(stmt, ast.FunctionDef) and is_decorated(stmt, "kernel"):
                used |= names_used(stmt)
        for stmt in tree.body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name in used:
                used |= names_used(stmt)
        keep = []
        for stmt in tree.body:
            if isinstance(stmt, ast.FunctionDef) and not is_decorated(stmt, "kernel") and \
                    stmt.name not in used:
                continue
            if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) and t.id not in used
                                                    for t in stmt.targets):
                continue
            keep.append(stmt)
        if len(keep) == len(tree.body):
            return tree
        tree.body = keep


def stmt_lists(tree):
    """Every list of statements inside the defs, as (owner node, field name)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Module):
            continue
        for field in ("body", "orelse"):
            seq = getattr(node, field, None)
            if isinstance(seq, list) and seq and isinstance(seq[0], ast.stmt):
                out.append((node, field))
    return out


def at_path(tree, path):
    node = tree
    for step in path:
        if isinstance(step, int):
            node = node[step]
        else:
            node = getattr(node, step)
    return node


def paths_of_lists(tree):
    """Paths (from the module) to every statement list in a def, deepest last."""
    out = []

    def visit(node, path):
        for field in ("body", "orelse"):
            seq = getattr(node, field, None)
            if isinstance(seq, list) and seq and isinstance(seq[0], ast.stmt):
                if not isinstance(node, ast.Module):
                    out.append(path + [field])
                for k, child in enumerate(seq):
                    visit(child, path + [field, k])

    visit(tree, [])
    return out


def fill_empty(seq):
    if not seq:
        seq.append(ast.Pass())


def deletions(tree):
    """Trees with a chunk of statements deleted: halves first, then singles."""
    for path in paths_of_lists(tree):
        seq = at_path(tree, path)
        n = len(seq)
        size = max(n // 2, 1)
        while size >= 1:
            for start in range(0, n, size):
                t = copy.deepcopy(tree)
                s = at_path(t, path)
                del s[start:start + size]
                fill_empty(s)
                yield t
            if size == 1:
                break
            size //= 2


def unwrappings(tree):
    """Trees with a compound statement replaced by one of its bodies."""
    for path in paths_of_lists(tree):
        seq = at_path(tree, path)
        for k, stmt in enumerate(seq):
            if isinstance(stmt, (ast.If, ast.For, ast.While)):
                for field in ("body", "orelse"):
                    inner = getattr(stmt, field)
                    if not inner:
                        continue
                    t = copy.deepcopy(tree)
                    s = at_path(t, path)
                    s[k:k + 1] = copy.deepcopy(inner)
                    yield t


SMALL = [ast.Constant(0), ast.Constant(1), ast.Constant(0.5), ast.Constant(2)]


def expr_slots(tree):
    """(parent, field, index) of every expression in a def body, outermost first."""
    slots = []
    for stmt in tree.body:
        if not isinstance(stmt, ast.FunctionDef):
            continue
        for node in ast.walk(stmt):
            if isinstance(node, (ast.arguments, ast.arg)):
                continue
            for field, value in ast.iter_fields(node):
                if field in ("decorator_list", "returns", "annotation", "targets", "target"):
                    continue
                if isinstance(value, ast.expr) and not isinstance(value, ast.Constant):
                    slots.append((node, field, None))
                elif isinstance(value, list):
                    for k, v in enumerate(value):
                        if isinstance(v, ast.expr) and not isinstance(v, ast.Constant):
                            slots.append((node, field, k))
    return slots


def replacements(expr):
    out = []
    for child in ast.iter_child_nodes(expr):
        if isinstance(child, ast.expr) and not isinstance(child, (ast.Load, ast.Store)):
            out.append(child)
    if isinstance(expr, ast.Call):
        out = list(expr.args)
    if isinstance(expr, ast.Subscript):
        out = []  # an element access: replacing the base by its index is rarely valid
    return out + SMALL


def expression_edits(tree):
    index = 0
    while True:
        slots = expr_slots(tree)
        if index >= len(slots):
            return
        parent, field, k = slots[index]
        node = getattr(parent, field) if k is None else getattr(parent, field)[k]
        for rep in replacements(node):
            t = copy.deepcopy(tree)
            tp, tf, tk = expr_slots(t)[index]
            if tk is None:
                setattr(tp, tf, copy.deepcopy(rep))
            else:
                getattr(tp, tf)[tk] = copy.deepcopy(rep)
            yield t, index
        index += 1


def kernel_def(tree, kernel):
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == kernel:
            return stmt
    return None


def param_drops(tree, case, kernel):
    """(tree, case) without one kernel parameter the body no longer uses."""
    fn = kernel_def(tree, kernel)
    if fn is None:
        return
    used = names_used(ast.Module(body=fn.body, type_ignores=[]))
    for k, a in enumerate(fn.args.args):
        if a.arg in used:
            continue
        t = copy.deepcopy(tree)
        kernel_def(t, kernel).args.args.pop(k)
        c = copy.deepcopy(case)
        c["args"].pop(k)
        c["outputs"] = [i if i < k else i - 1 for i in c["outputs"] if i != k]
        c["tol"] = {(key if key == "return" or int(key) < k else str(int(key) - 1)): v
                    for key, v in c.get("tol", {}).items() if key == "return" or int(key) != k}
        c.get("templates", {}).pop(a.arg, None)
        yield t, c


def input_simplifications(case):
    for k, a in enumerate(case["args"]):
        if isinstance(a, dict) and any(a["init"]):
            c = copy.deepcopy(case)
            zero = 0.0 if a["array"] in ("f32", "f64") else (False if a["array"] == "u1" else 0)
            c["args"][k]["init"] = [zero] * len(a["init"])
            yield c


def shrink(source, case, still_diverges, budget_s=180, log=None):
    """(source, case) of the smallest variant found for which still_diverges(source, case)."""
    deadline = time.monotonic() + budget_s
    kernel = case["kernel"].split(":")[1]
    tree = only_kernel(ast.parse(source), kernel)
    tries = 0

    current = [None]

    def accept(t, c):
        """Whether the variant t (with inputs c) still diverges; a variant that is not smaller
        (an edit that changed nothing) is never taken."""
        nonlocal tries
        text = ast.unparse(t) + "\n"
        if current[0] is not None and (text, c) == current[0]:
            return False
        tries += 1
        if still_diverges(text, c):
            current[0] = (text, c)
            return True
        return False

    if not accept(tree, case):
        tree = ast.parse(source)  # the cut-down module does not diverge: keep it whole
        current[0] = (ast.unparse(tree) + "\n", case)
    progress = True
    while progress and time.monotonic() < deadline:
        progress = False
        for gen in (deletions, unwrappings):
            for t in gen(tree):
                if time.monotonic() > deadline:
                    break
                t = drop_unused_defs(t)
                if accept(t, case):
                    tree = t
                    progress = True
                    break
            if progress:
                break
        if progress:
            continue
        for t, c in param_drops(tree, case, kernel):
            if accept(t, c):
                tree, case = t, c
                progress = True
                break
        if progress:
            continue
        for t, _ in expression_edits(tree):
            if time.monotonic() > deadline:
                break
            t = drop_unused_defs(t)
            if accept(t, case):
                tree = t
                progress = True
                break
        if progress:
            continue
        for c in input_simplifications(case):
            if accept(tree, c):
                case = c
                progress = True
                break
    if log:
        log(f"shrink: {tries} candidates tried")
    return ast.unparse(tree) + "\n", case
