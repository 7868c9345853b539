s=open('templates/attention_fwd.cu').read()
def rep(a,b,count=1):
    global s
    assert s.count(a)==count, (a, s.count(a))
    s=s.replace(a,b)
rep('''namespace attention_detail {
''','''namespace attention_detail {
__device__ __forceinline__ unsigned long long gtimer(){unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t;}
#define PROBE(k, val) do { if (C::SPLIT && threadIdx.x == 0) { unsigned long long* pb = reinterpret_cast<unsigned long long*>(o_part + 300000); pb[((blockIdx.z*gridDim.y+blockIdx.y)*gridDim.x+blockIdx.x)*16 + (k)] = (val); } } while (0)
''')
rep('''  constexpr int D = C::D, BM = C::BM, BN = C::BN, KN = C::KN, MT = C::MT, STAGES = C::STAGES;
  const int lane = threadIdx.x % 32;''','''  constexpr int D = C::D, BM = C::BM, BN = C::BN, KN = C::KN, MT = C::MT, STAGES = C::STAGES;
  const long long clk0 = clock64();
  PROBE(0, gtimer());
  const int lane = threadIdx.x % 32;''')
rep('''      __syncthreads();  // tile t is in, and every warp is done with the stage refilled next
''','''      __syncthreads();  // tile t is in, and every warp is done with the stage refilled next
      if (it == 0) PROBE(2, clock64() - clk0);
''')
rep('''  cp_async_wait<0>();

#pragma unroll''','''  cp_async_wait<0>();
  PROBE(3, clock64() - clk0);

#pragma unroll''')
rep('''      __shared__ unsigned is_last;
''','''      __shared__ unsigned is_last;
      PROBE(4, clock64() - clk0);
''')
rep('''      if (!is_last) return;
''','''      PROBE(5, clock64() - clk0);
      if (!is_last) { PROBE(7, gtimer()); return; }
''')
rep('''      __syncthreads();
      constexpr int kInFlight''','''      __syncthreads();
      PROBE(11, clock64() - clk0);
      constexpr int kInFlight''')
rep('''            make_uint2(pack_bf16(x.x, x.y), pack_bf16(x.z, x.w));
      }
    }
  }
}''','''            make_uint2(pack_bf16(x.x, x.y), pack_bf16(x.z, x.w));
      }
      PROBE(6, clock64() - clk0);
      PROBE(7, gtimer());
    }
  }
}''')
open('bench/.att-probe.cu','w').write(s)
