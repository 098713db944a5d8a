# A static program without libc for the jump rules of docs/call-stacks.md,
# every count derivable from this source (jumps.folded is the expected
# result): a longjmp-style indirect jump into the body of a function on the
# stack (unwinds), a jump to the entry of a function on the stack (a tail
# call, not an unwind), a jump into the body of a function without a frame
# (a tail call), code no symbol covers, which never unwinds, and a call to
# the next instruction (reading the instruction pointer), which is no call.

        .text
        .globl  _start
        .type   _start, @function
_start:
        call    a                       # 1
        mov     $2, %edi                # 1
        call    b                       # 1
        call    c                       # 1
        call    uncov_caller            # 1
        call    getpc                   # 1
        mov     $60, %eax               # 1 (exit)
        xor     %edi, %edi              # 1
        syscall                         # 1
        .size   _start, .-_start        # _start: 9

        # a saves its stack pointer (setjmp); a_deep jumps back into a's
        # body (longjmp): a_inner and a_deep are unwound, a returns.
        .type   a, @function
a:
        mov     %rsp, %r12              # 1
        call    a_inner                 # 1
.La_landing:
        mov     %r12, %rsp              # 1
        ret                             # 1   a: 4
        .size   a, .-a

        .type   a_inner, @function
a_inner:
        call    a_deep                  # 1   a_inner: 1
        .size   a_inner, .-a_inner

        .type   a_deep, @function
a_deep:
        lea     .La_landing(%rip), %rax # 1
        jmp     *%rax                   # 1   a_deep: 2
        .size   a_deep, .-a_deep

        # b(n) calls b2, which jumps to b's entry with n - 1: each jump is a
        # tail call (b2's frame becomes b's), though b is on the stack.
        # b(2): _start;b 3+1, ;b2 2, ;b;b 3+1, ;b;b2 2, ;b;b;b 2+1.
        .type   b, @function
b:
        test    %edi, %edi
        jz      .Lb_done
        call    b2
.Lb_done:
        ret
        .size   b, .-b

        .type   b2, @function
b2:
        dec     %edi
        jmp     b
        .size   b2, .-b2

        # c2 jumps into the body of d, which has no frame: a tail call (d
        # replaces c2 and returns to c).
        .type   c, @function
c:
        call    c2                      # 1
        ret                             # 1   c: 2
        .size   c, .-c

        .type   c2, @function
c2:
        jmp     .Ld_body                # 1   c2: 1
        .size   c2, .-c2

        .type   d, @function
d:
        nop                             # never
.Ld_body:
        ret                             # 1   d: 1
        .size   d, .-d

        # uncov_caller calls code no symbol covers, which calls e; e jumps
        # into the body of that uncovered code: a tail call (uncovered code
        # never unwinds), then that code jumps into uncov_caller's body:
        # unwinds to uncov_caller.
        .type   uncov_caller, @function
uncov_caller:
        mov     %rsp, %r12              # 1
        call    .Luncov                 # 1
.Luncov_landing:
        mov     %r12, %rsp              # 1
        ret                             # 1   uncov_caller: 4
        .size   uncov_caller, .-uncov_caller

.Luncov:
        call    e                       # 1   [jumps_static+.Luncov]: 1
.Luncov_body:
        lea     .Luncov_landing(%rip), %rax  # 1
        jmp     *%rax                   # 1   [jumps_static+.Luncov_body]: 2

        .type   e, @function
e:
        jmp     .Luncov_body            # 1   e: 1
        .size   e, .-e

        # getpc reads its own address the PIC way: the call to the next
        # instruction pushes no frame and is no call edge.
        .type   getpc, @function
getpc:
        call    .Lgetpc_next            # 1
.Lgetpc_next:
        pop     %rax                    # 1
        ret                             # 1   getpc: 3
        .size   getpc, .-getpc

        .section .note.GNU-stack,"",@progbits
