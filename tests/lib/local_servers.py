"""Starting and stopping servers the tests run on 127.0.0.1 (stdlib only): a free port, waiting
for a child to listen, stopping a child."""
import signal
import socket
import subprocess
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc, what, timeout=10.0):
    """Returns once 127.0.0.1:`port` accepts; raises if `proc` exits or `timeout` passes."""
    end = time.time() + timeout
    while time.time() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{what} does not listen on port {port}")


def stop_child(proc, sig=signal.SIGTERM, timeout=15):
    """Sends `sig` to a running child and waits for it; SIGKILL after `timeout` seconds."""
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
