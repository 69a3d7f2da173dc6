"""Real cache servers for the remote-cache tests and benchmark (stdlib only): nginx with WebDAV
PUT and redis-server, started on 127.0.0.1 with free ports in a temporary directory and stopped
by stop(); and FaultProxy, a small HTTP proxy in front of nginx that answers 500s, stalls,
corrupts or truncates bodies, or dies after a number of requests."""
import http.client
import http.server
import os
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from local_servers import free_port, wait_port  # noqa: E402,F401 (used here and by callers)


def apr1_hash(password):
    return subprocess.run(["openssl", "passwd", "-apr1", password], capture_output=True,
                          text=True, check=True).stdout.strip()


class Nginx:
    """nginx serving DIR/www: GET/HEAD for anyone, PUT (WebDAV) with basic auth when `users`."""

    def __init__(self, base, users=None):
        self.dir = os.path.join(base, f"nginx-{free_port()}")
        self.www = os.path.join(self.dir, "www")
        os.makedirs(self.www)
        os.makedirs(os.path.join(self.dir, "body"))
        self.port = free_port()
        auth = ""
        if users:
            with open(os.path.join(self.dir, "htpasswd"), "w") as f:
                for user, password in users.items():
                    f.write(f"{user}:{apr1_hash(password)}\n")
            auth = (f"limit_except GET HEAD {{ auth_basic \"qdbuild\"; "
                    f"auth_basic_user_file {self.dir}/htpasswd; }}")
        user = "user root root;" if os.geteuid() == 0 else ""
        d = self.dir
        conf = f"""
{user}
daemon off;
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log;
events {{ worker_connections 512; }}
http {{
  access_log {d}/access.log;
  client_body_temp_path {d}/body;
  proxy_temp_path {d}/body; fastcgi_temp_path {d}/body; uwsgi_temp_path {d}/body;
  scgi_temp_path {d}/body;
  client_max_body_size 1g;
  keepalive_requests 100000;
  server {{
    listen 127.0.0.1:{self.port};
    root {self.www};
    location / {{
      dav_methods PUT;
      create_full_put_path on;
      dav_access user:rw group:r all:r;
      {auth}
    }}
  }}
}}
"""
        with open(os.path.join(d, "nginx.conf"), "w") as f:
            f.write(conf)
        self.proc = subprocess.Popen(["nginx", "-c", os.path.join(d, "nginx.conf"), "-p", d],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_port(self.port, self.proc, "nginx")

    def url(self, prefix="/cache"):
        return f"http://127.0.0.1:{self.port}{prefix}"

    def requests(self):
        """Counts by method from the access log: {"GET": n, "PUT": n, "HEAD": n}."""
        out = {}
        try:
            with open(os.path.join(self.dir, "access.log")) as f:
                for line in f:
                    parts = line.split('"')
                    if len(parts) > 1 and parts[1]:
                        m = parts[1].split(" ")[0]
                        out[m] = out.get(m, 0) + 1
        except FileNotFoundError:
            pass
        return out

    def files(self, prefix="cache"):
        out = []
        for root, _, files in os.walk(os.path.join(self.www, prefix)):
            out.extend(os.path.join(root, f) for f in files)
        return sorted(out)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Redis:
    def __init__(self, base, password=None):
        self.dir = os.path.join(base, f"redis-{free_port()}")
        os.makedirs(self.dir)
        self.port = free_port()
        cmd = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
               "--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile",
               os.path.join(self.dir, "redis.log")]
        if password:
            cmd += ["--requirepass", password]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_port(self.port, self.proc, "redis-server")

    def url(self, db=0):
        return f"redis://127.0.0.1:{self.port}/{db}"

    def stop(self, kill=False):
        if self.proc.poll() is None:
            (self.proc.kill if kill else self.proc.terminate)()
            self.proc.wait()


class FaultProxy:
    """An HTTP/1.1 proxy to `upstream_port`. mode: "pass", "500" (every request), "stall"
    (never answers), "corrupt" (flips a byte of every GET body), "truncate" (half of every GET
    body, with a matching Content-Length), "truncate-short" (the full Content-Length, half the
    body, then the connection closes). die_after=N: after N requests the proxy stops listening
    and drops every connection (a server killed in the middle of a build)."""

    def __init__(self, upstream_port, mode="pass", die_after=None):
        self.upstream = upstream_port
        self.mode = mode
        self.die_after = die_after
        self.count = 0
        self.lock = threading.Lock()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def handle_one(self):
                with proxy.lock:
                    proxy.count += 1
                    n = proxy.count
                if proxy.die_after is not None and n > proxy.die_after:
                    proxy.kill()
                    self.close_connection = True
                    return
                if proxy.mode == "stall":
                    time.sleep(30)
                    self.close_connection = True
                    return
                if proxy.mode == "500":
                    body = b"internal error"
                    self.send_response(500)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(body)
                    return
                length = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(length) if length else None
                conn = http.client.HTTPConnection("127.0.0.1", proxy.upstream, timeout=10)
                headers = {k: v for k, v in self.headers.items()
                           if k.lower() in ("authorization", "content-length", "content-type")}
                conn.request(self.command, self.path, body=data, headers=headers)
                resp = conn.getresponse()
                body = resp.read()
                conn.close()
                short = False
                if self.command == "GET" and resp.status == 200 and body:
                    if proxy.mode == "corrupt":
                        i = len(body) // 2
                        body = body[:i] + bytes([body[i] ^ 0x5A]) + body[i + 1:]
                    elif proxy.mode == "truncate":
                        body = body[:len(body) // 2]
                    elif proxy.mode == "truncate-short":
                        short = True
                self.send_response(resp.status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    if short:
                        self.wfile.write(body[:len(body) // 2])
                        self.wfile.flush()
                        self.close_connection = True
                        return
                    self.wfile.write(body)

            do_GET = do_PUT = do_HEAD = handle_one

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.dead = False

    def url(self, prefix="/cache"):
        return f"http://127.0.0.1:{self.port}{prefix}"

    def kill(self):
        if not self.dead:
            self.dead = True
            threading.Thread(target=self.server.shutdown, daemon=True).start()
            self.server.socket.close()

    def stop(self):
        self.kill()


def have_servers():
    return shutil.which("nginx") is not None and shutil.which("redis-server") is not None
