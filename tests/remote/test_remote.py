#!/usr/bin/env python3
"""The remote cache against real servers (docs/remote.md "Tests"; stdlib only).

Starts nginx (WebDAV PUT, basic auth for writes) and redis-server on 127.0.0.1 with free ports in
a temporary directory, and a small fault proxy (tests/remote/remote_servers.py) for servers that
answer 500s, stall, corrupt or truncate bodies, or die in the middle of a build. Every build must
succeed with the same objects as a build without a remote; corruption is counted and never enters
the local store; credentials never appear in output or in the store.

Run alone: python3 tests/remote/test_remote.py --qdbuild build/bin/qdbuild
"""
import argparse
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import remote_servers as rs  # noqa: E402
import skip_policy  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SECRET = "pw-Wr0ng-7788"  # the wrong password: must never be printed or stored


class Suite:
    def __init__(self, args):
        self.args = args
        self.dir = tempfile.mkdtemp(prefix="qd-remote-test-")
        self.src = os.path.join(self.dir, "src")
        os.makedirs(self.src)
        for name in sorted(os.listdir(os.path.join(ROOT, "examples"))):
            if name.endswith(".py") and name != "app.py":
                shutil.copy(os.path.join(ROOT, "examples", name), self.src)
        self.failures = 0
        self.n = 0
        self.servers = []

    def fail(self, message):
        self.failures += 1
        print("FAIL:", message, flush=True)

    def check(self, cond, message):
        if not cond:
            self.fail(message)
        return cond

    def build(self, remote, extra_env=None, args=(), src=None):
        """A build of the sources into a fresh store; (doc, stderr, store). remote None: as the
        config file says (QDBUILD_REMOTE unset)."""
        self.n += 1
        store = os.path.join(self.dir, f"store{self.n}")
        env = {k: v for k, v in os.environ.items() if not k.startswith("QDBUILD_")}
        if remote is not None:
            env["QDBUILD_REMOTE"] = remote
        env["HOME"] = self.dir  # no ~/.netrc of the machine's
        env.update(extra_env or {})
        p = subprocess.run([self.args.qdbuild, "build", src or self.src, "--store", store, "--json",
                            "-j", "2", *args], capture_output=True, text=True, env=env,
                           timeout=120, cwd=self.dir)
        doc = None
        try:
            doc = json.loads(p.stdout)
        except ValueError:
            pass
        self.check(p.returncode == 0 and doc is not None and not doc["failed"],
                   f"build with remote {remote!r}: exit {p.returncode}\n{p.stderr[-3000:]}")
        return doc or {"tasks": {}}, p.stderr, store

    def remote_stats(self, store):
        p = subprocess.run([self.args.qdbuild, "store", "stats", "--json", "--recent", "1",
                            "--store", store], capture_output=True, text=True)
        return json.loads(p.stdout)["builds"]["recent"]["remote"]

    def objects(self, store):
        out = set()
        for root, _, files in os.walk(os.path.join(store, "objects")):
            out.update(f for f in files if f.endswith(".qdo"))
        return out

    def verified(self, store, what):
        p = subprocess.run([self.args.qdbuild, "store", "verify", "--store", store],
                           capture_output=True, text=True)
        self.check(p.returncode == 0, f"{what}: store verify failed: {p.stdout}{p.stderr}")
        self.check(self.objects(store) == self.ref_objects,
                   f"{what}: the store's objects differ from a build without a remote")

    def run(self):
        t0 = time.time()
        # The reference: no remote.
        doc, err, ref = self.build("")
        self.ref_objects = self.objects(ref)
        self.ref_compiled = doc["tasks"].get("compiled", 0)
        self.check(self.ref_compiled > 0 and "remote" not in err, "reference build")
        nginx = rs.Nginx(self.dir, users={"ci": "right"})
        redis = rs.Redis(self.dir, password="redis-pass")
        self.servers += [nginx, redis]
        auth = {"QDBUILD_REMOTE_USER": "ci", "QDBUILD_REMOTE_PASSWORD": "right"}
        self.two_stores(nginx.url("/shared"), auth, "nginx")
        self.two_stores(redis.url(1), {"QDBUILD_REMOTE_PASSWORD": "redis-pass"}, "redis")
        self.two_stores("bazel+" + nginx.url("/bz"), auth, "nginx, bazel layout")
        self.bazel_files(nginx)
        self.read_only(nginx, auth)
        self.layered(nginx, auth)
        self.config_file(nginx)
        self.credentials(nginx)
        self.signing(nginx, auth)
        self.faults(nginx, auth)
        self.redis_killed(auth)
        for s in self.servers:
            s.stop()
        print(f"remote tests: {self.n} builds in {time.time() - t0:.1f} s")

    def two_stores(self, url, env, what):
        doc1, err1, s1 = self.build(url, env)
        self.check(doc1["tasks"]["compiled"] == self.ref_compiled,
                   f"{what}: first build compiles everything: {doc1['tasks']}")
        up = self.remote_stats(s1)
        self.check(up["bytes_up"] > 0 and up["errors"] == 0, f"{what}: first build uploads: {up}")
        doc2, err2, s2 = self.build(url, env, args=("-d", "explain"))
        self.check(doc2["tasks"]["compiled"] == 0 and doc2["modules_linked"] == 0 and
                   doc2["tasks"]["fetched"] > 0,
                   f"{what}: the second store compiles and links nothing: {doc2['tasks']}, "
                   f"{doc2.get('modules_linked')} linked")
        self.check(self.objects(s1) == self.objects(s2),
                   f"{what}: the second store's objects (modules included) are not the first's")
        self.check("fetched from remote" in err2, f"{what}: -d explain names fetched tasks")
        down = self.remote_stats(s2)
        self.check(down["hits"] > 0 and down["misses"] == 0 and down["errors"] == 0 and
                   down["bytes_down"] > 0 and down["saved_ms"] >= 0,
                   f"{what}: second build's remote stats: {down}")
        # Batching: a round of records and a round of objects, not one exchange per task.
        self.check(down["requests"] <= 2 * (down["hits"] + 2), f"{what}: requests {down}")
        self.verified(s2, what)
        p = subprocess.run([self.args.qdbuild, "store", "stats", "--store", s2],
                           capture_output=True, text=True)
        self.check("remote cache:" in p.stdout, f"{what}: store stats shows the remote: {p.stdout}")

    def bazel_files(self, nginx):
        cas = os.path.join(nginx.www, "bz", "cas")
        names = os.listdir(cas) if os.path.isdir(cas) else []
        self.check(names and os.path.isdir(os.path.join(nginx.www, "bz", "ac")),
                   "bazel layout: /cas/ and /ac/")
        for n in names[:5]:
            with open(os.path.join(cas, n), "rb") as f:
                self.check(hashlib.sha256(f.read()).hexdigest() == n,
                           f"bazel layout: /cas/{n} is not the content of its address")

    def read_only(self, nginx, auth):
        before = nginx.requests().get("PUT", 0)
        self.build(nginx.url("/ro") + "|read-only", auth)
        self.build(nginx.url("/ro2"), dict(auth, QDBUILD_REMOTE_READ_ONLY="1"))
        self.check(nginx.requests().get("PUT", 0) == before and not nginx.files("ro") and
                   not nginx.files("ro2"), "read-only: nothing is uploaded")

    def layered(self, nginx, auth):
        # First hit wins: an empty read-only remote first, the warm one second.
        before = nginx.requests().get("PUT", 0)
        doc, _, _ = self.build(nginx.url("/empty") + "|read-only " + nginx.url("/shared"), auth)
        self.check(doc["tasks"]["compiled"] == 0, f"layered: served by the second: {doc['tasks']}")
        self.check(nginx.requests().get("PUT", 0) == before, "layered: nothing uploaded")

    def config_file(self, nginx):
        # [tool.qdbuild.remote] in the project's pyproject.toml; credentials refused there.
        proj = os.path.join(self.dir, "proj")
        shutil.copytree(self.src, os.path.join(proj, "src"))
        with open(os.path.join(proj, "pyproject.toml"), "w") as f:
            f.write(f'[tool.qdbuild.remote]\nurl = "{nginx.url("/shared")}"\ntimeout = 2000\n'
                    f'read-only = true\n')
        doc, _, _ = self.build(None, src=os.path.join(proj, "src"))
        self.check(doc["tasks"].get("compiled") == 0, f"config file: served: {doc['tasks']}")
        with open(os.path.join(proj, "pyproject.toml"), "w") as f:
            f.write(f'[tool.qdbuild.remote]\nurl = "http://ci:{SECRET}@127.0.0.1:{nginx.port}/x"\n')
        env = {k: v for k, v in os.environ.items() if not k.startswith("QDBUILD_")}
        p = subprocess.run([self.args.qdbuild, "build", os.path.join(proj, "src"), "--store",
                            os.path.join(self.dir, "store-cfg")], capture_output=True, text=True,
                           env=env)
        self.check(p.returncode == 1 and "credentials do not belong in a config file" in p.stderr
                   and SECRET not in p.stderr + p.stdout,
                   f"config file with credentials: exit {p.returncode}: {p.stderr[-1000:]}")

    def credentials(self, nginx):
        doc, err, store = self.build(nginx.url("/creds"), {"QDBUILD_REMOTE_USER": "ci",
                                                           "QDBUILD_REMOTE_PASSWORD": SECRET},
                                     args=("-d", "explain", "-d", "stats"))
        lines = [line for line in err.splitlines() if "refused the credentials" in line]
        self.check(len(lines) == 1, f"wrong credentials: one clear warning, got {lines}\n{err}")
        self.check(not nginx.files("creds"), "wrong credentials: nothing stored on the server")
        self.check(SECRET not in err and SECRET not in json.dumps(doc),
                   "wrong credentials: the password is printed")
        for root, _, files in os.walk(store):
            for f in files:
                with open(os.path.join(root, f), "rb") as fh:
                    self.check(SECRET.encode() not in fh.read(),
                               f"the password is stored in {os.path.join(root, f)}")
        # netrc: the right credentials from a netrc file.
        netrc = os.path.join(self.dir, "netrc")
        with open(netrc, "w") as f:
            f.write("machine 127.0.0.1 login ci password right\n")
        os.chmod(netrc, 0o600)
        self.build(nginx.url("/creds"), {"NETRC": netrc})
        self.check(len(nginx.files("creds")) > 0, "netrc credentials: uploads")

    def signing(self, nginx, auth):
        keys = os.path.join(self.dir, "keys")
        os.makedirs(keys)
        for k in ("team", "other"):
            subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out",
                            f"{keys}/{k}.pem"], check=True, capture_output=True)
            subprocess.run(["openssl", "pkey", "-in", f"{keys}/{k}.pem", "-pubout", "-out",
                            f"{keys}/{k}.pub"], check=True, capture_output=True)
        # HMAC: the writer's secret verifies, another does not.
        url = nginx.url("/hmac")
        self.build(url, dict(auth, QDBUILD_REMOTE_HMAC_KEY="team-secret"))
        doc, _, s = self.build(url, {"QDBUILD_REMOTE_HMAC_KEY": "other-secret"})
        st = self.remote_stats(s)
        self.check(doc["tasks"]["compiled"] == self.ref_compiled and st["corrupt"] > 0,
                   f"hmac: another key accepts nothing: {doc['tasks']} {st}")
        self.verified(s, "hmac, other key")
        doc, _, _ = self.build(url, {"QDBUILD_REMOTE_HMAC_KEY": "team-secret"})
        self.check(doc["tasks"]["compiled"] == 0, f"hmac: the key verifies: {doc['tasks']}")
        # Ed25519: the writer signs with the private key, readers hold the public key.
        url = nginx.url("/ed")
        self.build(url, dict(auth, QDBUILD_REMOTE_SIGNING_KEY=f"{keys}/team.pem"))
        doc, _, _ = self.build(url, {"QDBUILD_REMOTE_VERIFY_KEY": f"{keys}/team.pub"})
        self.check(doc["tasks"]["compiled"] == 0, f"ed25519: the public key verifies: {doc}")
        doc, _, s = self.build(url, {"QDBUILD_REMOTE_VERIFY_KEY": f"{keys}/other.pub"})
        self.check(doc["tasks"]["compiled"] == self.ref_compiled,
                   f"ed25519: another key accepts nothing: {doc['tasks']}")
        self.verified(s, "ed25519, other key")
        # Unsigned records (anyone with write access) are refused by a reader with a key.
        doc, _, _ = self.build(nginx.url("/shared"), {"QDBUILD_REMOTE_VERIFY_KEY":
                                                      f"{keys}/team.pub"})
        self.check(doc["tasks"]["compiled"] == self.ref_compiled,
                   f"ed25519: unsigned records refused: {doc['tasks']}")

    def faults(self, nginx, auth):
        fast = "|connect-timeout=300|timeout=400"
        cases = [("500", "500", None), ("stall", "stall", None), ("corrupt", "corrupt", None),
                 ("truncate", "truncate", None), ("truncate-short", "truncate-short", None),
                 ("killed mid-build", "pass", 6)]
        for what, mode, die_after in cases:
            proxy = rs.FaultProxy(nginx.port, mode=mode, die_after=die_after)
            self.servers.append(proxy)
            t0 = time.time()
            doc, err, s = self.build(proxy.url("/shared") + fast, auth)
            took = time.time() - t0
            st = self.remote_stats(s)
            self.verified(s, what)
            warnings = [line for line in err.splitlines() if "warning: remote cache" in line]
            self.check(len(warnings) <= 2, f"{what}: at most one warning per problem: {warnings}")
            if mode in ("500", "stall") or die_after:
                self.check(st["errors"] > 0 and any("times in a row" in w for w in warnings),
                           f"{what}: the breaker opens with one warning: {st} {warnings}")
            if mode in ("corrupt", "truncate"):
                self.check(st["corrupt"] > 0 and st["hits"] == 0 and
                           any("did not verify" in w for w in warnings),
                           f"{what}: detected and counted: {st} {warnings}")
                self.check(doc["tasks"]["compiled"] == self.ref_compiled,
                           f"{what}: every task compiled locally: {doc['tasks']}")
            if mode == "truncate-short":
                self.check(st["errors"] > 0 and st["hits"] == 0, f"{what}: errors: {st}")
            print(f"  {what}: {took:.2f} s, remote {st}", flush=True)
            proxy.stop()

    def redis_killed(self, auth):
        # A real server killed while builds run against it.
        redis = rs.Redis(self.dir)
        self.servers.append(redis)
        self.n += 1
        store = os.path.join(self.dir, f"store{self.n}")
        env = {k: v for k, v in os.environ.items() if not k.startswith("QDBUILD_")}
        env["QDBUILD_REMOTE"] = redis.url() + "|connect-timeout=300|timeout=400"
        p = subprocess.Popen([self.args.qdbuild, "build", self.src, "--store", store, "--json",
                              "-j", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=env)
        time.sleep(0.15)
        redis.proc.send_signal(signal.SIGKILL)
        out, err = p.communicate(timeout=120)
        self.check(p.returncode == 0, f"redis killed: exit {p.returncode}: {err[-2000:]}")
        self.verified(store, "redis killed")
        doc, err, s = self.build(redis.url() + "|connect-timeout=300", {})
        self.check(doc["tasks"]["compiled"] == self.ref_compiled and
                   "times in a row" in err, f"redis down: builds locally, one warning: {err}")
        self.verified(s, "redis down")


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--qdbuild", required=True)
    p.add_argument("--keep", action="store_true")
    args = p.parse_args()
    if not rs.have_servers():
        skip_policy.skip("no-tool", "nginx and redis-server (scripts/setup.sh installs them)")
    s = Suite(args)
    try:
        s.run()
    finally:
        for srv in s.servers:
            srv.stop()
    if s.failures:
        print(f"remote tests: {s.failures} failures (directory kept: {s.dir})")
        sys.exit(1)
    if not args.keep:
        shutil.rmtree(s.dir, ignore_errors=True)
    print("remote tests: passed")


if __name__ == "__main__":
    main()
