; A kernel taking a by-value struct that holds a global pointer, as SYCL compilers emit it; OpenCL C cannot express
; this (struct kernel parameters may not contain pointers), so it is written as LLVM IR:
;   struct target { global float *out; float value; };  kernel void struct_arg(struct target t) { t.out[gid] = t.value; }
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64"

%struct.target = type { float addrspace(1)*, float }

define spir_kernel void @struct_arg(%struct.target* byval(%struct.target) align 8 %t) !kernel_arg_addr_space !1 !kernel_arg_access_qual !2 !kernel_arg_type !3 !kernel_arg_base_type !3 !kernel_arg_type_qual !4 {
  %value.addr = getelementptr inbounds %struct.target, %struct.target* %t, i64 0, i32 1
  %value = load float, float* %value.addr, align 8
  %out.addr = getelementptr inbounds %struct.target, %struct.target* %t, i64 0, i32 0
  %out = load float addrspace(1)*, float addrspace(1)** %out.addr, align 8
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %slot = getelementptr inbounds float, float addrspace(1)* %out, i64 %gid
  store float %value, float addrspace(1)* %slot, align 4
  ret void
}

declare spir_func i64 @_Z13get_global_idj(i32)

!opencl.ocl.version = !{!0}
!opencl.spir.version = !{!0}
!0 = !{i32 1, i32 2}
!1 = !{i32 0}
!2 = !{!"none"}
!3 = !{!"struct target"}
!4 = !{!""}
