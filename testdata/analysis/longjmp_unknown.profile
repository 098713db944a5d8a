stats events=10 blocks=10 insns=20 time=0 gaps=0 disables=0 enables=0 exceptions=0 context_events=0 unknown_region_blocks=1 invalid_regions=0 malformed=0 has_time=0
thread stream=0 context=0
  main calls=0 self=3 total=9 blocks=#0x1,#1x1
    [app+0x450000] calls=1 self=4 total=4 blocks=#7x1,#8x1
    [unknown] calls=0 self=2 total=2 blocks=#9x1
  foo calls=0 self=2 total=2 blocks=#2x1
  bar calls=0 self=4 total=9 blocks=#3x1,#4x1
    baz calls=1 self=2 total=5 blocks=#5x1
      qux calls=1 self=3 total=3 blocks=#6x1
merged
  main calls=0 self=3 total=9 blocks=#0x1,#1x1
    [app+0x450000] calls=1 self=4 total=4 blocks=#7x1,#8x1
    [unknown] calls=0 self=2 total=2 blocks=#9x1
  foo calls=0 self=2 total=2 blocks=#2x1
  bar calls=0 self=4 total=9 blocks=#3x1,#4x1
    baz calls=1 self=2 total=5 blocks=#5x1
      qux calls=1 self=3 total=3 blocks=#6x1
function main self=3 total=9 calls=0
function foo self=2 total=2 calls=0
function bar self=4 total=9 calls=0
function baz self=2 total=5 calls=1
function qux self=3 total=3 calls=1
function [app+0x450000] self=4 total=4 calls=1
function [unknown] self=2 total=2 calls=0
call main -> [app+0x450000] 1
call bar -> baz 1
call baz -> qux 1
block #0 0:0x401050-0x401054 n=2 call-indirect 64-bit count=1 region=0 fn=0:0x401000-0x401100 last_fn=0:0x401000-0x401100
block #1 0:0x401057-0x401057 n=1 none 64-bit count=1 region=0 fn=0:0x401000-0x401100 last_fn=0:0x401000-0x401100
block #2 0:0x401150-0x401154 n=2 return 64-bit count=1 region=0 fn=0:0x401100-0x401200 last_fn=0:0x401100-0x401200
block #3 0:0x401250-0x401254 n=2 call 64-bit count=1 region=0 fn=0:0x401200-0x401300 last_fn=0:0x401200-0x401300
block #4 0:0x401259-0x40125c n=2 return 64-bit count=1 region=0 fn=0:0x401200-0x401300 last_fn=0:0x401200-0x401300
block #5 0:0x401300-0x401304 n=2 call 64-bit count=1 region=0 fn=0:0x401300-0x401400 last_fn=0:0x401300-0x401400
block #6 0:0x401400-0x401408 n=3 return 64-bit count=1 region=0 fn=0:0x401400-0x401500 last_fn=0:0x401400-0x401500
block #7 0:0x450000-0x450008 n=3 jump 64-bit count=1 region=0 fn=0:nosym last_fn=0:nosym
block #8 0:0x450100-0x450100 n=1 jump-indirect 64-bit count=1 region=0 fn=0:nosym last_fn=0:nosym
block #9 -:0x900000-0x900004 n=2 return 64-bit count=1 region=- fn=none last_fn=none
edge #0 -> #7 1
edge #2 -> #0 1
edge #3 -> #5 1
edge #4 -> #2 1
edge #5 -> #6 1
edge #6 -> #4 1
edge #7 -> #8 1
edge #8 -> #9 1
edge #9 -> #1 1
path count=1 insns=4 blocks=#3,#4
path count=1 insns=4 blocks=#7,#8
path count=1 insns=3 blocks=#6
path count=1 insns=2 blocks=#2
path count=1 insns=2 blocks=#5
path count=1 insns=2 blocks=#9
