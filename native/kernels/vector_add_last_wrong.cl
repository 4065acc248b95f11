// Test fixture: same contract as vector_add.cl but the last element is off by one, so a checker must reach the end.
__kernel void vector_add(__global const float *a, __global const float *b, __global float *c)
{
    size_t i = get_global_id(0);
    float v = a[i] + b[i];
    if (i == get_global_size(0) - 1)
        v += 1.0f;
    c[i] = v;
}
