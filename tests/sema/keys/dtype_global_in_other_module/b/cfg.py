import quadrants as qd

dtype = qd.f64
