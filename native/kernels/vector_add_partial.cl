// Test fixture: same contract as vector_add.cl but only the first half of c is written; the rest keeps its old value.
__kernel void vector_add(__global const float *a, __global const float *b, __global float *c)
{
    size_t i = get_global_id(0);
    if (i < get_global_size(0) / 2)
        c[i] = a[i] + b[i];
}
