; ModuleID = 'bench/vectorize/kernels/mandelbrot.impala'
source_filename = "bench/vectorize/kernels/mandelbrot.impala"
target triple = "x86_64-pc-linux-gnu"

declare void @llvm.masked.store.v16i32.p0(<16 x i32>, ptr, i32, <16 x i1>)
declare void @llvm.masked.store.v8i32.p0(<8 x i32>, ptr, i32, <8 x i1>)
declare void @llvm.masked.store.v4i32.p0(<4 x i32>, ptr, i32, <4 x i1>)

define void @mandelbrot_scalar(i32 %width, i32 %height, i32 %max_iter, ptr %out) {
entry:
  %cast = sitofp i32 %width to float
  %div = fdiv float 0x4008000000000000, %cast
  %cast.1 = sitofp i32 %height to float
  %div.1 = fdiv float 0x4000000000000000, %cast.1
  br label %unroll_step
unroll_step:
  %a = phi i32 [ 0, %entry ], [ %add.6, %ret ]
  %lt = icmp slt i32 %a, %height
  br i1 %lt, label %then, label %if_join.1
then:
  %cast.2 = sitofp i32 %a to float
  %mul = fmul float %cast.2, %div.1
  %sub = fsub float %mul, 0x3FF0000000000000
  %mul.1 = mul i32 %a, %width
  br label %unroll_step.1
unroll_step.1:
  %a.1 = phi i32 [ 0, %then ], [ %add.4, %while_exit ]
  %lt.1 = icmp slt i32 %a.1, %width
  br i1 %lt.1, label %then.1, label %ret
then.1:
  %cast.3 = sitofp i32 %a.1 to float
  %mul.2 = fmul float %cast.3, %div
  %sub.1 = fsub float %mul.2, 0x4000000000000000
  br label %while_head
while_head:
  %k = phi i32 [ 0, %then.1 ], [ %add.1, %if_join ]
  %zr = phi float [ 0x0000000000000000, %then.1 ], [ %add.2, %if_join ]
  %zi = phi float [ 0x0000000000000000, %then.1 ], [ %add.3, %if_join ]
  %lt.2 = icmp slt i32 %k, %max_iter
  br i1 %lt.2, label %then.2, label %while_exit
then.2:
  %mul.3 = fmul float %zi, %zi
  %mul.4 = fmul float %zr, %zr
  %add = fadd float %mul.4, %mul.3
  %gt = fcmp ogt float %add, 0x4010000000000000
  br i1 %gt, label %while_exit, label %if_join
if_join:
  %add.1 = add i32 %k, 1
  %sub.2 = fsub float %mul.4, %mul.3
  %add.2 = fadd float %sub.2, %sub.1
  %mul.5 = fmul float %zr, 0x4000000000000000
  %mul.6 = fmul float %mul.5, %zi
  %add.3 = fadd float %mul.6, %sub
  br label %while_head
while_exit:
  %add.4 = add i32 %a.1, 1
  %add.5 = add i32 %mul.1, %a.1
  %lea = getelementptr inbounds i32, ptr %out, i32 %add.5
  store i32 %k, ptr %lea
  br label %unroll_step.1
ret:
  %add.6 = add i32 %a, 1
  br label %unroll_step
if_join.1:
  ret void
}

define void @mandelbrot_v4(i32 %width, i32 %height, i32 %max_iter, ptr %out) {
entry:
  %cast = sitofp i32 %width to float
  %div = fdiv float 0x4008000000000000, %cast
  %cast.1 = sitofp i32 %height to float
  %div.1 = fdiv float 0x4000000000000000, %cast.1
  %vec = insertelement <4 x float> undef, float %div, i32 0
  %vec.1 = insertelement <4 x float> %vec, float %div, i32 1
  %vec.2 = insertelement <4 x float> %vec.1, float %div, i32 2
  %vec.3 = insertelement <4 x float> %vec.2, float %div, i32 3
  %vec.4 = insertelement <4 x i32> undef, i32 %width, i32 0
  %vec.5 = insertelement <4 x i32> %vec.4, i32 %width, i32 1
  %vec.6 = insertelement <4 x i32> %vec.5, i32 %width, i32 2
  %vec.7 = insertelement <4 x i32> %vec.6, i32 %width, i32 3
  br label %unroll_step
unroll_step:
  %a = phi i32 [ 0, %entry ], [ %add.11, %ret ]
  %lt = icmp slt i32 %a, %height
  br i1 %lt, label %then, label %if_join
then:
  %cast.2 = sitofp i32 %a to float
  %mul = fmul float %cast.2, %div.1
  %sub = fsub float %mul, 0x3FF0000000000000
  %mul.1 = mul i32 %a, %width
  %vec.8 = insertelement <4 x float> undef, float %sub, i32 0
  %vec.9 = insertelement <4 x float> %vec.8, float %sub, i32 1
  %vec.10 = insertelement <4 x float> %vec.9, float %sub, i32 2
  %vec.11 = insertelement <4 x float> %vec.10, float %sub, i32 3
  br label %vector_head
vector_head:
  %i = phi i32 [ 0, %then ], [ %add.6, %vector_next ]
  %vec.12 = insertelement <4 x i32> undef, i32 %i, i32 0
  %vec.13 = insertelement <4 x i32> %vec.12, i32 %i, i32 1
  %vec.14 = insertelement <4 x i32> %vec.13, i32 %i, i32 2
  %vec.15 = insertelement <4 x i32> %vec.14, i32 %i, i32 3
  %add = add <4 x i32> %vec.15, <i32 0, i32 1, i32 2, i32 3>
  %cast.3 = sitofp <4 x i32> %add to <4 x float>
  %add.1 = add i32 %mul.1, %i
  %lea = getelementptr inbounds i32, ptr %out, i32 %add.1
  %mul.2 = fmul <4 x float> %cast.3, %vec.3
  %sub.1 = fsub <4 x float> %mul.2, <float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000>
  %sub.2 = sub i32 %width, %i
  %ge = icmp sge i32 %sub.2, 4
  br i1 %ge, label %vector_iteration, label %vector_rest
vector_iteration:
  br label %loop
loop:
  %phi = phi i32 [ 0, %vector_iteration ], [ %add.3, %loop_body ]
  %phi.1 = phi <4 x float> [ <float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000>, %vector_iteration ], [ %add.4, %loop_body ]
  %phi.2 = phi <4 x float> [ <float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000>, %vector_iteration ], [ %add.5, %loop_body ]
  %phi.3 = phi <4 x i1> [ <i1 true, i1 true, i1 true, i1 true>, %vector_iteration ], [ %select.1, %loop_body ]
  %phi.4 = phi <4 x i1> [ <i1 false, i1 false, i1 false, i1 false>, %vector_iteration ], [ %select.5, %loop_body ]
  %phi.5 = phi <4 x i32> [ undef, %vector_iteration ], [ %select.7, %loop_body ]
  %cast.4 = zext <4 x i1> %phi.3 to <4 x i8>
  %bits = bitcast <4 x i8> %cast.4 to i32
  %ne = icmp ne i32 %bits, 0
  br i1 %ne, label %loop_body, label %loop_exit
loop_body:
  %mul.3 = fmul <4 x float> %phi.2, %phi.2
  %mul.4 = fmul <4 x float> %phi.1, %phi.1
  %add.2 = fadd <4 x float> %mul.4, %mul.3
  %gt = fcmp ogt <4 x float> %add.2, <float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000>
  %xor = xor <4 x i1> %gt, <i1 true, i1 true, i1 true, i1 true>
  %add.3 = add i32 %phi, 1
  %sub.3 = fsub <4 x float> %mul.4, %mul.3
  %mul.5 = fmul <4 x float> %phi.1, <float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000>
  %mul.6 = fmul <4 x float> %mul.5, %phi.2
  %vec.16 = insertelement <4 x i32> undef, i32 %phi, i32 0
  %vec.17 = insertelement <4 x i32> %vec.16, i32 %phi, i32 1
  %vec.18 = insertelement <4 x i32> %vec.17, i32 %phi, i32 2
  %vec.19 = insertelement <4 x i32> %vec.18, i32 %phi, i32 3
  %add.4 = fadd <4 x float> %sub.3, %sub.1
  %add.5 = fadd <4 x float> %mul.6, %vec.11
  %lt.1 = icmp slt i32 %phi, %max_iter
  %select = select i1 %lt.1, <4 x i1> %phi.3, <4 x i1> <i1 false, i1 false, i1 false, i1 false>
  %select.1 = select <4 x i1> %select, <4 x i1> %xor, <4 x i1> <i1 false, i1 false, i1 false, i1 false>
  %select.2 = select <4 x i1> %select, <4 x i1> %gt, <4 x i1> <i1 false, i1 false, i1 false, i1 false>
  %select.3 = select i1 %lt.1, <4 x i1> <i1 false, i1 false, i1 false, i1 false>, <4 x i1> %phi.3
  %select.4 = select <4 x i1> %phi.4, <4 x i1> <i1 true, i1 true, i1 true, i1 true>, <4 x i1> %select.3
  %select.5 = select <4 x i1> %select.4, <4 x i1> <i1 true, i1 true, i1 true, i1 true>, <4 x i1> %select.2
  %xor.1 = xor <4 x i1> %select.1, <i1 true, i1 true, i1 true, i1 true>
  %select.6 = select <4 x i1> %phi.3, <4 x i1> %xor.1, <4 x i1> <i1 false, i1 false, i1 false, i1 false>
  %select.7 = select <4 x i1> %select.6, <4 x i32> %vec.19, <4 x i32> %phi.5
  br label %loop
loop_exit:
  call void @llvm.masked.store.v4i32.p0(<4 x i32> %phi.5, ptr %lea, i32 4, <4 x i1> %phi.4)
  br label %vector_next
vector_next:
  %add.6 = add i32 %i, 4
  br label %vector_head
vector_rest:
  %lt.2 = icmp slt i32 %i, %width
  br i1 %lt.2, label %vector_remainder, label %ret
vector_remainder:
  %lt.3 = icmp slt <4 x i32> %add, %vec.7
  br label %loop.1
loop.1:
  %phi.6 = phi i32 [ 0, %vector_remainder ], [ %add.8, %loop_body.1 ]
  %phi.7 = phi <4 x float> [ <float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000>, %vector_remainder ], [ %add.9, %loop_body.1 ]
  %phi.8 = phi <4 x float> [ <float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000>, %vector_remainder ], [ %add.10, %loop_body.1 ]
  %phi.9 = phi <4 x i1> [ %lt.3, %vector_remainder ], [ %select.9, %loop_body.1 ]
  %phi.10 = phi <4 x i1> [ <i1 false, i1 false, i1 false, i1 false>, %vector_remainder ], [ %select.13, %loop_body.1 ]
  %phi.11 = phi <4 x i32> [ undef, %vector_remainder ], [ %select.15, %loop_body.1 ]
  %cast.5 = zext <4 x i1> %phi.9 to <4 x i8>
  %bits.1 = bitcast <4 x i8> %cast.5 to i32
  %ne.1 = icmp ne i32 %bits.1, 0
  br i1 %ne.1, label %loop_body.1, label %loop_exit.1
loop_body.1:
  %mul.7 = fmul <4 x float> %phi.8, %phi.8
  %mul.8 = fmul <4 x float> %phi.7, %phi.7
  %add.7 = fadd <4 x float> %mul.8, %mul.7
  %gt.1 = fcmp ogt <4 x float> %add.7, <float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000>
  %xor.2 = xor <4 x i1> %gt.1, <i1 true, i1 true, i1 true, i1 true>
  %add.8 = add i32 %phi.6, 1
  %sub.4 = fsub <4 x float> %mul.8, %mul.7
  %mul.9 = fmul <4 x float> %phi.7, <float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000>
  %mul.10 = fmul <4 x float> %mul.9, %phi.8
  %vec.20 = insertelement <4 x i32> undef, i32 %phi.6, i32 0
  %vec.21 = insertelement <4 x i32> %vec.20, i32 %phi.6, i32 1
  %vec.22 = insertelement <4 x i32> %vec.21, i32 %phi.6, i32 2
  %vec.23 = insertelement <4 x i32> %vec.22, i32 %phi.6, i32 3
  %add.9 = fadd <4 x float> %sub.4, %sub.1
  %add.10 = fadd <4 x float> %mul.10, %vec.11
  %lt.4 = icmp slt i32 %phi.6, %max_iter
  %select.8 = select i1 %lt.4, <4 x i1> %phi.9, <4 x i1> <i1 false, i1 false, i1 false, i1 false>
  %select.9 = select <4 x i1> %select.8, <4 x i1> %xor.2, <4 x i1> <i1 false, i1 false, i1 false, i1 false>
  %select.10 = select <4 x i1> %select.8, <4 x i1> %gt.1, <4 x i1> <i1 false, i1 false, i1 false, i1 false>
  %select.11 = select i1 %lt.4, <4 x i1> <i1 false, i1 false, i1 false, i1 false>, <4 x i1> %phi.9
  %select.12 = select <4 x i1> %phi.10, <4 x i1> <i1 true, i1 true, i1 true, i1 true>, <4 x i1> %select.11
  %select.13 = select <4 x i1> %select.12, <4 x i1> <i1 true, i1 true, i1 true, i1 true>, <4 x i1> %select.10
  %xor.3 = xor <4 x i1> %select.9, <i1 true, i1 true, i1 true, i1 true>
  %select.14 = select <4 x i1> %phi.9, <4 x i1> %xor.3, <4 x i1> <i1 false, i1 false, i1 false, i1 false>
  %select.15 = select <4 x i1> %select.14, <4 x i32> %vec.23, <4 x i32> %phi.11
  br label %loop.1
loop_exit.1:
  call void @llvm.masked.store.v4i32.p0(<4 x i32> %phi.11, ptr %lea, i32 4, <4 x i1> %phi.10)
  br label %ret
ret:
  %add.11 = add i32 %a, 1
  br label %unroll_step
if_join:
  ret void
}

define void @mandelbrot_v8(i32 %width, i32 %height, i32 %max_iter, ptr %out) {
entry:
  %cast = sitofp i32 %width to float
  %div = fdiv float 0x4008000000000000, %cast
  %cast.1 = sitofp i32 %height to float
  %div.1 = fdiv float 0x4000000000000000, %cast.1
  %vec = insertelement <8 x float> undef, float %div, i32 0
  %vec.1 = insertelement <8 x float> %vec, float %div, i32 1
  %vec.2 = insertelement <8 x float> %vec.1, float %div, i32 2
  %vec.3 = insertelement <8 x float> %vec.2, float %div, i32 3
  %vec.4 = insertelement <8 x float> %vec.3, float %div, i32 4
  %vec.5 = insertelement <8 x float> %vec.4, float %div, i32 5
  %vec.6 = insertelement <8 x float> %vec.5, float %div, i32 6
  %vec.7 = insertelement <8 x float> %vec.6, float %div, i32 7
  %vec.8 = insertelement <8 x i32> undef, i32 %width, i32 0
  %vec.9 = insertelement <8 x i32> %vec.8, i32 %width, i32 1
  %vec.10 = insertelement <8 x i32> %vec.9, i32 %width, i32 2
  %vec.11 = insertelement <8 x i32> %vec.10, i32 %width, i32 3
  %vec.12 = insertelement <8 x i32> %vec.11, i32 %width, i32 4
  %vec.13 = insertelement <8 x i32> %vec.12, i32 %width, i32 5
  %vec.14 = insertelement <8 x i32> %vec.13, i32 %width, i32 6
  %vec.15 = insertelement <8 x i32> %vec.14, i32 %width, i32 7
  br label %unroll_step
unroll_step:
  %a = phi i32 [ 0, %entry ], [ %add.11, %ret ]
  %lt = icmp slt i32 %a, %height
  br i1 %lt, label %then, label %if_join
then:
  %cast.2 = sitofp i32 %a to float
  %mul = fmul float %cast.2, %div.1
  %sub = fsub float %mul, 0x3FF0000000000000
  %mul.1 = mul i32 %a, %width
  %vec.16 = insertelement <8 x float> undef, float %sub, i32 0
  %vec.17 = insertelement <8 x float> %vec.16, float %sub, i32 1
  %vec.18 = insertelement <8 x float> %vec.17, float %sub, i32 2
  %vec.19 = insertelement <8 x float> %vec.18, float %sub, i32 3
  %vec.20 = insertelement <8 x float> %vec.19, float %sub, i32 4
  %vec.21 = insertelement <8 x float> %vec.20, float %sub, i32 5
  %vec.22 = insertelement <8 x float> %vec.21, float %sub, i32 6
  %vec.23 = insertelement <8 x float> %vec.22, float %sub, i32 7
  br label %vector_head
vector_head:
  %i = phi i32 [ 0, %then ], [ %add.6, %vector_next ]
  %vec.24 = insertelement <8 x i32> undef, i32 %i, i32 0
  %vec.25 = insertelement <8 x i32> %vec.24, i32 %i, i32 1
  %vec.26 = insertelement <8 x i32> %vec.25, i32 %i, i32 2
  %vec.27 = insertelement <8 x i32> %vec.26, i32 %i, i32 3
  %vec.28 = insertelement <8 x i32> %vec.27, i32 %i, i32 4
  %vec.29 = insertelement <8 x i32> %vec.28, i32 %i, i32 5
  %vec.30 = insertelement <8 x i32> %vec.29, i32 %i, i32 6
  %vec.31 = insertelement <8 x i32> %vec.30, i32 %i, i32 7
  %add = add <8 x i32> %vec.31, <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %cast.3 = sitofp <8 x i32> %add to <8 x float>
  %add.1 = add i32 %mul.1, %i
  %lea = getelementptr inbounds i32, ptr %out, i32 %add.1
  %mul.2 = fmul <8 x float> %cast.3, %vec.7
  %sub.1 = fsub <8 x float> %mul.2, <float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000>
  %sub.2 = sub i32 %width, %i
  %ge = icmp sge i32 %sub.2, 8
  br i1 %ge, label %vector_iteration, label %vector_rest
vector_iteration:
  br label %loop
loop:
  %phi = phi i32 [ 0, %vector_iteration ], [ %add.3, %loop_body ]
  %phi.1 = phi <8 x float> [ <float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000>, %vector_iteration ], [ %add.4, %loop_body ]
  %phi.2 = phi <8 x float> [ <float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000>, %vector_iteration ], [ %add.5, %loop_body ]
  %phi.3 = phi <8 x i1> [ <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>, %vector_iteration ], [ %select.1, %loop_body ]
  %phi.4 = phi <8 x i1> [ <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>, %vector_iteration ], [ %select.5, %loop_body ]
  %phi.5 = phi <8 x i32> [ undef, %vector_iteration ], [ %select.7, %loop_body ]
  %bits = bitcast <8 x i1> %phi.3 to i8
  %ne = icmp ne i8 %bits, 0
  br i1 %ne, label %loop_body, label %loop_exit
loop_body:
  %mul.3 = fmul <8 x float> %phi.2, %phi.2
  %mul.4 = fmul <8 x float> %phi.1, %phi.1
  %add.2 = fadd <8 x float> %mul.4, %mul.3
  %gt = fcmp ogt <8 x float> %add.2, <float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000>
  %xor = xor <8 x i1> %gt, <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>
  %add.3 = add i32 %phi, 1
  %sub.3 = fsub <8 x float> %mul.4, %mul.3
  %mul.5 = fmul <8 x float> %phi.1, <float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000>
  %mul.6 = fmul <8 x float> %mul.5, %phi.2
  %vec.32 = insertelement <8 x i32> undef, i32 %phi, i32 0
  %vec.33 = insertelement <8 x i32> %vec.32, i32 %phi, i32 1
  %vec.34 = insertelement <8 x i32> %vec.33, i32 %phi, i32 2
  %vec.35 = insertelement <8 x i32> %vec.34, i32 %phi, i32 3
  %vec.36 = insertelement <8 x i32> %vec.35, i32 %phi, i32 4
  %vec.37 = insertelement <8 x i32> %vec.36, i32 %phi, i32 5
  %vec.38 = insertelement <8 x i32> %vec.37, i32 %phi, i32 6
  %vec.39 = insertelement <8 x i32> %vec.38, i32 %phi, i32 7
  %add.4 = fadd <8 x float> %sub.3, %sub.1
  %add.5 = fadd <8 x float> %mul.6, %vec.23
  %lt.1 = icmp slt i32 %phi, %max_iter
  %select = select i1 %lt.1, <8 x i1> %phi.3, <8 x i1> <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>
  %select.1 = select <8 x i1> %select, <8 x i1> %xor, <8 x i1> <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>
  %select.2 = select <8 x i1> %select, <8 x i1> %gt, <8 x i1> <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>
  %select.3 = select i1 %lt.1, <8 x i1> <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>, <8 x i1> %phi.3
  %select.4 = select <8 x i1> %phi.4, <8 x i1> <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>, <8 x i1> %select.3
  %select.5 = select <8 x i1> %select.4, <8 x i1> <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>, <8 x i1> %select.2
  %xor.1 = xor <8 x i1> %select.1, <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>
  %select.6 = select <8 x i1> %phi.3, <8 x i1> %xor.1, <8 x i1> <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>
  %select.7 = select <8 x i1> %select.6, <8 x i32> %vec.39, <8 x i32> %phi.5
  br label %loop
loop_exit:
  call void @llvm.masked.store.v8i32.p0(<8 x i32> %phi.5, ptr %lea, i32 4, <8 x i1> %phi.4)
  br label %vector_next
vector_next:
  %add.6 = add i32 %i, 8
  br label %vector_head
vector_rest:
  %lt.2 = icmp slt i32 %i, %width
  br i1 %lt.2, label %vector_remainder, label %ret
vector_remainder:
  %lt.3 = icmp slt <8 x i32> %add, %vec.15
  br label %loop.1
loop.1:
  %phi.6 = phi i32 [ 0, %vector_remainder ], [ %add.8, %loop_body.1 ]
  %phi.7 = phi <8 x float> [ <float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000>, %vector_remainder ], [ %add.9, %loop_body.1 ]
  %phi.8 = phi <8 x float> [ <float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000>, %vector_remainder ], [ %add.10, %loop_body.1 ]
  %phi.9 = phi <8 x i1> [ %lt.3, %vector_remainder ], [ %select.9, %loop_body.1 ]
  %phi.10 = phi <8 x i1> [ <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>, %vector_remainder ], [ %select.13, %loop_body.1 ]
  %phi.11 = phi <8 x i32> [ undef, %vector_remainder ], [ %select.15, %loop_body.1 ]
  %bits.1 = bitcast <8 x i1> %phi.9 to i8
  %ne.1 = icmp ne i8 %bits.1, 0
  br i1 %ne.1, label %loop_body.1, label %loop_exit.1
loop_body.1:
  %mul.7 = fmul <8 x float> %phi.8, %phi.8
  %mul.8 = fmul <8 x float> %phi.7, %phi.7
  %add.7 = fadd <8 x float> %mul.8, %mul.7
  %gt.1 = fcmp ogt <8 x float> %add.7, <float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000>
  %xor.2 = xor <8 x i1> %gt.1, <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>
  %add.8 = add i32 %phi.6, 1
  %sub.4 = fsub <8 x float> %mul.8, %mul.7
  %mul.9 = fmul <8 x float> %phi.7, <float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000>
  %mul.10 = fmul <8 x float> %mul.9, %phi.8
  %vec.40 = insertelement <8 x i32> undef, i32 %phi.6, i32 0
  %vec.41 = insertelement <8 x i32> %vec.40, i32 %phi.6, i32 1
  %vec.42 = insertelement <8 x i32> %vec.41, i32 %phi.6, i32 2
  %vec.43 = insertelement <8 x i32> %vec.42, i32 %phi.6, i32 3
  %vec.44 = insertelement <8 x i32> %vec.43, i32 %phi.6, i32 4
  %vec.45 = insertelement <8 x i32> %vec.44, i32 %phi.6, i32 5
  %vec.46 = insertelement <8 x i32> %vec.45, i32 %phi.6, i32 6
  %vec.47 = insertelement <8 x i32> %vec.46, i32 %phi.6, i32 7
  %add.9 = fadd <8 x float> %sub.4, %sub.1
  %add.10 = fadd <8 x float> %mul.10, %vec.23
  %lt.4 = icmp slt i32 %phi.6, %max_iter
  %select.8 = select i1 %lt.4, <8 x i1> %phi.9, <8 x i1> <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>
  %select.9 = select <8 x i1> %select.8, <8 x i1> %xor.2, <8 x i1> <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>
  %select.10 = select <8 x i1> %select.8, <8 x i1> %gt.1, <8 x i1> <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>
  %select.11 = select i1 %lt.4, <8 x i1> <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>, <8 x i1> %phi.9
  %select.12 = select <8 x i1> %phi.10, <8 x i1> <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>, <8 x i1> %select.11
  %select.13 = select <8 x i1> %select.12, <8 x i1> <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>, <8 x i1> %select.10
  %xor.3 = xor <8 x i1> %select.9, <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>
  %select.14 = select <8 x i1> %phi.9, <8 x i1> %xor.3, <8 x i1> <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>
  %select.15 = select <8 x i1> %select.14, <8 x i32> %vec.47, <8 x i32> %phi.11
  br label %loop.1
loop_exit.1:
  call void @llvm.masked.store.v8i32.p0(<8 x i32> %phi.11, ptr %lea, i32 4, <8 x i1> %phi.10)
  br label %ret
ret:
  %add.11 = add i32 %a, 1
  br label %unroll_step
if_join:
  ret void
}

define void @mandelbrot_v16(i32 %width, i32 %height, i32 %max_iter, ptr %out) {
entry:
  %cast = sitofp i32 %width to float
  %div = fdiv float 0x4008000000000000, %cast
  %cast.1 = sitofp i32 %height to float
  %div.1 = fdiv float 0x4000000000000000, %cast.1
  %vec = insertelement <16 x float> undef, float %div, i32 0
  %vec.1 = insertelement <16 x float> %vec, float %div, i32 1
  %vec.2 = insertelement <16 x float> %vec.1, float %div, i32 2
  %vec.3 = insertelement <16 x float> %vec.2, float %div, i32 3
  %vec.4 = insertelement <16 x float> %vec.3, float %div, i32 4
  %vec.5 = insertelement <16 x float> %vec.4, float %div, i32 5
  %vec.6 = insertelement <16 x float> %vec.5, float %div, i32 6
  %vec.7 = insertelement <16 x float> %vec.6, float %div, i32 7
  %vec.8 = insertelement <16 x float> %vec.7, float %div, i32 8
  %vec.9 = insertelement <16 x float> %vec.8, float %div, i32 9
  %vec.10 = insertelement <16 x float> %vec.9, float %div, i32 10
  %vec.11 = insertelement <16 x float> %vec.10, float %div, i32 11
  %vec.12 = insertelement <16 x float> %vec.11, float %div, i32 12
  %vec.13 = insertelement <16 x float> %vec.12, float %div, i32 13
  %vec.14 = insertelement <16 x float> %vec.13, float %div, i32 14
  %vec.15 = insertelement <16 x float> %vec.14, float %div, i32 15
  %vec.16 = insertelement <16 x i32> undef, i32 %width, i32 0
  %vec.17 = insertelement <16 x i32> %vec.16, i32 %width, i32 1
  %vec.18 = insertelement <16 x i32> %vec.17, i32 %width, i32 2
  %vec.19 = insertelement <16 x i32> %vec.18, i32 %width, i32 3
  %vec.20 = insertelement <16 x i32> %vec.19, i32 %width, i32 4
  %vec.21 = insertelement <16 x i32> %vec.20, i32 %width, i32 5
  %vec.22 = insertelement <16 x i32> %vec.21, i32 %width, i32 6
  %vec.23 = insertelement <16 x i32> %vec.22, i32 %width, i32 7
  %vec.24 = insertelement <16 x i32> %vec.23, i32 %width, i32 8
  %vec.25 = insertelement <16 x i32> %vec.24, i32 %width, i32 9
  %vec.26 = insertelement <16 x i32> %vec.25, i32 %width, i32 10
  %vec.27 = insertelement <16 x i32> %vec.26, i32 %width, i32 11
  %vec.28 = insertelement <16 x i32> %vec.27, i32 %width, i32 12
  %vec.29 = insertelement <16 x i32> %vec.28, i32 %width, i32 13
  %vec.30 = insertelement <16 x i32> %vec.29, i32 %width, i32 14
  %vec.31 = insertelement <16 x i32> %vec.30, i32 %width, i32 15
  br label %unroll_step
unroll_step:
  %a = phi i32 [ 0, %entry ], [ %add.11, %ret ]
  %lt = icmp slt i32 %a, %height
  br i1 %lt, label %then, label %if_join
then:
  %cast.2 = sitofp i32 %a to float
  %mul = fmul float %cast.2, %div.1
  %sub = fsub float %mul, 0x3FF0000000000000
  %mul.1 = mul i32 %a, %width
  %vec.32 = insertelement <16 x float> undef, float %sub, i32 0
  %vec.33 = insertelement <16 x float> %vec.32, float %sub, i32 1
  %vec.34 = insertelement <16 x float> %vec.33, float %sub, i32 2
  %vec.35 = insertelement <16 x float> %vec.34, float %sub, i32 3
  %vec.36 = insertelement <16 x float> %vec.35, float %sub, i32 4
  %vec.37 = insertelement <16 x float> %vec.36, float %sub, i32 5
  %vec.38 = insertelement <16 x float> %vec.37, float %sub, i32 6
  %vec.39 = insertelement <16 x float> %vec.38, float %sub, i32 7
  %vec.40 = insertelement <16 x float> %vec.39, float %sub, i32 8
  %vec.41 = insertelement <16 x float> %vec.40, float %sub, i32 9
  %vec.42 = insertelement <16 x float> %vec.41, float %sub, i32 10
  %vec.43 = insertelement <16 x float> %vec.42, float %sub, i32 11
  %vec.44 = insertelement <16 x float> %vec.43, float %sub, i32 12
  %vec.45 = insertelement <16 x float> %vec.44, float %sub, i32 13
  %vec.46 = insertelement <16 x float> %vec.45, float %sub, i32 14
  %vec.47 = insertelement <16 x float> %vec.46, float %sub, i32 15
  br label %vector_head
vector_head:
  %i = phi i32 [ 0, %then ], [ %add.6, %vector_next ]
  %vec.48 = insertelement <16 x i32> undef, i32 %i, i32 0
  %vec.49 = insertelement <16 x i32> %vec.48, i32 %i, i32 1
  %vec.50 = insertelement <16 x i32> %vec.49, i32 %i, i32 2
  %vec.51 = insertelement <16 x i32> %vec.50, i32 %i, i32 3
  %vec.52 = insertelement <16 x i32> %vec.51, i32 %i, i32 4
  %vec.53 = insertelement <16 x i32> %vec.52, i32 %i, i32 5
  %vec.54 = insertelement <16 x i32> %vec.53, i32 %i, i32 6
  %vec.55 = insertelement <16 x i32> %vec.54, i32 %i, i32 7
  %vec.56 = insertelement <16 x i32> %vec.55, i32 %i, i32 8
  %vec.57 = insertelement <16 x i32> %vec.56, i32 %i, i32 9
  %vec.58 = insertelement <16 x i32> %vec.57, i32 %i, i32 10
  %vec.59 = insertelement <16 x i32> %vec.58, i32 %i, i32 11
  %vec.60 = insertelement <16 x i32> %vec.59, i32 %i, i32 12
  %vec.61 = insertelement <16 x i32> %vec.60, i32 %i, i32 13
  %vec.62 = insertelement <16 x i32> %vec.61, i32 %i, i32 14
  %vec.63 = insertelement <16 x i32> %vec.62, i32 %i, i32 15
  %add = add <16 x i32> %vec.63, <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15>
  %cast.3 = sitofp <16 x i32> %add to <16 x float>
  %add.1 = add i32 %mul.1, %i
  %lea = getelementptr inbounds i32, ptr %out, i32 %add.1
  %mul.2 = fmul <16 x float> %cast.3, %vec.15
  %sub.1 = fsub <16 x float> %mul.2, <float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000>
  %sub.2 = sub i32 %width, %i
  %ge = icmp sge i32 %sub.2, 16
  br i1 %ge, label %vector_iteration, label %vector_rest
vector_iteration:
  br label %loop
loop:
  %phi = phi i32 [ 0, %vector_iteration ], [ %add.3, %loop_body ]
  %phi.1 = phi <16 x float> [ <float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000>, %vector_iteration ], [ %add.4, %loop_body ]
  %phi.2 = phi <16 x float> [ <float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000>, %vector_iteration ], [ %add.5, %loop_body ]
  %phi.3 = phi <16 x i1> [ <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>, %vector_iteration ], [ %select.1, %loop_body ]
  %phi.4 = phi <16 x i1> [ <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>, %vector_iteration ], [ %select.5, %loop_body ]
  %phi.5 = phi <16 x i32> [ undef, %vector_iteration ], [ %select.7, %loop_body ]
  %bits = bitcast <16 x i1> %phi.3 to i16
  %ne = icmp ne i16 %bits, 0
  br i1 %ne, label %loop_body, label %loop_exit
loop_body:
  %mul.3 = fmul <16 x float> %phi.2, %phi.2
  %mul.4 = fmul <16 x float> %phi.1, %phi.1
  %add.2 = fadd <16 x float> %mul.4, %mul.3
  %gt = fcmp ogt <16 x float> %add.2, <float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000>
  %xor = xor <16 x i1> %gt, <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>
  %add.3 = add i32 %phi, 1
  %sub.3 = fsub <16 x float> %mul.4, %mul.3
  %mul.5 = fmul <16 x float> %phi.1, <float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000>
  %mul.6 = fmul <16 x float> %mul.5, %phi.2
  %vec.64 = insertelement <16 x i32> undef, i32 %phi, i32 0
  %vec.65 = insertelement <16 x i32> %vec.64, i32 %phi, i32 1
  %vec.66 = insertelement <16 x i32> %vec.65, i32 %phi, i32 2
  %vec.67 = insertelement <16 x i32> %vec.66, i32 %phi, i32 3
  %vec.68 = insertelement <16 x i32> %vec.67, i32 %phi, i32 4
  %vec.69 = insertelement <16 x i32> %vec.68, i32 %phi, i32 5
  %vec.70 = insertelement <16 x i32> %vec.69, i32 %phi, i32 6
  %vec.71 = insertelement <16 x i32> %vec.70, i32 %phi, i32 7
  %vec.72 = insertelement <16 x i32> %vec.71, i32 %phi, i32 8
  %vec.73 = insertelement <16 x i32> %vec.72, i32 %phi, i32 9
  %vec.74 = insertelement <16 x i32> %vec.73, i32 %phi, i32 10
  %vec.75 = insertelement <16 x i32> %vec.74, i32 %phi, i32 11
  %vec.76 = insertelement <16 x i32> %vec.75, i32 %phi, i32 12
  %vec.77 = insertelement <16 x i32> %vec.76, i32 %phi, i32 13
  %vec.78 = insertelement <16 x i32> %vec.77, i32 %phi, i32 14
  %vec.79 = insertelement <16 x i32> %vec.78, i32 %phi, i32 15
  %add.4 = fadd <16 x float> %sub.3, %sub.1
  %add.5 = fadd <16 x float> %mul.6, %vec.47
  %lt.1 = icmp slt i32 %phi, %max_iter
  %select = select i1 %lt.1, <16 x i1> %phi.3, <16 x i1> <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>
  %select.1 = select <16 x i1> %select, <16 x i1> %xor, <16 x i1> <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>
  %select.2 = select <16 x i1> %select, <16 x i1> %gt, <16 x i1> <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>
  %select.3 = select i1 %lt.1, <16 x i1> <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>, <16 x i1> %phi.3
  %select.4 = select <16 x i1> %phi.4, <16 x i1> <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>, <16 x i1> %select.3
  %select.5 = select <16 x i1> %select.4, <16 x i1> <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>, <16 x i1> %select.2
  %xor.1 = xor <16 x i1> %select.1, <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>
  %select.6 = select <16 x i1> %phi.3, <16 x i1> %xor.1, <16 x i1> <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>
  %select.7 = select <16 x i1> %select.6, <16 x i32> %vec.79, <16 x i32> %phi.5
  br label %loop
loop_exit:
  call void @llvm.masked.store.v16i32.p0(<16 x i32> %phi.5, ptr %lea, i32 4, <16 x i1> %phi.4)
  br label %vector_next
vector_next:
  %add.6 = add i32 %i, 16
  br label %vector_head
vector_rest:
  %lt.2 = icmp slt i32 %i, %width
  br i1 %lt.2, label %vector_remainder, label %ret
vector_remainder:
  %lt.3 = icmp slt <16 x i32> %add, %vec.31
  br label %loop.1
loop.1:
  %phi.6 = phi i32 [ 0, %vector_remainder ], [ %add.8, %loop_body.1 ]
  %phi.7 = phi <16 x float> [ <float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000>, %vector_remainder ], [ %add.9, %loop_body.1 ]
  %phi.8 = phi <16 x float> [ <float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000, float 0x0000000000000000>, %vector_remainder ], [ %add.10, %loop_body.1 ]
  %phi.9 = phi <16 x i1> [ %lt.3, %vector_remainder ], [ %select.9, %loop_body.1 ]
  %phi.10 = phi <16 x i1> [ <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>, %vector_remainder ], [ %select.13, %loop_body.1 ]
  %phi.11 = phi <16 x i32> [ undef, %vector_remainder ], [ %select.15, %loop_body.1 ]
  %bits.1 = bitcast <16 x i1> %phi.9 to i16
  %ne.1 = icmp ne i16 %bits.1, 0
  br i1 %ne.1, label %loop_body.1, label %loop_exit.1
loop_body.1:
  %mul.7 = fmul <16 x float> %phi.8, %phi.8
  %mul.8 = fmul <16 x float> %phi.7, %phi.7
  %add.7 = fadd <16 x float> %mul.8, %mul.7
  %gt.1 = fcmp ogt <16 x float> %add.7, <float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000, float 0x4010000000000000>
  %xor.2 = xor <16 x i1> %gt.1, <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>
  %add.8 = add i32 %phi.6, 1
  %sub.4 = fsub <16 x float> %mul.8, %mul.7
  %mul.9 = fmul <16 x float> %phi.7, <float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000, float 0x4000000000000000>
  %mul.10 = fmul <16 x float> %mul.9, %phi.8
  %vec.80 = insertelement <16 x i32> undef, i32 %phi.6, i32 0
  %vec.81 = insertelement <16 x i32> %vec.80, i32 %phi.6, i32 1
  %vec.82 = insertelement <16 x i32> %vec.81, i32 %phi.6, i32 2
  %vec.83 = insertelement <16 x i32> %vec.82, i32 %phi.6, i32 3
  %vec.84 = insertelement <16 x i32> %vec.83, i32 %phi.6, i32 4
  %vec.85 = insertelement <16 x i32> %vec.84, i32 %phi.6, i32 5
  %vec.86 = insertelement <16 x i32> %vec.85, i32 %phi.6, i32 6
  %vec.87 = insertelement <16 x i32> %vec.86, i32 %phi.6, i32 7
  %vec.88 = insertelement <16 x i32> %vec.87, i32 %phi.6, i32 8
  %vec.89 = insertelement <16 x i32> %vec.88, i32 %phi.6, i32 9
  %vec.90 = insertelement <16 x i32> %vec.89, i32 %phi.6, i32 10
  %vec.91 = insertelement <16 x i32> %vec.90, i32 %phi.6, i32 11
  %vec.92 = insertelement <16 x i32> %vec.91, i32 %phi.6, i32 12
  %vec.93 = insertelement <16 x i32> %vec.92, i32 %phi.6, i32 13
  %vec.94 = insertelement <16 x i32> %vec.93, i32 %phi.6, i32 14
  %vec.95 = insertelement <16 x i32> %vec.94, i32 %phi.6, i32 15
  %add.9 = fadd <16 x float> %sub.4, %sub.1
  %add.10 = fadd <16 x float> %mul.10, %vec.47
  %lt.4 = icmp slt i32 %phi.6, %max_iter
  %select.8 = select i1 %lt.4, <16 x i1> %phi.9, <16 x i1> <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>
  %select.9 = select <16 x i1> %select.8, <16 x i1> %xor.2, <16 x i1> <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>
  %select.10 = select <16 x i1> %select.8, <16 x i1> %gt.1, <16 x i1> <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>
  %select.11 = select i1 %lt.4, <16 x i1> <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>, <16 x i1> %phi.9
  %select.12 = select <16 x i1> %phi.10, <16 x i1> <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>, <16 x i1> %select.11
  %select.13 = select <16 x i1> %select.12, <16 x i1> <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>, <16 x i1> %select.10
  %xor.3 = xor <16 x i1> %select.9, <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>
  %select.14 = select <16 x i1> %phi.9, <16 x i1> %xor.3, <16 x i1> <i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false>
  %select.15 = select <16 x i1> %select.14, <16 x i32> %vec.95, <16 x i32> %phi.11
  br label %loop.1
loop_exit.1:
  call void @llvm.masked.store.v16i32.p0(<16 x i32> %phi.11, ptr %lea, i32 4, <16 x i1> %phi.10)
  br label %ret
ret:
  %add.11 = add i32 %a, 1
  br label %unroll_step
if_join:
  ret void
}
