#!/usr/bin/env python3
"""`qdbuild lsp` driven by a real LSP client (pygls's LanguageClient, from build/lsp-venv) through
an editing session, then by hand-made hostile bytes.

The session, in a temporary workspace (kern.py's kernel calls helpers.py's func; tmpl.py has a
template kernel; other.py a clean one):
  - open, edit helpers.scale into a purity violation (a module global read by a fastcache
    kernel's func): QD101 is published for helpers.py at the exact UTF-16 range of the global
    (after a non-ASCII name on the same line), with the call path from kern.k as related
    information; edit it away: helpers.py is published empty
  - hover on the kernel's name: its verdict and its key, the key `qdbuild explain --json` gives
  - go to definition on the call helpers.scale(...) in kern.py: helpers.py's `def scale`
  - a syntax error typed into other.py: QD001 there, helpers.py's diagnostic still standing
  - a record added on disk (rec.json named by pyproject.toml), didChangeWatchedFiles: the
    template kernel's hover lists the recorded instance instead of an unbound one
Hostile input (raw pipes): bad framing, bad JSON, wrong types, a document outside the workspace,
a 16 MiB buffer; every request answered with an error, the server alive, exit 0 after shutdown.

Usage: test_lsp.py --qdbuild build/bin/qdbuild [--python build/lsp-venv/bin/python]
Exit: 0 all passed; 1 a failure; 125 (skip) without build/lsp-venv.
"""
import argparse
import asyncio
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "lib"))
import qdtest  # noqa: E402
import skip_policy  # noqa: E402

CHECKS = qdtest.Checks("lsp", echo_passes=True)
check = CHECKS.check

NDARRAY = "qd.types.ndarray(dtype=qd.f32, ndim=1)"
KERN = f"""import quadrants as qd

import helpers


@qd.kernel(fastcache=True)
def k(a: {NDARRAY}):
    for i in range(a.shape[0]):
        a[i] = helpers.scale(a[i])
"""
HELPERS_CLEAN = """import quadrants as qd

scale2 = 3.0


@qd.func
def scale(x):
    ré = x
    return ré * 2.0
"""
# The edit: `2.0` -> `scale2`, a module global read from a fastcache kernel's func (QD101).
HELPERS_BAD = HELPERS_CLEAN.replace("return ré * 2.0", "return ré * scale2")
TMPL = f"""import quadrants as qd


@qd.kernel
def t(a: {NDARRAY}, n: qd.template()):
    for i in range(a.shape[0]):
        a[i] = a[i] * n
"""
OTHER = f"""import quadrants as qd


@qd.kernel
def o(a: {NDARRAY}):
    for i in range(a.shape[0]):
        a[i] = 1.0
"""
RECORD = {"format": "qdrt-record 1",
          "kernels": {"tmpl:t": [{"params": {"a": "ndarray(f32, 1)", "n": {"template": 3}}}]}}


def utf16(text):
    return len(text.encode("utf-16-le")) // 2


def position_of(text, needle, nth=0):
    """(line, UTF-16 character) of the `nth` occurrence of `needle` in `text`."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    line = text.count("\n", 0, at)
    start = text.rfind("\n", 0, at) + 1
    return line, utf16(text[start:at])


async def session(qdbuild, folder):
    from lsprotocol import types as T
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("qdbuild-tests", "1")
    published = {}
    changed = asyncio.Condition()

    registrations = []

    @client.feature(T.CLIENT_REGISTER_CAPABILITY)
    async def on_register(params):
        registrations.extend(params.registrations)
        return None

    @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    async def on_publish(params):
        async with changed:
            published[params.uri] = (params.version, params.diagnostics)
            changed.notify_all()

    async def wait_for(uri, want, what, timeout=30):
        async with changed:
            try:
                await asyncio.wait_for(changed.wait_for(
                    lambda: uri in published and want(*published[uri])), timeout)
                return published[uri][1]
            except asyncio.TimeoutError:
                check(False, f"{what}: timed out; last published for {uri}: {published.get(uri)}")
                return None

    uri = {name: (folder / name).as_uri() for name in ("kern.py", "helpers.py", "tmpl.py",
                                                       "other.py")}
    versions = {}

    def open_doc(name, text):
        versions[name] = 1
        client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(
            uri=uri[name], language_id="python", version=1, text=text)))

    def edit(name, old_text, needle, replacement, nth=0):
        """An incremental change: `needle` (its `nth` occurrence) replaced by `replacement`."""
        line, char = position_of(old_text, needle, nth)
        versions[name] += 1
        client.text_document_did_change(T.DidChangeTextDocumentParams(
            text_document=T.VersionedTextDocumentIdentifier(uri=uri[name], version=versions[name]),
            content_changes=[T.TextDocumentContentChangePartial(
                range=T.Range(T.Position(line, char), T.Position(line, char + utf16(needle))),
                text=replacement)]))
        return versions[name]

    await client.start_io(str(qdbuild), "lsp")
    result = await client.initialize_async(T.InitializeParams(
        capabilities=T.ClientCapabilities(workspace=T.WorkspaceClientCapabilities(
            did_change_watched_files=T.DidChangeWatchedFilesClientCapabilities(
                dynamic_registration=True))),
        root_uri=folder.as_uri(), process_id=os.getpid()))
    check(result.capabilities.hover_provider and result.capabilities.definition_provider,
          "initialize: hover and definition offered")
    check(result.capabilities.position_encoding in (None, "utf-16"),
          f"initialize: UTF-16 positions (the client offered no other): "
          f"{result.capabilities.position_encoding}")
    client.initialized(T.InitializedParams())

    open_doc("kern.py", KERN)
    open_doc("helpers.py", HELPERS_CLEAN)
    got = await wait_for(uri["helpers.py"], lambda v, d: v == 1, "open helpers.py")
    watched = [w.get("globPattern") for r in registrations
               if r.method == T.WORKSPACE_DID_CHANGE_WATCHED_FILES
               for w in (r.register_options or {}).get("watchers", [])]
    check({"**/*.py", "**/pyproject.toml", "**/*.json"} <= set(watched),
          f"the server asked the client to watch sources, configs and records: {watched}")
    check(got is not None and not got, f"helpers.py opened clean: no diagnostics ({got})")

    # Into a purity violation, by an incremental edit.
    v = edit("helpers.py", HELPERS_CLEAN, "2.0", "scale2")
    got = await wait_for(uri["helpers.py"], lambda ver, d: ver == v, "the edit into QD101")
    if got is not None and check(len(got) == 1, f"one diagnostic after the edit: {got}"):
        d = got[0]
        line, char = position_of(HELPERS_BAD, "scale2", 1)
        check(d.code == "QD101", f"code QD101 ({d.code})")
        check((d.range.start.line, d.range.start.character, d.range.end.line,
               d.range.end.character) == (line, char, line, char + len("scale2")),
              f"range: line {line} characters {char}-{char + 6} in UTF-16 (after 'ré'), got "
              f"{d.range}")
        check(d.severity == T.DiagnosticSeverity.Error, "severity error")
        check("scale2" in d.message and "kern:k" in d.message, f"message: {d.message}")
        rel = d.related_information or []
        check(rel and rel[0].location.uri == uri["kern.py"]
              and rel[0].location.range.start.line == position_of(KERN, "def k")[0],
              f"related: the kernel's def in kern.py first: {rel}")
        call = position_of(KERN, "helpers.scale")
        check(any(r.location.uri == uri["kern.py"] and r.location.range.start.line == call[0]
                  for r in rel), f"related: the call in kern.py: {rel}")

    # A syntax error in another file: its own diagnostic; helpers.py's stands.
    open_doc("other.py", OTHER)
    await wait_for(uri["other.py"], lambda ver, d: ver == 1, "open other.py")
    v = edit("other.py", OTHER, "def o(", "def (")
    got = await wait_for(uri["other.py"], lambda ver, d: ver == v, "the syntax error")
    check(got is not None and any(d.code == "QD001" for d in got),
          f"other.py: the syntax error as QD001 ({got})")
    check([d.code for d in published[uri["helpers.py"]][1]] == ["QD101"],
          "helpers.py's QD101 still standing with a syntax error in other.py")

    # Closing a document drops its buffer: the file on disk (clean) is what counts again.
    client.text_document_did_close(T.DidCloseTextDocumentParams(
        T.TextDocumentIdentifier(uri["other.py"])))
    got = await wait_for(uri["other.py"], lambda ver, d: not d, "other.py closed")
    check(got is not None and not got, f"other.py closed: its disk text has no error ({got})")
    open_doc("other.py", OTHER.replace("def o(", "def ("))
    versions["other.py"] = 1
    await wait_for(uri["other.py"], lambda ver, d: ver == 1 and d, "other.py reopened broken")

    # Edit it away: helpers.py is published empty.
    v = edit("helpers.py", HELPERS_BAD, "scale2", "2.0", nth=1)
    got = await wait_for(uri["helpers.py"], lambda ver, d: ver == v, "the edit back")
    check(got is not None and not got, f"helpers.py cleared after the edit back ({got})")
    v = edit("other.py", OTHER.replace("def o(", "def ("), "def (", "def o(")
    got = await wait_for(uri["other.py"], lambda ver, d: ver == v, "the syntax error fixed")
    check(got is not None and not got, f"other.py cleared after the fix ({got})")

    # Hover on the kernel's name: the buffers equal the files again, so the key is explain's.
    line, char = position_of(KERN, "def k")
    hover = await client.text_document_hover_async(T.HoverParams(
        T.TextDocumentIdentifier(uri["kern.py"]), T.Position(line, char + 5)))
    text = hover.contents.value if hover else ""
    explain = subprocess.run([str(qdbuild), "explain", "kern:k", "--json"], cwd=folder,
                             capture_output=True, text=True)
    key = json.loads(explain.stdout).get("key", "?") if explain.returncode == 0 else "?"
    check("verdict" in text and "eligible for fastcache" in text, f"hover: the verdict ({text})")
    check(f"key        {key}" in text, f"hover: the key explain gives ({key}) in: {text}")

    # Go to definition on the call of helpers.scale.
    line, char = position_of(KERN, "helpers.scale")
    loc = await client.text_document_definition_async(T.DefinitionParams(
        T.TextDocumentIdentifier(uri["kern.py"]), T.Position(line, char + len("helpers.sc"))))
    loc = loc[0] if isinstance(loc, list) and loc else loc
    dline, dchar = position_of(HELPERS_CLEAN, "scale(x)")
    check(loc is not None and loc.uri == uri["helpers.py"]
          and (loc.range.start.line, loc.range.start.character) == (dline, dchar),
          f"definition: helpers.py line {dline} character {dchar}, got {loc}")

    # A record added: tmpl.t's instance comes from it.
    (folder / "tmpl.py").write_text(TMPL)
    client.workspace_did_change_watched_files(T.DidChangeWatchedFilesParams(
        [T.FileEvent(uri["tmpl.py"], T.FileChangeType.Created)]))
    open_doc("tmpl.py", TMPL)
    await wait_for(uri["tmpl.py"], lambda ver, d: ver == 1, "open tmpl.py")
    line, char = position_of(TMPL, "def t")
    hover = await client.text_document_hover_async(T.HoverParams(
        T.TextDocumentIdentifier(uri["tmpl.py"]), T.Position(line, char + 4)))
    before = hover.contents.value if hover else ""
    check("unbound" in before, f"hover before the record: the instance is unbound ({before})")
    (folder / "rec.json").write_text(json.dumps(RECORD))
    (folder / "pyproject.toml").write_text('[tool.qdbuild]\npaths = ["."]\n'
                                           'instances-from = ["rec.json"]\n')
    client.workspace_did_change_watched_files(T.DidChangeWatchedFilesParams(
        [T.FileEvent((folder / "rec.json").as_uri(), T.FileChangeType.Created)]))
    hover = await client.text_document_hover_async(T.HoverParams(
        T.TextDocumentIdentifier(uri["tmpl.py"]), T.Position(line, char + 4)))
    after = hover.contents.value if hover else ""
    check("instance   a=ndarray(f32, 1), n=3" in after and "unbound" not in after
          and "rec.json" in after, f"hover after the record: the recorded instance ({after})")

    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


class Raw:
    """The server over raw pipes, for bytes no client library would send."""

    def __init__(self, qdbuild, cwd):
        self.p = subprocess.Popen([str(qdbuild), "lsp"], cwd=cwd, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def write(self, data):
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def send(self, message):
        body = json.dumps(message).encode()
        self.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def read(self):
        header = b""
        while not header.endswith(b"\r\n\r\n"):
            c = self.p.stdout.read(1)
            if not c:
                return None
            header += c
        return json.loads(self.p.stdout.read(int(header.split(b":")[1].split(b"\r")[0])))

    def reply(self, id_):
        """The response with `id_`, skipping notifications (logged lines, diagnostics)."""
        while True:
            m = self.read()
            if m is None or m.get("id") == id_ and "method" not in m:
                return m


def hostile(qdbuild, folder):
    s = Raw(qdbuild, folder)
    s.send({"jsonrpc": "2.0", "id": 0, "method": "textDocument/hover", "params": {}})
    m = s.reply(0)
    check(m and m["error"]["code"] == -32002, f"a request before initialize: -32002 ({m})")
    s.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"rootUri": folder.as_uri(), "capabilities": {
                "general": {"positionEncodings": ["utf-8", "utf-16"]}}}})
    m = s.reply(1)
    check(m and m["result"]["capabilities"]["positionEncoding"] == "utf-8",
          f"initialize: utf-8 chosen when offered ({m and m.get('result')})")
    s.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    # Framing without a Content-Length, then bytes that are not JSON, then JSON that is no
    # message: each answered or logged, and the server reads on.
    s.write(b"Content-Type: nothing\r\n\r\n")
    s.write(b"Content-Length: 7\r\n\r\n{bad: 1")
    m = None
    for _ in range(10):
        m = s.read()
        if m is None or "id" in m:
            break
    check(m and m.get("id") is None and m["error"]["code"] == -32700,
          f"bad JSON: a ParseError response ({m})")
    s.send([1, 2, 3])
    m = s.reply(None)
    check(m and m["error"]["code"] == -32600, f"a JSON array: InvalidRequest ({m})")
    # Wrong types.
    s.send({"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover",
            "params": {"textDocument": {"uri": (folder / "kern.py").as_uri()},
                       "position": {"line": "one", "character": -1}}})
    m = s.reply(2)
    check(m and m["error"]["code"] == -32602, f"a hover with a string line: InvalidParams ({m})")
    s.send({"jsonrpc": "2.0", "id": 3, "method": "textDocument/definition", "params": 7})
    m = s.reply(3)
    check(m and m["error"]["code"] == -32602, f"params not an object: InvalidParams ({m})")
    # Outside the workspace, and not a file URI.
    for n, target in ((4, "file:///etc/passwd"), (5, (folder / ".." / "x.py").as_uri()),
                      (6, "https://example.com/a.py")):
        s.send({"jsonrpc": "2.0", "id": n, "method": "textDocument/hover",
                "params": {"textDocument": {"uri": target},
                           "position": {"line": 0, "character": 0}}})
        m = s.reply(n)
        check(m and m["error"]["code"] == -32602, f"hover on {target}: InvalidParams ({m})")
    s.send({"jsonrpc": "2.0", "id": 7, "method": "no/such", "params": {}})
    m = s.reply(7)
    check(m and m["error"]["code"] == -32601, f"an unknown method: MethodNotFound ({m})")
    # A huge buffer (16 MiB of comments and a kernel): analysed, published, still fast enough.
    big = KERN + ("# " + "x" * 1022 + "\n") * (16 * 1024)
    t0 = time.time()
    s.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": (folder / "kern.py").as_uri(), "languageId":
                                        "python", "version": 9, "text": big}}})
    s.send({"jsonrpc": "2.0", "id": 8, "method": "textDocument/hover",
            "params": {"textDocument": {"uri": (folder / "kern.py").as_uri()},
                       "position": {"line": position_of(KERN, "def k")[0], "character": 5}}})
    m = s.reply(8)
    check(m and "result" in m and m["result"] and "kern:k" in m["result"]["contents"]["value"],
          f"a 16 MiB buffer: analysed, hover answered in {time.time() - t0:.1f}s ({str(m)[:200]})")
    # An oversized declared length is skipped; the server still answers after it.
    s.write(b"Content-Length: 999999999999\r\n\r\n")
    s.send({"jsonrpc": "2.0", "id": 9, "method": "shutdown"})
    s.p.stdin.close()
    rc = s.p.wait(timeout=30)
    check(rc == 1, f"EOF after a body that never came, no exit: status 1 ({rc})")
    # A clean session: shutdown, exit -> 0.
    s = Raw(qdbuild, folder)
    s.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"rootUri": folder.as_uri(), "capabilities": {}}})
    s.reply(1)
    s.send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    m = s.reply(2)
    check(m and m.get("result", 0) is None, f"shutdown answered null ({m})")
    s.send({"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover", "params": {}})
    m = s.reply(3)
    check(m and m["error"]["code"] == -32600, f"a request after shutdown: InvalidRequest ({m})")
    s.send({"jsonrpc": "2.0", "method": "exit"})
    check(s.p.wait(timeout=30) == 0, "exit after shutdown: status 0")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qdbuild", default=str(qdtest.DEFAULT_QDBUILD))
    ap.add_argument("--python", default=str(ROOT / "build" / "lsp-venv" / "bin" / "python"))
    opts = ap.parse_args()
    qdbuild = qdtest.require_qdbuild(Path(opts.qdbuild).resolve())
    if importlib.util.find_spec("pygls") is None:
        # Run again under the venv that has the client.
        if not Path(opts.python).exists():
            skip_policy.skip("no-lsp-client", "the editor tests drive the server with pygls")
        os.execv(opts.python, [opts.python, __file__, "--qdbuild", str(qdbuild)])
    with CHECKS.workdir("qd-lsp-") as tmp:
        folder = tmp.resolve()
        (folder / "kern.py").write_text(KERN)
        (folder / "helpers.py").write_text(HELPERS_CLEAN)
        (folder / "other.py").write_text(OTHER)
        asyncio.run(asyncio.wait_for(session(qdbuild, folder), 300))
        hostile(qdbuild, folder)
    return CHECKS.finish()


if __name__ == "__main__":
    sys.exit(main())
