// Test fixture: same contract as vector_add.cl but one element (index 37) is off by one, so a checker must catch it.
__kernel void vector_add(__global const float *a, __global const float *b, __global float *c)
{
    size_t i = get_global_id(0);
    float v = a[i] + b[i];
    if (i == 37)
        v += 1.0f;
    c[i] = v;
}
