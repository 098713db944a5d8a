stats events=9 blocks=6 insns=14 time=0 gaps=1 disables=1 enables=1 exceptions=0 context_events=0 unknown_region_blocks=0 invalid_regions=0 malformed=0 has_time=0
gaps overflow=1
thread stream=0 context=0
  main calls=0 self=4 total=12 blocks=#0x1,#1x1
    work calls=1 self=6 total=8 blocks=#2x1,#3x1
      helper calls=1 self=2 total=2 blocks=#5x1
        [gap] gaps=1
  work calls=0 self=2 total=2 blocks=#4x1
merged
  main calls=0 self=4 total=12 blocks=#0x1,#1x1
    work calls=1 self=6 total=8 blocks=#2x1,#3x1
      helper calls=1 self=2 total=2 blocks=#5x1
        [gap] gaps=1
  work calls=0 self=2 total=2 blocks=#4x1
function main self=4 total=12 calls=0
function work self=8 total=10 calls=1
function helper self=2 total=2 calls=1
call main -> work 1
call work -> helper 1
block #0 0:0x401000-0x401004 n=2 call 64-bit count=1 region=0 fn=0:0x401000-0x401100 last_fn=0:0x401000-0x401100
block #1 0:0x401009-0x40100c n=2 none 64-bit count=1 region=0 fn=0:0x401000-0x401100 last_fn=0:0x401000-0x401100
block #2 0:0x401100-0x401108 n=3 far-call 64-bit count=1 region=0 fn=0:0x401100-0x401200 last_fn=0:0x401100-0x401200
block #3 0:0x40110a-0x401110 n=3 call 64-bit count=1 region=0 fn=0:0x401100-0x401200 last_fn=0:0x401100-0x401200
block #4 0:0x401180-0x401184 n=2 return 64-bit count=1 region=0 fn=0:0x401100-0x401200 last_fn=0:0x401100-0x401200
block #5 0:0x401200-0x401204 n=2 none 64-bit count=1 region=0 fn=0:0x401200-0x401300 last_fn=0:0x401200-0x401300
edge #0 -> #2 1
edge #2 -> #3 1
edge #3 -> #5 1
edge #4 -> #1 1
path count=1 insns=2 blocks=#4
