SCALE = 1.0
UNTOUCHED = 4.0


def set_scale(s):
    globals()["SCALE"] = s
