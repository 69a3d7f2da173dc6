#!/usr/bin/env python3
"""The CI recipe of docs/ci.md, run as written (stdlib only): reads examples/ci/github-actions.yml
and runs its `run:` steps in order (every step but the install, which the test replaces by putting
build/bin on PATH), in a scratch clone of a small project, against a local nginx, as the default
branch would (read-write). Twice, in two fresh clones: the second run compiles nothing, its job
summary shows the remote's hits, and the pack is kept. Then examples/ci/.gitlab-ci.yml's script
and after_script lines the same way, as a merge request (read-only): nothing is uploaded.

Run alone: python3 tests/remote/test_ci_workflow.py --qdbuild build/bin/qdbuild
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import qdtest  # noqa: E402
import remote_servers as rs  # noqa: E402
import skip_policy  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CHECKS = qdtest.Checks("ci workflow")
check = CHECKS.check


def github_run_steps(path):
    """[(name, script)] of the steps with `run:`, in order (the subset of YAML the file uses:
    `- name:` items, `run: cmd` or a `run: |` block)."""
    steps = []
    name = None
    lines = open(path).read().splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        s = line.strip()
        if s.startswith("- name:") or s.startswith("- uses:"):
            name = s.split(":", 1)[1].strip() if s.startswith("- name:") else None
        if s.startswith("run:"):
            value = s[4:].strip()
            if value == "|":
                indent = None
                body = []
                i += 1
                while i < len(lines):
                    ln = lines[i]
                    if ln.strip() == "":
                        body.append("")
                        i += 1
                        continue
                    cur = len(ln) - len(ln.lstrip())
                    if indent is None:
                        indent = cur
                    if cur < indent:
                        break
                    body.append(ln[indent:])
                    i += 1
                steps.append((name, "\n".join(body) + "\n"))
                continue
            steps.append((name, value + "\n"))
        i += 1
    return steps


def gitlab_lines(path, section):
    """The `- ` items of `section:` (script, after_script) of the one job."""
    out = []
    inside = False
    for line in open(path).read().splitlines():
        s = line.strip()
        if s == section + ":":
            inside = True
            continue
        if inside:
            if s.startswith("- "):
                out.append(s[2:])
            elif s.startswith("#"):
                continue
            else:
                break
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--qdbuild", required=True)
    args = p.parse_args()
    if not rs.have_servers():
        skip_policy.skip("no-tool", "nginx (scripts/setup.sh installs it)")
    if shutil.which("git") is None:
        skip_policy.skip("no-tool", "git")
    with CHECKS.workdir("qd-ci-test-") as tmp:
        run_jobs(args, str(tmp))
    return CHECKS.finish()


def run_jobs(args, tmp):
    """The GitHub job twice and the GitLab merge request, in scratch clones under tmp."""
    nginx = rs.Nginx(tmp, users={"ci": "ci-pass"})
    try:
        # The project: examples' kernels under src/, [tool.qdbuild], committed.
        origin = os.path.join(tmp, "origin")
        os.makedirs(os.path.join(origin, "src"))
        for n in ("heat.py", "particles.py", "reduce.py"):
            shutil.copy(os.path.join(ROOT, "examples", n), os.path.join(origin, "src"))
        with open(os.path.join(origin, "pyproject.toml"), "w") as f:
            f.write('[project]\nname = "demo"\n\n[tool.qdbuild]\npaths = ["src"]\n')
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
        subprocess.run(git + ["init", "-q", origin], check=True)
        subprocess.run(git + ["-C", origin, "add", "."], check=True)
        subprocess.run(git + ["-C", origin, "commit", "-q", "-m", "demo"], check=True)

        bindir = os.path.dirname(os.path.abspath(args.qdbuild))
        workflow = os.path.join(ROOT, "examples", "ci", "github-actions.yml")
        steps = [(n, s) for n, s in github_run_steps(workflow) if n != "Install qdbuild"]
        names = [n for n, _ in steps]
        check(names == ["Check kernels", "Build kernels", "Pack the store", "Store statistics"],
              f"the workflow's run steps: {names}")

        def job(n, extra):
            clone = os.path.join(tmp, f"clone{n}")
            subprocess.run(["git", "clone", "-q", origin, clone], check=True)
            env = {k: v for k, v in os.environ.items() if not k.startswith("QDBUILD_")}
            env.update({"PATH": bindir + os.pathsep + env.get("PATH", ""),
                        "QDBUILD_STORE": "build/qdstore",
                        "QDBUILD_REMOTE": nginx.url("/ci"),
                        "HOME": tmp,
                        "GITHUB_STEP_SUMMARY": os.path.join(tmp, f"summary{n}.md")})
            env.update(extra)
            return clone, env

        writer = {"QDBUILD_REMOTE_USER": "ci", "QDBUILD_REMOTE_PASSWORD": "ci-pass"}
        results = []
        for n in (1, 2):
            clone, env = job(n, writer)
            for name, script in steps:
                r = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=clone,
                                   env=env, capture_output=True, text=True, timeout=120)
                check(r.returncode == 0, f"run {n}, step {name!r}: exit {r.returncode}\n"
                      f"{r.stdout[-1500:]}{r.stderr[-1500:]}")
            st = subprocess.run([args.qdbuild, "store", "stats", "--json", "--recent", "1"],
                                cwd=clone, env=env, capture_output=True, text=True)
            recent = json.loads(st.stdout)["builds"]["recent"] if st.returncode == 0 else {}
            results.append(recent)
            check(os.path.getsize(os.path.join(clone, "build", "kernels.qdpack")) > 0,
                  f"run {n}: the pack is kept")
            check(os.path.getsize(os.path.join(clone, "qdbuild.sarif")) > 0 and
                  json.load(open(os.path.join(clone, "qdbuild.sarif")))["version"] == "2.1.0",
                  f"run {n}: the SARIF for code scanning")
            summary = open(env["GITHUB_STEP_SUMMARY"]).read()
            check("remote cache:" in summary, f"run {n}: job summary: {summary}")
        check(results[0].get("compile_ms", 0) > 0 and results[0]["remote"]["bytes_up"] > 0,
              f"first run compiles and uploads: {results[0]}")
        check(results[1].get("compile_ms", 1) == 0 and results[1]["remote"]["hits"] > 0 and
              results[1]["remote"]["misses"] == 0, f"second run compiles nothing: {results[1]}")

        # GitLab: a merge request (read-only): script and after_script lines in one shell each.
        gl = os.path.join(ROOT, "examples", "ci", ".gitlab-ci.yml")
        clone, env = job(3, {"QDBUILD_REMOTE_READ_ONLY": "1"})
        puts = nginx.requests().get("PUT", 0)
        for section in ("script", "after_script"):
            lines = [ln for ln in gitlab_lines(gl, section) if "/opt/qdbuild" not in ln]
            r = subprocess.run(["bash", "-e", "-c", "\n".join(lines)], cwd=clone, env=env,
                               capture_output=True, text=True, timeout=120)
            check(r.returncode == 0, f"gitlab {section}: exit {r.returncode}\n{r.stderr[-1500:]}")
        check(nginx.requests().get("PUT", 0) == puts, "gitlab merge request: nothing uploaded")
        check("remote cache:" in open(os.path.join(clone, "qdbuild-store-stats.txt")).read(),
              "gitlab: store stats kept")
    finally:
        nginx.stop()


if __name__ == "__main__":
    sys.exit(main())
