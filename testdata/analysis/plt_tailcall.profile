stats events=8 blocks=8 insns=21 time=0 gaps=0 disables=0 enables=0 exceptions=0 context_events=0 unknown_region_blocks=0 invalid_regions=0 malformed=0 has_time=0
thread stream=0 context=0
  main calls=0 self=5 total=21 blocks=#0x1,#1x1
    foo@plt calls=1 self=1 total=1 blocks=#2x1
    foo calls=0 self=6 total=10 blocks=#3x1,#4x1,#5x1
      baz calls=1 self=4 total=4 blocks=#7x1
    bar calls=0 self=5 total=5 blocks=#6x1
merged
  main calls=0 self=5 total=21 blocks=#0x1,#1x1
    foo@plt calls=1 self=1 total=1 blocks=#2x1
    foo calls=0 self=6 total=10 blocks=#3x1,#4x1,#5x1
      baz calls=1 self=4 total=4 blocks=#7x1
    bar calls=0 self=5 total=5 blocks=#6x1
function main self=5 total=21 calls=0
function foo@plt self=1 total=1 calls=1
function foo self=6 total=10 calls=0
function bar self=5 total=5 calls=0
function baz self=4 total=4 calls=1
call main -> foo@plt 1
call foo -> baz 1
block #0 0:0x401000-0x401008 n=3 call 64-bit count=1 region=0 fn=0:0x401000-0x401100 last_fn=0:0x401000-0x401100
block #1 0:0x40100d-0x401010 n=2 none 64-bit count=1 region=0 fn=0:0x401000-0x401100 last_fn=0:0x401000-0x401100
block #2 0:0x401400-0x401400 n=1 jump-indirect 64-bit count=1 region=0 fn=0:0x401400-0x401410 last_fn=0:0x401400-0x401410
block #3 1:0x1000-0x1004 n=2 cond-taken 64-bit count=1 region=1 fn=1:0x1000-0x1100 last_fn=1:0x1000-0x1100
block #4 1:0x1020-0x1024 n=2 call 64-bit count=1 region=1 fn=1:0x1000-0x1100 last_fn=1:0x1000-0x1100
block #5 1:0x1029-0x102c n=2 jump 64-bit count=1 region=1 fn=1:0x1000-0x1100 last_fn=1:0x1000-0x1100
block #6 1:0x2000-0x2010 n=5 return 64-bit count=1 region=1 fn=1:0x2000-0x2100 last_fn=1:0x2000-0x2100
block #7 1:0x3000-0x3008 n=4 return 64-bit count=1 region=1 fn=1:0x3000-0x3100 last_fn=1:0x3000-0x3100
edge #0 -> #2 1
edge #2 -> #3 1
edge #3 -> #4 1
edge #4 -> #7 1
edge #5 -> #6 1
edge #6 -> #1 1
edge #7 -> #5 1
path count=1 insns=6 blocks=#3,#4,#5
path count=1 insns=5 blocks=#6
path count=1 insns=4 blocks=#7
path count=1 insns=1 blocks=#2
