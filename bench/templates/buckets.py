"""Which bucket of a per-shape entry serves a size, as the build's dispatcher picks it
(core/buckets.h): the bucket [lo, hi) holding it (hi None: no upper bound), else the nearest by
ratio, the lower on a tie; and the define a bucket's winner is compiled with. One module for the
benchmark (compare_torch.py, variants.py) and every package of `kernelevo export --torch`, which
carries it as _buckets.py."""


def bucket_distance(bucket_range, value):
    """How far `value` lies from a bucket [lo, hi) (hi None: no upper bound) as a ratio: 0
    inside, else lo / value below it and value / (hi - 1) above it, sizes below 1 taken as 1;
    each size a float first, as the C++ dispatchers divide doubles."""
    lo, hi = bucket_range

    def size(x):
        return float(max(x, 1))

    if value < lo:
        return size(lo) / size(value)
    if hi is not None and value >= hi:
        return size(value) / size(hi - 1)
    return 0


def bucket_index(ranges, value):
    """The index of the bucket serving `value`. `ranges` must not be empty."""
    best = 0
    for i in range(1, len(ranges)):
        if bucket_distance(ranges[i], value) < bucket_distance(ranges[best], value):
            best = i
    return best


def size_define(by, bucket_range, sized=True):
    """The define kernelevo compiles a bucket's winner with, "KERNELEVO_SIZE_<by>=<lo>", for a
    bucket holding one size of `by`, [lo, lo + 1); None for a wider or unbounded bucket, for an
    entry without buckets (`bucket_range` None), or for a bucket its tune locked without the
    define (`sized` False: the lockfile bucket's "sized"). The winner serves every shape its
    bucket is the nearest to with that compile; the template's runtime check keeps it correct
    there."""
    if bucket_range is None or sized is False:
        return None
    lo, hi = bucket_range
    return f"KERNELEVO_SIZE_{by}={lo}" if hi is not None and hi == lo + 1 else None
