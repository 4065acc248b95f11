/* OpenCL 2.0 atomics on generic pointers, to global and to local memory, as clang emits them for -cl-std=CL2.0. */
static void bump(volatile atomic_int *counter, int v)
{
    atomic_fetch_add_explicit(counter, v, memory_order_relaxed, memory_scope_device);
}

kernel void atomics20(global atomic_int *counter, global atomic_int *flags, global int *seen, global int *group_total)
{
    local atomic_int group_sum;
    int i = get_global_id(0);
    if (get_local_id(0) == 0)
        atomic_store(&group_sum, 0);
    barrier(CLK_LOCAL_MEM_FENCE);
    bump(counter, i);
    bump(&group_sum, 1);
    volatile atomic_int *f = &flags[i];
    atomic_store(f, i * 3);
    seen[i] = atomic_load(f);
    atomic_fetch_add(counter, 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0)
        group_total[get_group_id(0)] = atomic_load(&group_sum);
}
