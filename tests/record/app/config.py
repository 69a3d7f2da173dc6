"""Run-time configuration, set by init() as Genesis's gs.init() sets its globals."""
import enum

import quadrants as qd

EPS = 0.0  # a placeholder: init() sets the value the kernels see
real = qd.f64  # init() rebinds it


class Mode(enum.IntEnum):
    FAST = 0
    EXACT = 1


def init(eps):
    global EPS, real
    EPS = eps
    real = qd.f32
