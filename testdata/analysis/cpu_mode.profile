stats events=7 blocks=4 insns=10 time=0 gaps=0 disables=0 enables=0 exceptions=0 context_events=3 unknown_region_blocks=0 invalid_regions=0 malformed=0 has_time=0
thread stream=0 context=4096
  main calls=0 self=4 total=6 blocks=#0x1,#1x1
    work calls=1 self=2 total=2 blocks=#2x1
thread stream=0 context=8192
  other_main calls=0 self=4 total=4 blocks=#3x1
merged
  main calls=0 self=4 total=6 blocks=#0x1,#1x1
    work calls=1 self=2 total=2 blocks=#2x1
  other_main calls=0 self=4 total=4 blocks=#3x1
function main self=4 total=6 calls=0
function work self=2 total=2 calls=1
function other_main self=4 total=4 calls=0
call main -> work 1
block #0 0:0x401000-0x401004 n=2 call 64-bit count=1 region=0 fn=0:0x401000-0x401100 last_fn=0:0x401000-0x401100
block #1 0:0x401009-0x40100a n=2 none 64-bit count=1 region=0 fn=0:0x401000-0x401100 last_fn=0:0x401000-0x401100
block #2 0:0x401100-0x401104 n=2 return 64-bit count=1 region=0 fn=0:0x401100-0x401200 last_fn=0:0x401100-0x401200
block #3 1:0x501000-0x501008 n=4 none 64-bit count=1 region=1 fn=1:0x501000-0x501100 last_fn=1:0x501000-0x501100
edge #0 -> #2 1
edge #2 -> #1 1
path count=1 insns=2 blocks=#2
