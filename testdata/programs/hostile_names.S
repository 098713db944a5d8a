# A program whose function names are markup, for the HTML report's tests:
# "</script><img src=x onerror=...>" would end a script element and load an
# image if a page wrote it as HTML; the report must show it as text.
# _start calls both functions; the first loops three times and calls the
# second: 18 instructions in all.
        .text
        .globl _start
        .type _start, @function
_start:
        call "</script><img src=x onerror=alert(1)>"
        call "<b onmouseover=alert(2)>bold</b>"
        mov $60, %eax
        xor %edi, %edi
        syscall
        .size _start, .-_start

        .type "</script><img src=x onerror=alert(1)>", @function
"</script><img src=x onerror=alert(1)>":
        mov $3, %ecx
1:      dec %ecx
        jnz 1b
        call "<b onmouseover=alert(2)>bold</b>"
        ret
        .size "</script><img src=x onerror=alert(1)>", .-"</script><img src=x onerror=alert(1)>"

        .type "<b onmouseover=alert(2)>bold</b>", @function
"<b onmouseover=alert(2)>bold</b>":
        nop
        ret
        .size "<b onmouseover=alert(2)>bold</b>", .-"<b onmouseover=alert(2)>bold</b>"
