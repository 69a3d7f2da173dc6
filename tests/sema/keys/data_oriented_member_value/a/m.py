import quadrants as qd

@qd.data_oriented
class Solver:
    def __init__(self):
        self.a = 3
        self.x = qd.ndarray(qd.f32, (8,))

    @qd.kernel(fastcache=True)
    def k(self):
        self.x[0] = self.a
