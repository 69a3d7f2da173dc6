#!/usr/bin/env python3
"""The two wheels, installed in a fresh virtual environment, run an app's whole path (ctest
wheels_app; label wheels):

  1. scripts/wheels.sh builds build/wheels/qdrt-*.whl and qdbuild-*.whl;
  2. a new venv gets both from build/wheels alone (`pip install --no-index --find-links`, so the
     qdbuild wheel's dependency on qdrt is resolved too);
  3. tests/record/app (copied out of the checkout) runs through them, with no PYTHONPATH, no
     QDRT_LIBRARY, no QDBUILD_BACKEND and nothing of the checkout on PATH:
       qdbuild record -o rec.json -- python -m app.main ...
       qdbuild build --instances rec.json --store st    (no PATH; LLVM hidden: see below)
       QDRT_STORE=st python -m app.main ...                   (every recorded kernel served,
                                                               the same output as Quadrants)

Also checked: with neither QDRT_STORE nor QDRT_RECORD set, starting Python imports nothing of
qdrt (the .pth hook is one line that reads two variables), and recording does not import
Quadrants before the app does; qdrt and its library come from the venv; the qdbuild build runs
with every LLVM directory and library of the system hidden (a private mount namespace: tmpfs over
/usr/lib/llvm-*, /dev/null over /usr/lib/x86_64-linux-gnu/lib{LLVM,clang,lld}*), and the shared
objects its process loads are the wheel's own or the manylinux base set (LD_DEBUG=libs).
Prints each wheel's size and tag.

The third-party packages (Quadrants, numpy; for --app franka Genesis and torch) are hard-linked
into the new venv from build/venv's (build/genesis-venv's) site-packages: installing them again
would need the network and, for torch, 8 GB. Neither qdrt nor qdbuild is installed there, and the
test checks where qdrt is imported from and that nothing in the run's records, output or stats
names the checkout.

  test_wheels.py [--python build/venv/bin/python]
Exit 0 / 1; 125 (skip policy) without build/venv or build/wheel-venv.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "genesis"))
import qdtest  # noqa: E402
import skip_policy  # noqa: E402

ROOT = qdtest.ROOT
APP = ROOT / "tests" / "record"
CHECKS = qdtest.Checks("wheels")
check = CHECKS.check

# What a manylinux wheel may load from the system (auditwheel's base policy), by soname prefix.
BASE = ("libc.so", "libm.so", "libdl.so", "librt.so", "libpthread.so", "libgcc_s.so",
        "libstdc++.so", "libz.so", "libresolv.so", "libutil.so", "libcrypt.so", "ld-linux")

HIDE_LLVM = r"""
for d in /usr/lib/llvm-*; do mount -t tmpfs -o ro none "$d" || exit 90; done
for f in /usr/lib/x86_64-linux-gnu/libLLVM* /usr/lib/x86_64-linux-gnu/libclang* \
         /usr/lib/x86_64-linux-gnu/liblld*; do
  [ -f "$f" ] && { mount --bind /dev/null "$f" || exit 90; }
done
[ -z "$(ls -A /usr/lib/llvm-19)" ] || exit 91
exec "$@"
"""


def run(cmd, env, cwd, **kw):
    return subprocess.run([str(c) for c in cmd], env=env, cwd=cwd, capture_output=True,
                          text=True, **kw)


def clean_env(venv):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "QDRT_LIBRARY", "QDBUILD_BACKEND", "QDRT_STORE",
                        "QDRT_RECORD", "QDRT_STORE_STATS", "QDBUILD_STORE", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv}/bin:/usr/local/bin:/usr/bin:/bin"
    return env


def site_packages(python):
    return subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()


def build_wheels():
    p = subprocess.run([ROOT / "scripts" / "wheels.sh"], capture_output=True, text=True)
    if not check(p.returncode == 0, f"scripts/wheels.sh: exit {p.returncode}\n{p.stdout}{p.stderr[-4000:]}"):
        return None
    print(p.stdout.strip())
    wheels = {}
    for name in ("qdrt", "qdbuild"):
        found = glob.glob(str(ROOT / "build" / "wheels" / f"{name}-*.whl"))
        if check(len(found) == 1, f"one {name} wheel in build/wheels: {found}"):
            wheels[name] = found[0]
            tag = os.path.basename(found[0]).split("-", 2)[2][:-4]
            check(tag.startswith("py3-none-manylinux_"), f"{name} wheel tagged manylinux: {tag}")
    return wheels if len(wheels) == 2 else None


def loaded_objects(log):
    """Full paths of the shared objects a process initialized (LD_DEBUG=libs: 'calling init:')."""
    return {line.split("calling init:", 1)[1].strip() for line in log.splitlines()
            if "calling init:" in line}


def allowed_object(path, venv):
    if path.startswith(str(venv) + "/"):
        return True
    return os.path.dirname(path) in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
                                     "/lib64", "/usr/lib64") and \
        os.path.basename(path).startswith(BASE)


def third_party(source, target):
    """The app's third-party packages (Quadrants, numpy; Genesis, torch) from `source`, the
    site-packages of build/venv or build/genesis-venv, into the new venv's `target`: hard links
    (8.5 GB of Genesis and torch in about a second, no network), so that nothing in the run
    points into the checkout. The venv's own pip and setuptools stay; qdrt and qdbuild come only
    from the wheels."""
    own = ("pip", "setuptools", "_distutils_hack", "distutils-precedence", "qdrt", "qdbuild")
    entries = [e for e in sorted(source.iterdir())
               if e.name.split("-")[0].split(".")[0] not in own and not (target / e.name).exists()]
    try:
        for entry in entries:
            if entry.is_dir():
                shutil.copytree(entry, target / entry.name, copy_function=os.link, symlinks=True)
            else:
                os.link(entry, target / entry.name)
    except OSError as e:
        # Another file system (no hard links across it): a symbolic link per entry. Python
        # names the modules by the links' paths, so nothing in the run names the checkout still.
        print(f"hard links failed ({type(e).__name__}): symbolic links instead")
        for entry in entries:
            link = target / entry.name
            if link.is_symlink() or link.is_file():
                link.unlink()
            elif link.is_dir():
                shutil.rmtree(link)
            link.symlink_to(entry)


def build_hidden(qdbuild, env, work):
    """qdbuild build --instances rec.json --store st (no PATH) with LLVM hidden."""
    build = [qdbuild, "build", "--instances", "rec.json", "--store", "st"]
    hidden = run(["unshare", "-m", "sh", "-c", HIDE_LLVM, "sh", *build], env, work)
    if hidden.returncode in (90, 91) or "unshare" in hidden.stderr[:200]:
        if not skip_policy.may_skip_part("no-mount", "the build with LLVM hidden"):
            check(False, f"LLVM could not be hidden: {hidden.stderr}")
        hidden = run(build, env, work)
    check(hidden.returncode == 0 and "built" in hidden.stdout,
          f"qdbuild build (LLVM hidden): exit {hidden.returncode} {hidden.stdout} "
          f"{hidden.stderr[-3000:]}")
    print(hidden.stdout.strip())
    return hidden


def record_app(qdbuild, app, env, work):
    p = run([qdbuild, "record", "-o", "rec.json", "--", *app], env, work)
    check(p.returncode == 0 and "holds" in p.stdout,
          f"qdbuild record -- {' '.join(app)}: exit {p.returncode} {p.stdout} {p.stderr[-2000:]}")
    print(p.stdout.strip().splitlines()[-1] if p.stdout.strip() else "(no record)")
    return json.loads((work / "rec.json").read_text())["kernels"] \
        if (work / "rec.json").exists() else {}


def served_all(stats, recorded):
    s = json.loads(stats.read_text()) if stats.exists() else {}
    check(set(s.get("served", {})) == set(recorded) and not s.get("fallback"),
          f"every recorded kernel served, none fell back: {s}")


def run_small_app(venv, env, tmp):
    """tests/record/app, copied out of the checkout."""
    work = tmp / "app"
    shutil.copytree(APP / "app", work / "app", ignore=shutil.ignore_patterns("__pycache__"))
    qdbuild = venv / "bin" / "qdbuild"
    app = ["python", "-m", "app.main", "--variant", "1", "--calls", "2"]
    plain = run(app, env, work)
    check(plain.returncode == 0 and "variant 1 ran" in plain.stdout,
          f"the app on Quadrants: {plain.stdout} {plain.stderr[-2000:]}")
    recorded = record_app(qdbuild, app, env, work)
    check(len(recorded) >= 5, f"the record names the app's kernels: {sorted(recorded)}")
    hidden = build_hidden(qdbuild, env, work)

    # What the compiler's process loads: the wheel's objects and the base set, nothing else.
    vpy = venv / "bin" / "python"
    exe = run([vpy, "-c", "import qdbuild; print(qdbuild.executable())"], env, work).stdout.strip()
    p = run([exe, "build", "--instances", "rec.json", "--store", "st2"],
            dict(env, LD_DEBUG="libs"), work)
    objs = loaded_objects(p.stderr)
    stray = sorted(o for o in objs if not allowed_object(o, venv))
    check(p.returncode == 0 and any(o.endswith("/libqdbuild-backend.so") for o in objs)
          and not stray,
          f"qdbuild loads only the wheel's objects and the base set: exit {p.returncode}, "
          f"outside: {stray}")

    stats = work / "stats.json"
    served = run(app, dict(env, QDRT_STORE="st", QDRT_STORE_STATS=str(stats)), work)
    check(served.returncode == 0 and served.stdout == plain.stdout,
          f"the app from the store prints what it printed on Quadrants: {served.stdout!r} "
          f"vs {plain.stdout!r} {served.stderr[-2000:]}")
    served_all(stats, recorded)
    text = " ".join([served.stderr, hidden.stdout, hidden.stderr,
                     stats.read_text() if stats.exists() else "", (work / "rec.json").read_text()])
    check(str(ROOT) not in text, "no path into the checkout in the run's record, output or stats")


def run_franka(venv, env, tmp):
    """The Franka scene (tests/genesis/scenes/franka.py, copied out of the checkout): recorded,
    built with no PATH, run unchanged from the store; its trajectory against Quadrants' run
    (contact counts equal at every step, qpos/qvel within bridge_franka.py's tolerance)."""
    from bridge_franka import TOLERANCE, trajectory_difference
    work = tmp / "franka"
    work.mkdir()
    shutil.copy(ROOT / "tests" / "genesis" / "scenes" / "franka.py", work / "scene.py")
    qdbuild = venv / "bin" / "qdbuild"
    recorded = record_app(qdbuild, ["python", "scene.py", "--steps", "5", "--out", "r.json"],
                          env, work)
    check(len(recorded) >= 20, f"the record names the scene's kernels: {len(recorded)}")
    build_hidden(qdbuild, env, work)
    steps = "100"
    plain = run(["python", "scene.py", "--steps", steps, "--out", "plain.json"], env, work)
    check(plain.returncode == 0, f"the scene on Quadrants: {plain.stderr[-2000:]}")
    stats = work / "stats.json"
    served = run(["python", "scene.py", "--steps", steps, "--out", "store.json"],
                 dict(env, QDRT_STORE="st", QDRT_STORE_STATS=str(stats)), work)
    check(served.returncode == 0, f"the scene from the store: {served.stderr[-2000:]}")
    served_all(stats, recorded)
    if plain.returncode == 0 and served.returncode == 0:
        a = json.loads((work / "plain.json").read_text())
        b = json.loads((work / "store.json").read_text())
        deviation, contacts = trajectory_difference(a, b)
        worst = max((d for d, _ in deviation), default=0.0)
        print(f"trajectory: {len(a)} steps, largest qpos/qvel difference {worst:.3g}, "
              f"contact counts differ at {len(contacts)} steps")
        check(len(a) == len(b) == int(steps) and not contacts and worst <= TOLERANCE,
              f"the store's trajectory is Quadrants': {len(contacts)} contact mismatches, "
              f"{worst:.3g} > {TOLERANCE}?")
    text = " ".join([served.stderr, (work / "rec.json").read_text()
                     if (work / "rec.json").exists() else ""])
    check(str(ROOT) not in text, "no path into the checkout in the run's record or output")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--app", choices=["small", "franka"], default="small")
    ap.add_argument("--python", help="the interpreter whose third-party packages the app uses "
                    "(default: build/venv's; --app franka: build/genesis-venv's)")
    opts = ap.parse_args()
    venv_dir = "genesis-venv" if opts.app == "franka" else "venv"
    opts.python = opts.python or str(ROOT / "build" / venv_dir / "bin" / "python")
    need = "import genesis, torch" if opts.app == "franka" else "import quadrants, numpy"
    probe = subprocess.run([opts.python, "-c", need], capture_output=True) \
        if os.path.exists(opts.python) else None
    if probe is None or probe.returncode != 0:
        if opts.app == "franka":
            skip_policy.skip("no-genesis-venv", "the scene runs under the real Genesis")
        skip_policy.skip("no-quadrants-venv", "the app runs under the real Quadrants")
    if not (ROOT / "build" / "wheel-venv" / "bin" / "auditwheel").exists():
        skip_policy.skip("no-wheel-tools", "scripts/wheels.sh builds the wheels with them")
    CHECKS.name = f"wheels ({opts.app})"
    wheels = build_wheels()
    if wheels is None:
        return CHECKS.finish()
    with CHECKS.workdir("qd-wheels-") as tmp:
        venv = tmp / "venv"
        base = subprocess.run([opts.python, "-c", "import sys; print(sys._base_executable)"],
                              capture_output=True, text=True).stdout.strip()
        p = run([base, "-m", "venv", venv], os.environ.copy(), tmp)
        if not check(p.returncode == 0, f"python -m venv: {p.stderr}"):
            return CHECKS.finish()
        vpy = venv / "bin" / "python"
        third_party(Path(site_packages(opts.python)), Path(site_packages(vpy)))
        env = clean_env(venv)
        p = run([vpy, "-m", "pip", "install", "-q", "--no-index", "--find-links",
                 ROOT / "build" / "wheels", "qdbuild"], env, tmp)
        if not check(p.returncode == 0, f"pip install qdbuild from build/wheels: {p.stderr[-3000:]}"):
            return CHECKS.finish()
        p = run([vpy, "-m", "pip", "list", "--format", "json"], env, tmp)
        names = {d["name"]: d["version"] for d in json.loads(p.stdout)}
        check(names.get("qdrt") == names.get("qdbuild") and names.get("qdrt"),
              f"pip installed qdrt and qdbuild at one version: {names}")

        # The start-up hook imports nothing unless asked; recording does not import Quadrants.
        probe = "import sys; print(sorted(m for m in sys.modules if m.split('.')[0] in ('qdrt', 'quadrants')))"
        p = run([vpy, "-c", probe], env, tmp)
        check(p.returncode == 0 and p.stdout.strip() == "[]",
              f"a plain start imports nothing of qdrt or Quadrants: {p.stdout} {p.stderr}")
        p = run([vpy, "-c", probe], dict(env, QDRT_RECORD=str(tmp / "unused.json")), tmp)
        mods = p.stdout.strip()
        check(p.returncode == 0 and "'qdrt.record'" in mods and "quadrants" not in mods,
              f"QDRT_RECORD starts the recorder without importing Quadrants: {mods} {p.stderr}")
        where = "import qdrt, os; print(os.path.dirname(qdrt.__file__)); print(qdrt._library_path())"
        p = run([vpy, "-c", where], env, tmp)
        lines = p.stdout.split()
        check(len(lines) == 2 and all(l.startswith(str(venv)) for l in lines),
              f"qdrt and libqdrt come from the venv: {p.stdout} {p.stderr}")

        if opts.app == "franka":
            run_franka(venv, env, tmp)
        else:
            run_small_app(venv, env, tmp)
    return CHECKS.finish()


if __name__ == "__main__":
    sys.exit(main())
