import sys, os
sys.argv = sys.argv[:1]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exp
C = {
 "c1": dict(BLOCK=128, MAX_ROW_THREADS=1024, VEC=8, UNROLL=8, SHIFTED=1, STREAMING=0),
 "c2": dict(BLOCK=64, MAX_ROW_THREADS=256, VEC=4, UNROLL=8, SHIFTED=0, STREAMING=0),
 "c3": dict(BLOCK=128, MAX_ROW_THREADS=1024, VEC=8, UNROLL=4, SHIFTED=0, STREAMING=0),
 "c4": dict(BLOCK=64, MAX_ROW_THREADS=256, VEC=8, UNROLL=8, SHIFTED=1, STREAMING=0),
}
tp = [{"LAYERNORM_BF16_" + k: v for k, v in c.items()} for c in C.values()]
ex = [dict(V=c["VEC"], U=c["UNROLL"], BLOCK=c["BLOCK"], MAXRT=c["MAX_ROW_THREADS"], NR=1, PG=0, SH=c["SHIFTED"], LDH=1, STH=1) for c in C.values()]
for rows, cols in ((4096, 8192), (32768, 1024)):
    exp.ln_case(rows, cols, ex, "ab", tmpl_params=tp)
