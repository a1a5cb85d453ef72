// The harness's kernels (harness.c, OpenCL C there) in CUDA, for the CUDA platform test:
// compiled to PTX by clang at test time without the CUDA headers (-nocudainc), hence the
// attribute spellings and NVVM builtins instead of threadIdx and friends.
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __device__ __attribute__((device))
typedef unsigned int uint;

static __device__ int global_id() {
    return __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
}

extern "C" __global__ void affine(const uint* a, const uint* b, uint* c, uint k, int n) {
    int i = global_id();
    if (i >= n) return;
    c[i] = a[i] * k + b[i];
}

extern "C" __global__ void block_sum(const uint* a, uint* out, int n) {
    __shared__ uint part[256];
    int t = __nvvm_read_ptx_sreg_tid_x();
    int i = global_id();
    part[t] = i < n ? a[i] : 0;
    __syncthreads();
    for (int s = __nvvm_read_ptx_sreg_ntid_x() / 2; s > 0; s /= 2) {
        if (t < s) part[t] += part[t + s];
        __syncthreads();
    }
    if (t == 0) out[__nvvm_read_ptx_sreg_ctaid_x()] = part[0];
}

extern "C" __global__ void divergent(const uint* a, int* out, int n) {
    int i = global_id();
    if (i >= n) return;
    uint x = a[i] % 1000u;
    if (x % 7u == 0u) { out[i] = -7; return; }
    int steps = 0;
    while (x != 1u && x != 0u) {
        if (steps == 60) { out[i] = -1; return; }
        x = (x & 1u) ? 3u * x + 1u : x / 2u;
        steps++;
    }
    out[i] = steps;
}

// Deliberately wrong: writes one element past the end of c.
extern "C" __global__ void overrun(uint* c, int n) {
    int i = global_id();
    if (i <= n) c[i] = i;
}

// Deliberately wrong: stores through a null pointer (CUDA_ERROR_ILLEGAL_ADDRESS).
extern "C" __global__ void fault(int* p) {
    *(volatile int*)0 = p[0];
}
