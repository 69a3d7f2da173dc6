"""quadrants.lang.impl.get_runtime(): the defaults the stand-in computes with (f32, i32), the
same as qd.init()'s and qdbuild's defaults."""

from ..dtypes import f32, i32


class _Runtime:
    default_fp = f32
    default_ip = i32


def get_runtime():
    return _Runtime()
