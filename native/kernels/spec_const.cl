/* A kernel whose factors are SPIR-V specialization constants (SpecId 1: float, 2: int, 3: long), declared the way
   SYCL's headers reach them, so llvm-spirv emits OpSpecConstant with a SpecId decoration for each. */
float __attribute__((overloadable)) __spirv_SpecConstant(int id, float default_value);
int __attribute__((overloadable)) __spirv_SpecConstant(int id, int default_value);
long __attribute__((overloadable)) __spirv_SpecConstant(int id, long default_value);

__kernel void spec_scale(__global const float *in, __global float *out)
{
    size_t i = get_global_id(0);
    float scale = __spirv_SpecConstant(1, 1.0f);
    int offset = __spirv_SpecConstant(2, 0);
    long big = __spirv_SpecConstant(3, 0L);
    out[i] = in[i] * scale + (float)offset + (float)(big >> 32);
}
