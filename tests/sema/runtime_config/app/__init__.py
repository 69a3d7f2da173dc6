"""A package configured at run time, as Genesis is by gs.init()."""
import quadrants as qd

EPS = 1e-15  # a placeholder: init() sets the value the kernels see
dtype = qd.f32  # configure.use_double() rebinds it from another module


def init(eps):
    global EPS
    EPS = eps


for _name, _value in {"LEVEL_A": 1, "LEVEL_B": 2}.items():
    globals()[_name] = _value  # computed names: every name not bound here may exist at run time
