stats events=7 blocks=7 insns=20 time=0 gaps=0 disables=0 enables=0 exceptions=0 context_events=0 unknown_region_blocks=0 invalid_regions=0 malformed=0 has_time=0
thread stream=0 context=0
  start calls=0 self=2 total=20 blocks=#3x1,#4x1
    main calls=1 self=18 total=18 blocks=#0x1,#1x3,#2x1
merged
  start calls=0 self=2 total=20 blocks=#3x1,#4x1
    main calls=1 self=18 total=18 blocks=#0x1,#1x3,#2x1
function main self=18 total=18 calls=1
function start self=2 total=20 calls=0
call start -> main 1
block #0 0:0x401000-0x401008 n=4 cond-taken 64-bit count=1 region=0 fn=0:0x401000-0x401100 last_fn=0:0x401000-0x401100
block #1 0:0x401005-0x401008 n=3 cond-taken 64-bit count=3 region=0 fn=0:0x401000-0x401100 last_fn=0:0x401000-0x401100
block #2 0:0x401005-0x40100b n=5 return 64-bit count=1 region=0 fn=0:0x401000-0x401100 last_fn=0:0x401000-0x401100
block #3 0:0x402000-0x402000 n=1 call 64-bit count=1 region=0 fn=0:0x402000-0x402100 last_fn=0:0x402000-0x402100
block #4 0:0x402005-0x402005 n=1 none 64-bit count=1 region=0 fn=0:0x402000-0x402100 last_fn=0:0x402000-0x402100
edge #0 -> #1 1
edge #1 -> #1 2
edge #1 -> #2 1
edge #2 -> #4 1
edge #3 -> #0 1
path count=3 insns=3 blocks=#1
path count=1 insns=5 blocks=#2
path count=1 insns=4 blocks=#0
insn 0:0x401000 len=5 count=1
insn 0:0x401005 len=1 count=5
insn 0:0x401006 len=2 count=5
insn 0:0x401008 len=2 count=5 taken=4 not_taken=1
insn 0:0x40100a len=1 count=1
insn 0:0x40100b len=1 count=1
insn 0:0x402000 len=5 count=1
insn 0:0x402005 len=1 count=1
loop 0:0x401005-0x40100a back_edges=4 entries=1 trips=5.00 insns=15 latches=0x401008
