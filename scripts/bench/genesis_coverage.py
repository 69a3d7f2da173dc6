#!/usr/bin/env python3
"""How much of Genesis qdbuild compiles: all 395 kernels, each given an instance where one can be
made from the recorded scenes, then built; the rest classified by what they lack.

An instance for a kernel the scenes did not call is assembled from what the records hold: a
dataclass parameter takes the recorded description of its class (the scenes pass the same
array_class structures to many kernels), a qd.template() or partial ndarray parameter the value
recorded for a parameter of the same name (a config object, a flag). Primitive parameters need
nothing; a @qd.data_oriented method's self, the union of what the recorded method kernels of
the same class read of theirs. A kernel with a parameter none of that covers (a self of a class
no scene recorded, a template nobody recorded) is counted as "no instance" with the reason. Assembled instances are plausible,
not observed: the count says what would build given an instance, not that those instances run.

Usage: genesis_coverage.py [--records tests/genesis/franka.qdrecord.json,...] [--qdbuild PATH]
Prints: kernels, how many got an instance (recorded / assembled), built, failed by construct,
and the kernels without an instance by reason.
"""
import argparse
import ast
import collections
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PRIMITIVES = {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64", "u1", "int",
              "float", "bool", "int32", "float32", "float64", "int64"}


def site_packages():
    found = glob.glob(os.path.join(ROOT, "build", "genesis-venv", "lib", "python3*",
                                   "site-packages"))
    return found[0] if found else None


def kernels_of(site):
    """(kernel id, [(param, annotation source or None)], is_method) for every @qd.kernel."""
    out = []
    tree = os.path.join(site, "genesis")
    for dirpath, _, files in os.walk(tree):
        for f in files:
            if not f.endswith(".py"):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, site)[:-3].replace(os.sep, ".")
            module = rel[:-len(".__init__")] if rel.endswith(".__init__") else rel
            src = open(path, encoding="utf-8").read()
            mod = ast.parse(src)

            def visit(body, prefix, in_class):
                for node in body:
                    if isinstance(node, ast.ClassDef):
                        visit(node.body, prefix + node.name + ".", True)
                    elif isinstance(node, ast.FunctionDef):
                        names = [ast.unparse(d.func if isinstance(d, ast.Call) else d)
                                 for d in node.decorator_list]
                        if any(n.endswith("kernel") for n in names):
                            params = [(a.arg, ast.unparse(a.annotation) if a.annotation else None)
                                      for a in node.args.posonlyargs + node.args.args]
                            out.append((f"{module}:{prefix}{node.name}", params, in_class))
            visit(mod.body, "", False)
    return out


def merge_objects(a, b):
    """The union of two recorded object descriptions (members of both, recursively)."""
    if not (isinstance(a, dict) and isinstance(b, dict) and "object" in a and "object" in b):
        return a
    fields = dict(a.get("fields", {}))
    for k, v in b.get("fields", {}).items():
        fields[k] = merge_objects(fields[k], v) if k in fields else v
    return {**a, "fields": fields}


def knowledge(records):
    """From recorded instances: dataclass descriptions by class name, parameter values by name,
    and the union of the recorded `self` of each class's method kernels (each records only what
    its own trace read) by the class that defines them ("module:Class")."""
    by_class, by_name, recorded, by_owner = {}, {}, {}, {}
    for rec in records:
        doc = json.load(open(rec))
        for kid, insts in doc["kernels"].items():
            recorded.setdefault(kid, []).extend(insts)
            owner = kid.rsplit(".", 1)[0] if "." in kid.split(":", 1)[1] else None
            for inst in insts:
                for name, d in inst["params"].items():
                    if isinstance(d, dict) and "dataclass" in d:
                        by_class.setdefault(d["dataclass"].rsplit(".", 1)[-1], d)
                    if name == "self" and owner and isinstance(d, dict) and "template" in d:
                        have = by_owner.get(owner)
                        by_owner[owner] = d["template"] if have is None else merge_objects(
                            have, d["template"])
                        continue
                    by_name.setdefault(name, d)
    return by_class, by_name, recorded, by_owner


def assemble(kid, params, by_class, by_name, by_owner):
    """(params description, None) or (None, the reason there is none)."""
    out = {}
    for name, ann in params:
        if name == "self":
            owner = kid.rsplit(".", 1)[0]
            if owner not in by_owner:
                return None, "a @qd.data_oriented method (self) of a class no scene recorded"
            out[name] = {"template": by_owner[owner]}
            continue
        last = re.sub(r"\(.*\)$", "", ann or "").rsplit(".", 1)[-1]
        if ann is not None and last in PRIMITIVES:
            continue
        if ann is not None and last in by_class:
            out[name] = by_class[last]
            continue
        if name in by_name:
            out[name] = by_name[name]
            continue
        kind = ("a qd.template()" if ann and "template" in ann else
                "an ndarray / qd.Tensor" if ann and ("ndarray" in ann or "Tensor" in ann) else
                f"a '{ann}'")
        return None, f"{kind} parameter no scene recorded a value for"
    return out, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", default=",".join(
        os.path.join(ROOT, "tests", "genesis", f"{s}.qdrecord.json")
        for s in ("franka", "go2", "sph", "pbd", "mpm")))
    ap.add_argument("--qdbuild", default=os.path.join(ROOT, "build", "bin", "qdbuild"))
    opts = ap.parse_args()
    site = site_packages()
    if site is None:
        print("genesis_coverage: no build/genesis-venv (scripts/setup.sh)")
        return 125
    records = opts.records.split(",")
    by_class, by_name, recorded, by_owner = knowledge(records)
    kernels = kernels_of(site)
    doc = {"format": "qdrt-record 1", "kernels": {}, "defines": {}}
    for rec in records:
        doc["defines"].update(json.load(open(rec)).get("defines", {}))
    missing = collections.Counter()
    n_recorded = n_assembled = 0
    for kid, params, _ in kernels:
        if kid in recorded:
            n_recorded += 1
            continue  # the records give these
        desc, why = assemble(kid, params, by_class, by_name, by_owner)
        if desc is None:
            missing[why] += 1
            continue
        n_assembled += 1
        doc["kernels"][kid] = [{"params": desc}]
    with tempfile.TemporaryDirectory() as tmp:
        synthetic = os.path.join(tmp, "assembled.json")
        with open(synthetic, "w") as f:
            json.dump(doc, f)
        args = [opts.qdbuild, "build", "--root", site, os.path.join(site, "genesis"),
                os.path.join(site, "quadrants", "_kernels.py"),
                os.path.join(site, "quadrants", "_funcs.py"), "--store",
                os.path.join(tmp, "store")]
        for rec in records + [synthetic]:
            args += ["--instances", rec]
        p = subprocess.run(args, capture_output=True, text=True)
        if os.environ.get("QD_COVERAGE_LOG"):
            with open(os.environ["QD_COVERAGE_LOG"], "w") as f:
                f.write(p.stdout + p.stderr)
    summary = (p.stdout + p.stderr).strip().splitlines()[-1:] or ["?"]
    failures = collections.Counter()
    failed_kernels = set()
    current = None
    for line in (p.stdout + p.stderr).splitlines():
        m = re.match(r"FAILED: (\S+)", line)
        if m:
            current = m.group(1)
            failed_kernels.add(current)
            continue
        m = re.search(r": error: (.*) \[(QD\d+)\]$", line)
        if m and current:
            msg = re.sub(r"'[^']*'", "'…'", m.group(1))
            if current not in recorded and re.search(r"indexed with|out of range \(size 0\)", msg):
                # An assembled instance inherits the recorded scenes' shapes: members of features
                # they do not use are 0-d placeholders (array_class's maybe_shape), batched infos
                # are 1-d in a scene that is not heterogeneous, a same-named parameter had
                # another ndim. Not what the kernel is called with when it is called.
                msg = "(assembled) the recorded scenes' shape does not fit: " + msg
            failures[f"{m.group(2)} {msg[:140]}"] += 1
            current = None
    genesis_failed = {k for k in failed_kernels if k.startswith("genesis.")}
    given = n_recorded + n_assembled
    print(f"Genesis kernels: {len(kernels)}")
    print(f"  with an instance: {given} ({n_recorded} recorded, {n_assembled} assembled)")
    print(f"  built: {given - len(genesis_failed)}, failed: {len(genesis_failed)} "
          f"(qdbuild exit {p.returncode}: {summary[0]})")
    print("  failures by construct (first error per kernel):")
    for what, n in failures.most_common():
        print(f"    {n:4d}  {what}")
    print(f"  without an instance: {sum(missing.values())}")
    for why, n in missing.most_common():
        print(f"    {n:4d}  {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
