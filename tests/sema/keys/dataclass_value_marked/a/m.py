import quadrants as qd
import dataclasses
from quadrants.lang._fast_caching import FIELD_METADATA_CACHE_VALUE


@dataclasses.dataclass
class Cfg:
    layers: int = dataclasses.field(default=3, metadata={FIELD_METADATA_CACHE_VALUE: True})
    dt: float = 0.01


@qd.kernel(fastcache=True)
def k(cfg: Cfg, x: qd.types.NDArray[qd.f32, 1]):
    for i in qd.static(range(cfg.layers)):
        x[i] = cfg.dt
