"""A worker that lies: a bot of the BuildGrid server (its Remote Workers API, through BuildGrid's
own Python protos; run with the BuildGrid venv's python by test_remote_exec.py) that takes
qdbuild's actions and reports, for each, an output that is not what the compile gives: the bytes
of an object with one byte changed would need the compiler, so it sends a fixed blob under its
own, correct, digest. What `qdbuild build --audit N` is for (docs/remote-exec.md "Trust").

    lying_bot.py URL TOKEN CA TOOLCHAIN [NAME]     runs until SIGTERM
"""
import hashlib
import signal
import sys
import time

import grpc
from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2 as re
from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2_grpc as re_grpc
from buildgrid._protos.google.devtools.remoteworkers.v1test2 import bots_pb2
from buildgrid._protos.google.devtools.remoteworkers.v1test2 import bots_pb2_grpc
from buildgrid._protos.google.devtools.remoteworkers.v1test2 import worker_pb2

LIE = b"\x7fELF\x02\x01\x01 this is not what the compiler makes\n"
stop = False


def on_term(*_):
    global stop
    stop = True


def main():
    url, token, ca, toolchain = sys.argv[1:5]
    name = sys.argv[5] if len(sys.argv) > 5 else "liar"
    signal.signal(signal.SIGTERM, on_term)
    with open(ca, "rb") as f:
        channel = grpc.secure_channel(url[len("grpcs://"):],
                                      grpc.ssl_channel_credentials(root_certificates=f.read()))
    md = [("authorization", "Bearer " + token)]
    bots = bots_pb2_grpc.BotsStub(channel)
    cas = re_grpc.ContentAddressableStorageStub(channel)
    digest = re.Digest(hash=hashlib.sha256(LIE).hexdigest(), size_bytes=len(LIE))
    cas.BatchUpdateBlobs(re.BatchUpdateBlobsRequest(requests=[
        re.BatchUpdateBlobsRequest.Request(digest=digest, data=LIE)]), metadata=md)
    device = worker_pb2.Device(handle="liar", properties=[
        worker_pb2.Device.Property(key="qdbuild-toolchain", value=toolchain)])
    session = bots.CreateBotSession(bots_pb2.CreateBotSessionRequest(
        parent="", bot_session=bots_pb2.BotSession(
            bot_id=name, status=bots_pb2.BotStatus.OK, worker=worker_pb2.Worker(devices=[device]))),
        metadata=md, timeout=10)
    print(f"liar: session {session.name}", flush=True)
    while not stop:
        for lease in session.leases:
            if lease.state == bots_pb2.LeaseState.ACTIVE:
                result = re.ActionResult(exit_code=0, output_files=[
                    re.OutputFile(path="qd_task.out", digest=digest)])
                result.execution_metadata.worker = name
                lease.result.Pack(result)
                lease.state = bots_pb2.LeaseState.COMPLETED
                lease.status.code = 0
                print(f"liar: lied for {lease.id}", flush=True)
        try:
            session = bots.UpdateBotSession(bots_pb2.UpdateBotSessionRequest(
                name=session.name, bot_session=session), metadata=md, timeout=5)
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.DEADLINE_EXCEEDED:
                raise
    session.status = bots_pb2.BotStatus.BOT_TERMINATING
    bots.UpdateBotSession(bots_pb2.UpdateBotSessionRequest(name=session.name, bot_session=session),
                          metadata=md, timeout=5)
    time.sleep(0.1)


if __name__ == "__main__":
    main()
