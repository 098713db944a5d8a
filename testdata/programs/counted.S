# A static program without libc whose every executed instruction can be
# counted by hand from this source: the ground-truth tests compare the
# recorded call stacks, per-function counts and call edges with
# counted.folded / counted.summary.txt, derived from the comments below.
# It also exercises what the valgrind recorder must reconstruct specially:
# loop and jrcxz (side exits in the middle of a VEX superblock), pause
# (ends a superblock) and rep movsb (one VEX superblock per iteration,
# counted once).

        .text
        .globl  _start
        .type   _start, @function
_start:
        mov     $3, %r12d               # 1
.Lloop:
        call    leaf                    # 3 (three iterations)
        dec     %r12d                   # 3
        jnz     .Lloop                  # 3 (taken twice)
        lea     leaf2(%rip), %rax       # 1
        call    *%rax                   # 1 (indirect call)
        call    tail                    # 1
        call    outer                   # 1
        mov     $2, %edi                # 1
        call    rec                     # 1 (recursion depth 3)
        call    special                 # 1
        lea     src(%rip), %rsi         # 1
        lea     dst(%rip), %rdi         # 1
        mov     $5, %ecx                # 1
        rep movsb                       # 1 (five iterations, counted once)
        mov     $60, %eax               # 1 (exit)
        xor     %edi, %edi              # 1
        syscall                         # 1
        .size   _start, .-_start        # _start: 1 + 9 + 14 = 24

        .type   leaf, @function
leaf:                                   # 3 per execution
        mov     $1, %eax
        add     %eax, %eax
        ret
        .size   leaf, .-leaf

        .type   leaf2, @function
leaf2:                                  # 2
        nop
        ret
        .size   leaf2, .-leaf2

        .type   tail, @function
tail:                                   # 2, then leaf replaces tail
        xor     %eax, %eax
        jmp     leaf
        .size   tail, .-tail

        .type   outer, @function
outer:                                  # 5, plus two calls of leaf
        push    %rbx
        call    leaf
        call    leaf
        pop     %rbx
        ret
        .size   outer, .-outer

        .type   rec, @function
rec:                                    # rec(n): 5 if n > 0, else 3
        test    %edi, %edi
        jz      .Lrec_done
        dec     %edi
        call    rec
.Lrec_done:
        ret
        .size   rec, .-rec

        .type   special, @function
special:                                # 15
        mov     $4, %ecx                # 1
.Lspin:
        nop                             # 4
        loop    .Lspin                  # 4 (taken 3 times)
        jrcxz   .Lzero                  # 1 (taken: rcx is 0)
        nop                             # skipped
.Lzero:
        mov     $1, %ecx                # 1
        jrcxz   .Lnever                 # 1 (not taken)
        pause                           # 1
        nop                             # 1 (if .Lnever followed pause, a
.Lnever:                                #    superblock trace could not tell
        ret                             # 1  whether jrcxz was taken)
        .size   special, .-special

        # Never executed: a function symbol without a size, which covers
        # its address up to the end of .text (the size-0 rule).
        .type   nosize, @function
nosize:
        nop
        ret

        .data
src:    .ascii  "hello"
        .bss
dst:    .zero   8
        .section .note.GNU-stack,"",@progbits
