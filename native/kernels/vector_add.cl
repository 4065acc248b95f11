// Smoke-test kernel: c[i] = a[i] + b[i]; its name and signature are what the smoke test launches.
__kernel void vector_add(__global const float *a, __global const float *b, __global float *c)
{
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}
