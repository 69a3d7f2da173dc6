import quadrants as qd

import app
from app import consts
from app.consts import UNTOUCHED


@qd.kernel
def k_eps(x: qd.types.NDArray[qd.f32, 1]) -> None:
    for i in x:
        x[i] = x[i] + app.EPS


@qd.kernel
def k_dtype(x: qd.types.NDArray[qd.f32, 1]) -> None:
    for i in x:
        x[i] = qd.cast(x[i] * 3.0, app.dtype)


@qd.kernel
def k_level(x: qd.types.NDArray[qd.i32, 1]) -> None:
    for i in x:
        x[i] = app.LEVEL_A


@qd.kernel
def k_scale(x: qd.types.NDArray[qd.f32, 1]) -> None:
    for i in x:
        x[i] = x[i] * consts.SCALE + UNTOUCHED


@qd.kernel
def k_plain(x: qd.types.ndarray(), n: qd.i32) -> None:
    for i in x:
        x[i] = n
