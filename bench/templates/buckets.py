"""Which bucket of a per-shape entry serves a size, as the build's dispatcher picks it
(core/buckets.h): the bucket [lo, hi) holding it (hi None: no upper bound), else the nearest,
the lower on a tie. One module for the benchmark (compare_torch.py) and every package of
`kernelevo export --torch`, which carries it as _buckets.py."""


def bucket_distance(bucket_range, value):
    """How far `value` lies from a bucket [lo, hi) (hi None: no upper bound); 0 inside."""
    lo, hi = bucket_range
    if value < lo:
        return lo - value
    if hi is not None and value >= hi:
        return value - hi + 1
    return 0


def bucket_index(ranges, value):
    """The index of the bucket serving `value`. `ranges` must not be empty."""
    best = 0
    for i in range(1, len(ranges)):
        if bucket_distance(ranges[i], value) < bucket_distance(ranges[best], value):
            best = i
    return best
