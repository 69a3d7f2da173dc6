"""Graph kernels (@qd.kernel(graph=True)) with `while qd.graph.do_while(flag):` loops: a
do-while over the body, repeated while the 0-dim i32 flag is non-zero, the flag read after each
pass; statements before and after the loop at the top level run once. A counter flag counted
down by a serial statement, with a parallel loop in the body accumulating into an array; two
nested loops with their own flags, the inner flag reset in the outer body before the inner loop;
a flag cleared in the first pass (the body runs exactly once; the deprecated qd.graph_do_while
spelling); the flag as a member of a dataclass parameter. Loop-carried state lives in ndarrays
(real Quadrants does not carry kernel locals from one pass to the next). `serial_head`: the
body's first serial statements read an element that a serial statement just before the loop
wrote; real Quadrants 1.3.3 reads the value from before the loop in every pass (oracle_differs)."""

import dataclasses

import quadrants as qd

I32_0 = qd.types.NDArray[qd.i32, 0]
I32_1 = qd.types.NDArray[qd.i32, 1]
I32_2 = qd.types.NDArray[qd.i32, 2]
F32_1 = qd.types.NDArray[qd.f32, 1]


@qd.kernel(graph=True)
def countdown(counter: I32_0, acc: I32_1, log: I32_1) -> None:
    log[0] = counter[()] * 10                  # before the loop: once
    while qd.graph.do_while(counter):
        for i in range(acc.shape[0]):          # a parallel loop, run again each pass
            acc[i] += i * counter[()] + 1
        log[1] += 1
        counter[()] = counter[()] - 1          # the serial countdown: the loop ends at 0
    log[2] = log[1] * 100 + counter[None]      # after the loop: once


@qd.kernel(graph=True)
def nested(outer: I32_0, inner: qd.types.ndarray(dtype=qd.i32, ndim=0), grid: I32_2,
           log: I32_1) -> None:
    for i, j in qd.ndrange(grid.shape[0], grid.shape[1]):   # before the loop: once
        grid[i, j] = i * 100
    while qd.graph.do_while(outer):
        inner[()] = outer[()] + 1              # reset before the inner loop, once per outer pass
        while qd.graph.do_while(inner):
            for j in range(grid.shape[1]):
                if j < inner[()]:
                    grid[outer[()] - 1, j] += j + 1
            log[1] += 1
            inner[()] -= 1
        log[2] += inner[()] + outer[()] * 10   # inner is 0 after its loop
        outer[()] -= 1
    log[3] = outer[()] * 1000 + log[1]
    log[0] = grid[2, 0] + grid[0, 3]


@qd.kernel(graph=True)
def single_pass(flag: I32_0, x: F32_1, log: I32_1) -> None:
    while qd.graph_do_while(flag):             # the deprecated spelling
        for i in range(x.shape[0]):
            x[i] = x[i] * 2.0 + 1.0
        log[0] += 1
        flag[()] = 0                           # cleared in the first pass: the body runs once
    log[1] = flag[()] + 7


@dataclasses.dataclass(frozen=True)
class Solver:
    counter: I32_0
    state: F32_1


@qd.kernel(graph=True)
def dataclass_flag(s: Solver, log: I32_1) -> None:
    while qd.graph.do_while(s.counter):
        for i in range(s.state.shape[0]):
            s.state[i] = s.state[i] * 0.5 + i
        log[s.counter[()]] = s.counter[()] * 3
        s.counter[()] -= 1
    log[0] = 99


@qd.kernel(graph=True)
def serial_head(counter: I32_0, d: I32_0, log: I32_1) -> None:
    d[()] = 10                                 # a serial statement just before the loop
    while qd.graph.do_while(counter):
        log[0] += d[()]                        # 10, 11, 12 (real Quadrants 1.3.3: 10 each pass)
        d[()] += 1
        counter[()] -= 1
    log[1] = d[()]
