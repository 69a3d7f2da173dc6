// Kernels compiled to PTX by scripts/bench/store_bench.sh (nvcc -ptx) as realistic object bytes
// for the store benchmark. Shapes like Quadrants' generated tasks: element-wise loops, stencils,
// reductions, histograms, vector math, templated over dtypes.
#include <cstdint>

template <class T> __global__ void axpy(T a, const T* x, T* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a * x[i] + y[i];
  }
}

template <class T> __global__ void heat_step(const T* u, T* out, int nx, int ny, T alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > 0 && j > 0 && i < nx - 1 && j < ny - 1) {
    int k = j * nx + i;
    out[k] = u[k] + alpha * (u[k - 1] + u[k + 1] + u[k - nx] + u[k + nx] - T(4) * u[k]);
  }
}

template <class T> __global__ void reduce_sum(const T* x, T* result, int n) {
  __shared__ T partial[256];
  int tid = threadIdx.x;
  T acc = 0;
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x) {
    acc += x[i];
  }
  partial[tid] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      partial[tid] += partial[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) {
    atomicAdd(result, partial[0]);
  }
}

__global__ void histogram(const float* x, int n, unsigned* bins, int nbins, float lo, float hi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = static_cast<int>((x[i] - lo) / (hi - lo) * nbins);
    b = b < 0 ? 0 : (b >= nbins ? nbins - 1 : b);
    atomicAdd(&bins[b], 1u);
  }
}

struct vec3 {
  float x, y, z;
};

__global__ void integrate(vec3* pos, vec3* vel, const vec3* force, float dt, float damping,
                          int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    vec3 v = vel[i];
    v.x = (v.x + force[i].x * dt) * damping;
    v.y = (v.y + force[i].y * dt - 9.81f * dt) * damping;
    v.z = (v.z + force[i].z * dt) * damping;
    float len = sqrtf(v.x * v.x + v.y * v.y + v.z * v.z);
    if (len > 100.0f) {
      v.x *= 100.0f / len;
      v.y *= 100.0f / len;
      v.z *= 100.0f / len;
    }
    vel[i] = v;
    pos[i].x += v.x * dt;
    pos[i].y += v.y * dt;
    pos[i].z += v.z * dt;
  }
}

__global__ void softmax_rows(const float* x, float* y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = -1e30f;
    for (int c = 0; c < cols; ++c) {
      m = fmaxf(m, x[r * cols + c]);
    }
    float s = 0;
    for (int c = 0; c < cols; ++c) {
      s += expf(x[r * cols + c] - m);
    }
    for (int c = 0; c < cols; ++c) {
      y[r * cols + c] = expf(x[r * cols + c] - m) / s;
    }
  }
}

template __global__ void axpy<float>(float, const float*, float*, int);
template __global__ void axpy<double>(double, const double*, double*, int);
template __global__ void axpy<int>(int, const int*, int*, int);
template __global__ void heat_step<float>(const float*, float*, int, int, float);
template __global__ void heat_step<double>(const double*, double*, int, int, double);
template __global__ void reduce_sum<float>(const float*, float*, int);
template __global__ void reduce_sum<double>(const double*, double*, int);
template __global__ void reduce_sum<unsigned long long>(const unsigned long long*,
                                                        unsigned long long*, int);
