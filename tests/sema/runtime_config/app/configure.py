import quadrants as qd

import app


def use_double():
    app.dtype = qd.f64
