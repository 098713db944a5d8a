stats events=13 blocks=6 insns=23 time=150 gaps=0 disables=1 enables=1 exceptions=0 context_events=0 unknown_region_blocks=0 invalid_regions=0 malformed=0 has_time=1
thread stream=0 context=0
  main calls=0 self=6 total=23 self_time=90 total_time=150 blocks=#0x1t40,#1x1t50,#2x1
    compute calls=1 self=17 total=17 self_time=60 total_time=60 blocks=#3x1,#4x1t60,#5x1
merged
  main calls=0 self=6 total=23 self_time=90 total_time=150 blocks=#0x1t40,#1x1t50,#2x1
    compute calls=1 self=17 total=17 self_time=60 total_time=60 blocks=#3x1,#4x1t60,#5x1
function main self=6 total=23 calls=0 self_time=90 total_time=150
function compute self=17 total=17 calls=1 self_time=60 total_time=60
call main -> compute 1
block #0 0:0x401000-0x401004 n=2 call 64-bit count=1 time=40 region=0 fn=0:0x401000-0x401100 last_fn=0:0x401000-0x401100
block #1 0:0x401009-0x40100c n=2 none 64-bit count=1 time=50 region=0 fn=0:0x401000-0x401100 last_fn=0:0x401000-0x401100
block #2 0:0x40100e-0x401010 n=2 none 64-bit count=1 region=0 fn=0:0x401000-0x401100 last_fn=0:0x401000-0x401100
block #3 0:0x401100-0x401110 n=6 cond-taken 64-bit count=1 region=0 fn=0:0x401100-0x401200 last_fn=0:0x401100-0x401200
block #4 0:0x401104-0x401110 n=5 cond-taken 64-bit count=1 time=60 region=0 fn=0:0x401100-0x401200 last_fn=0:0x401100-0x401200
block #5 0:0x401104-0x401114 n=6 return 64-bit count=1 region=0 fn=0:0x401100-0x401200 last_fn=0:0x401100-0x401200
edge #0 -> #3 1
edge #1 -> #2 1
edge #3 -> #4 1
edge #4 -> #5 1
edge #5 -> #1 1
path count=1 insns=6 blocks=#3
path count=1 insns=6 blocks=#5
path count=1 insns=5 blocks=#4
