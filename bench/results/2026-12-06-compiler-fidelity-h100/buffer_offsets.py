# softmax at 32768 x 1024, three configurations, timed in PyTorch with the input and output
# tensors at byte offsets 0, 4 KiB and 64 KiB from their allocations (CUDA events, cold L2,
# clean and dirty): does the placement explain the tuner and the harness disagreeing? (No.)
import ctypes, os, subprocess, sys, math
sys.path.insert(0, 'bench/templates')  # run from the repository root
import torch
import compare_torch as ct
import cuda_launch
rows, cols = 32768, 1024
configs = {'vec1_u8': dict(SOFTMAX_BLOCK=256, SOFTMAX_MAX_ROW_THREADS=512, SOFTMAX_VEC=1, SOFTMAX_UNROLL=8),
           'vec4_u2': dict(SOFTMAX_BLOCK=256, SOFTMAX_MAX_ROW_THREADS=512, SOFTMAX_VEC=4, SOFTMAX_UNROLL=2),
           'vec4_u8': dict(SOFTMAX_BLOCK=256, SOFTMAX_MAX_ROW_THREADS=512, SOFTMAX_VEC=4, SOFTMAX_UNROLL=8)}
drv = cuda_launch.Driver(torch.cuda.current_device())
fns = {}
for name, p in configs.items():
    out = f'/tmp/sm_{name}.cubin'
    subprocess.check_call(['nvcc', '-cubin', '-arch=sm_90', '-std=c++17'] + [f'-D{k}={v}' for k, v in p.items()] + ['templates/softmax.cu', '-o', out])
    fns[name] = drv.function(open(out, 'rb').read(), 'softmax_rows')
n = rows * cols
bx = torch.randn(n + 2 * 1024 * 1024, device='cuda')
by = torch.empty(n + 2 * 1024 * 1024, device='cuda')
_, clean = ct.make_clean_timer(torch, 60)
_, dirty = ct.make_dirty_timer(torch, 60)
stream = torch.cuda.current_stream().cuda_stream
print('config offset_x offset_y clean_us dirty_us')
for name, p in configs.items():
    rt = min(p['SOFTMAX_MAX_ROW_THREADS'], 32 * max(1, math.ceil(cols / (32 * p['SOFTMAX_VEC'] * p['SOFTMAX_UNROLL']))))
    rpb = max(p['SOFTMAX_BLOCK'], rt) // rt
    for ox, oy in [(0, 0), (4096, 4096), (0, 4096), (4096, 0), (65536, 0)]:
        x = bx[ox // 4: ox // 4 + n]; y = by[oy // 4: oy // 4 + n]
        args = [cuda_launch.pointer_arg(x.data_ptr()), cuda_launch.pointer_arg(y.data_ptr()), ctypes.c_int(rows), ctypes.c_int(cols)]
        launch = drv.launcher(fns[name], [math.ceil(rows / rpb)], [rpb * rt], 0, stream, args)
        launch(); torch.cuda.synchronize()
        ok = torch.allclose(y.view(rows, cols), torch.softmax(x.view(rows, cols), -1), rtol=1e-5, atol=1e-6)
        print(name, ox, oy, round(clean(launch), 1), round(dirty(launch), 1), 'ok' if ok else 'WRONG', flush=True)
