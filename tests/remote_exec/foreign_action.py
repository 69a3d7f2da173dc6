"""Submits one action qdbuild's workers must refuse, through BuildGrid's own Python client
protos (run with the BuildGrid venv's python by test_remote_exec.py), and prints the outcome as
one JSON line: {"code": google.rpc code, "message": ..., "exit_code": ...}.

    foreign_action.py URL TOKEN TOOLCHAIN foreign [CA]   a shell command instead of remote-compile
    foreign_action.py URL TOKEN TOOLCHAIN prelude [CA]   qdbuild's command with another include/
(URL grpcs://... with CA, the PEM file of the server's certificate.)
"""
import hashlib
import json
import sys

import grpc
from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2 as re
from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2_grpc as re_grpc


def digest(blob):
    return re.Digest(hash=hashlib.sha256(blob).hexdigest(), size_bytes=len(blob))


def main():
    url, token, toolchain, mode = sys.argv[1:5]
    if url.startswith("grpcs://"):
        with open(sys.argv[5], "rb") as f:
            channel = grpc.secure_channel(url[len("grpcs://"):],
                                          grpc.ssl_channel_credentials(root_certificates=f.read()))
    else:
        channel = grpc.insecure_channel(url[len("grpc://"):])
    md = [("authorization", "Bearer " + token)] if token else []
    platform = re.Platform(properties=[re.Platform.Property(name="qdbuild-toolchain", value=toolchain)])
    blobs = []
    if mode == "foreign":
        command = re.Command(arguments=["sh", "-c", "echo pwned > qd_task.out"],
                             output_paths=["qd_task.out"], platform=platform)
        root = re.Directory()
    else:
        command = re.Command(arguments=["qdbuild", "remote-compile", "--target-flags", "qd_target",
                                        "--output", "qd_task.out", "qd_task.cpp"],
                             output_paths=["qd_task.out"], platform=platform)
        flags = b"qd-remote-compile-1\ntarget=cpu\ncpu=x86-64-v3\nfeatures=\nopt=3\n"
        task = b"int x;\n"
        header = b"// not qdbuild's prelude\n"
        include = re.Directory(files=[re.FileNode(name="qd_prelude.hpp", digest=digest(header))])
        inc = include.SerializeToString()
        root = re.Directory(files=[re.FileNode(name="qd_target", digest=digest(flags)),
                                   re.FileNode(name="qd_task.cpp", digest=digest(task))],
                            directories=[re.DirectoryNode(name="include", digest=digest(inc))])
        blobs += [flags, task, header, inc]
    cmd = command.SerializeToString()
    rt = root.SerializeToString()
    action = re.Action(command_digest=digest(cmd), input_root_digest=digest(rt), platform=platform,
                       do_not_cache=True)
    act = action.SerializeToString()
    blobs += [cmd, rt, act]
    cas = re_grpc.ContentAddressableStorageStub(channel)
    cas.BatchUpdateBlobs(re.BatchUpdateBlobsRequest(requests=[
        re.BatchUpdateBlobsRequest.Request(digest=digest(b), data=b) for b in blobs]), metadata=md)
    execution = re_grpc.ExecutionStub(channel)
    last = None
    for op in execution.Execute(re.ExecuteRequest(action_digest=digest(act), skip_cache_lookup=True),
                                metadata=md, timeout=60):
        last = op
        if op.done:
            break
    resp = re.ExecuteResponse()
    last.response.Unpack(resp)
    print(json.dumps({"code": resp.status.code, "message": resp.status.message,
                      "exit_code": resp.result.exit_code}))


if __name__ == "__main__":
    main()
