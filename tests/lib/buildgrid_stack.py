"""A throw-away PostgreSQL 15 cluster and a BuildGrid 0.9.1 server (a Remote Execution API v2
server) on 127.0.0.1 with free ports, in a temporary directory (stdlib only):

    with BuildGridStack(ROOT / "build" / "buildgrid-venv") as s:
        ... "grpc://" + s.target ...

BuildGrid's scheduler needs PostgreSQL (it refuses SQLite) and does not create its tables: the
stack runs `bgd migrate apply` before `bgd server start`. PostgreSQL refuses to run as root, so
as root it runs as Debian's `postgres` system user. Both are children of the test, stopped in
order on exit (BuildGrid first: it holds pooled connections; PostgreSQL with SIGINT, a fast
shutdown). Up in about 4 s, down in under 1 s. QD_KEEP_BGD_DIR=1 keeps the directory (logs).
The config: one instance "", an in-memory CAS, an action cache, the SQL scheduler with the
platform key `qdbuild-toolchain` matched besides OSFamily and ISA, bot sessions that expire after
`keepalive` seconds; with auth=True, JWT authentication and an ACL that tells workers from
clients (token() makes their tokens). `poll`: the scheduler's, the bots' and the assigner's poll
interval in seconds (the assigner's default random extra delay of up to 1 s is turned off). With tls=True
the server speaks TLS with a self-signed certificate for 127.0.0.1 (`ca`, made with openssl)
and `url` is grpcs://.
"""
import base64
import hashlib
import hmac
import json
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import tempfile
import time

from local_servers import free_port, stop_child, wait_port

PGBIN = "/usr/lib/postgresql/15/bin"

class Postgres:
    """initdb + postgres in the foreground (a child we own). PostgreSQL refuses to run as root,
    so as root it runs as the 'postgres' system user (created by Debian's postgresql-common)."""
    def __init__(self, base):
        self.dir = os.path.join(base, "pg")
        os.makedirs(self.dir)
        self.port = free_port()
        kw = {}
        if os.geteuid() == 0:
            pw = pwd.getpwnam("postgres")
            os.chmod(base, 0o755)                      # let 'postgres' traverse to base/pg
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            kw = dict(user=pw.pw_uid, group=pw.pw_gid, extra_groups=[])
        self._kw = kw
        data = os.path.join(self.dir, "data")
        subprocess.run([f"{PGBIN}/initdb", "-D", data, "-U", "bgd", "--auth=trust", "--no-sync",
                        "-E", "UTF8", "--locale=C.UTF-8"], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, **kw)
        self.log = open(os.path.join(self.dir, "postgres.log"), "w")
        self.proc = subprocess.Popen(
            [f"{PGBIN}/postgres", "-D", data, "-p", str(self.port), "-c", "listen_addresses=127.0.0.1",
             "-k", self.dir, "-c", "fsync=off", "-c", "synchronous_commit=off",
             "-c", "full_page_writes=off", "-c", "max_connections=100"],
            stdout=self.log, stderr=subprocess.STDOUT, **kw)
        wait_port(self.port, self.proc, "postgres", timeout=60)
        # The port accepts before the cluster is ready: wait for pg_isready.
        end = time.time() + 30
        while subprocess.run([f"{PGBIN}/pg_isready", "-q", "-h", "127.0.0.1", "-p", str(self.port)]).returncode:
            if time.time() > end:
                raise RuntimeError("postgres not ready")
            time.sleep(0.05)
        self.url = f"postgresql+psycopg://bgd@127.0.0.1:{self.port}/postgres"

    def stop(self):
        stop_child(self.proc, signal.SIGINT)  # "fast" shutdown (SIGTERM waits for clients)
        self.log.close()

CONFIG = """\
server:
  - !channel
    address: "127.0.0.1:{port}"
{channel_security}
{authorization}
connections:
  - !sql-connection &sql
    connection-string: {pg_url}
    pool-size: 5
    max-overflow: 10
storages:
  - !lru-storage &cas
    size: 256M
caches:
  - !lru-action-cache &ac
    storage: *cas
    max-cached-refs: 1024
    allow-updates: true
    cache-failed-actions: true
schedulers:
  - !sql-scheduler &scheduler
    sql: *sql
    storage: *cas
    action-cache: *ac
    property-set: !dynamic-property-set
      match-property-keys: [qdbuild-toolchain]
    bot-session-keepalive-timeout: {keepalive}
    session-expiry-timer-interval: 0.5
    max-execution-timeout: 600
    max-job-attempts: 2
    poll-interval: {poll}
    bot-poll-interval: {poll}
    assigners:
      - !priority-age-assigner
        count: 1
        interval: {poll}
        jitter-factor: 0
        priority-assignment-percentage: 100
instances:
  - name: ""
    services:
      - !action-cache
        cache: *ac
      - !execution
        scheduler: *scheduler
        operation-stream-keepalive-timeout: 30
      - !cas
        storage: *cas
      - !bytestream
        storage: *cas
thread-pool-size: 100
maximum-concurrent-rpcs: 100
"""

# JWT (HS256, a shared secret) with an ACL: workers (subject qdbuild-worker) may hold bot sessions
# and use the CAS; clients (subject qdbuild-client) may execute, read the action cache and use the
# CAS. So results come only from workers that authenticate as workers.
AUTH = """authorization:
  method: jwt
  secret: {secret}
  algorithm: hs256
  acl-config: {acl}
"""
CAS_REQUESTS = ["GetCapabilities", "FindMissingBlobs", "BatchUpdateBlobs", "BatchReadBlobs",
                "Read", "Write"]
ACL = {"": {"allow": [
    {"subject": "^qdbuild-worker$", "requests": ["CreateBotSession", "UpdateBotSession"] + CAS_REQUESTS},
    {"subject": "^qdbuild-client$",
     "requests": ["Execute", "WaitExecution", "GetActionResult", "CancelOperation"] + CAS_REQUESTS},
]}}


def _b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt_hs256(secret, subject, lifetime=3600):
    """A JWT signed with HS256 (what BuildGrid's JWT method verifies), made with the stdlib."""
    header = _b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    claims = _b64(json.dumps({"sub": subject, "exp": int(time.time()) + lifetime}).encode())
    mac = hmac.new(secret.encode(), f"{header}.{claims}".encode(), hashlib.sha256).digest()
    return f"{header}.{claims}.{_b64(mac)}"


class BuildGrid:
    def __init__(self, base, venv, pg_url, keepalive=5, auth=False, poll=0.2, tls=False):
        self.dir = os.path.join(base, "bgd")
        os.makedirs(self.dir)
        bgd = os.path.join(venv, "bin", "bgd")
        self.port = free_port()
        self.config = os.path.join(self.dir, "bgd.yml")
        authorization = "authorization:\n  method: none"
        self.secret = None
        if auth:
            self.secret = secrets.token_hex(32)
            secret_file = os.path.join(self.dir, "jwt.secret")
            acl_file = os.path.join(self.dir, "acl.yml")
            with open(secret_file, "w") as f:
                f.write(self.secret)
            with open(acl_file, "w") as f:
                json.dump(ACL, f)  # YAML reads JSON
            authorization = AUTH.format(secret=secret_file, acl=acl_file).rstrip()
        security = "    insecure-mode: true"
        self.ca = None
        if tls:
            key = os.path.join(self.dir, "server.key")
            self.ca = os.path.join(self.dir, "server.crt")
            # A self-signed certificate for 127.0.0.1: the clients trust it as their only root.
            subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                            "-keyout", key, "-out", self.ca], check=True, capture_output=True)
            security = ("    insecure-mode: false\n    credentials:\n"
                        f"      tls-server-key: {key}\n      tls-server-cert: {self.ca}")
        with open(self.config, "w") as f:
            f.write(CONFIG.format(port=self.port, pg_url=pg_url, keepalive=keepalive,
                                  authorization=authorization, poll=poll,
                                  channel_security=security))
        # The schema is not created by the server: apply the alembic migrations first.
        subprocess.run([bgd, "migrate", "apply", pg_url], check=True, capture_output=True)
        self.log = open(os.path.join(self.dir, "bgd.log"), "w")
        self.proc = subprocess.Popen([bgd, "server", "start", "-v", self.config],
                                     stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        wait_port(self.port, self.proc, "bgd server", timeout=60)
        self.target = f"127.0.0.1:{self.port}"

    def stop(self):
        stop_child(self.proc)  # SIGTERM: a graceful stop, about 3 s
        self.log.close()

def require(venv):
    """Skips the calling test (skip_policy reason no-buildgrid-venv) without BuildGrid in `venv`
    or Debian's PostgreSQL 15."""
    import skip_policy
    if not os.access(os.path.join(venv, "bin", "bgd"), os.X_OK):
        skip_policy.skip("no-buildgrid-venv", f"no {venv}/bin/bgd")
    if not os.access(os.path.join(PGBIN, "postgres"), os.X_OK):
        skip_policy.skip("no-buildgrid-venv", f"no {PGBIN}/postgres")


class BuildGridStack:
    def __init__(self, venv, keepalive=5, auth=False, poll=0.2, tls=False):
        self.venv, self.keepalive, self.auth, self.poll, self.tls = venv, keepalive, auth, poll, tls
    def __enter__(self):
        self.base = tempfile.mkdtemp(prefix="qd-bgd-")
        self.pg = self.bgd = None
        try:
            self.pg = Postgres(self.base)
            self.bgd = BuildGrid(self.base, self.venv, self.pg.url, self.keepalive, self.auth,
                                 self.poll, self.tls)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        self.target = self.bgd.target
        self.url = ("grpcs://" if self.tls else "grpc://") + self.target
        self.ca = self.bgd.ca  # the certificate to trust (tls=True), else None
        return self

    def token(self, subject):
        """A valid token for `subject` (qdbuild-worker, qdbuild-client) when auth is on."""
        return jwt_hs256(self.bgd.secret, subject)

    def kill_server(self):
        """SIGKILL the BuildGrid server (a crash: no goodbye to its clients)."""
        self.bgd.proc.kill()
        self.bgd.proc.wait()
    def __exit__(self, *exc):
        if self.bgd:
            self.bgd.stop()                   # BuildGrid first: it holds pool connections
        if self.pg:
            self.pg.stop()
        if os.environ.get("QD_KEEP_BGD_DIR"):
            print("kept", self.base)
        else:
            shutil.rmtree(self.base, ignore_errors=True)

