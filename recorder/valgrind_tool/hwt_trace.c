/* hwttrace: a valgrind tool that writes the executed instruction sequence of
   one process, as VEX decoded it, with the client's executable file mappings
   as valgrind placed them. recorder/valgrind_recorder.cc reads its output;
   docs/recorder.md describes both.

   The instructions come from VEX's IMarks: each executed instruction is one
   64-bit word, its address with VEX's instruction length in the top byte.
   Nothing here decodes x86: the tool only copies what VEX decoded. The words
   are stored by inline IR (no helper call per instruction) into a buffer
   that is written to the output in large chunks, which is what makes this
   fast where lackey's --trace-mem=yes (one write system call per line) is
   not.

   Exactness: a word is stored when its instruction starts, but it counts as
   executed only when the superblock commits it: at a taken side exit (the
   instructions up to and including the exiting one), at the superblock's end
   (all of them), or never for an instruction whose exit raises a signal
   (ud2, hlt: it did not complete). A synchronous fault in the middle of a
   superblock is found when the signal is delivered (or at exit, for a fatal
   one): the instructions before the faulting one are committed, it is not.

   Output: a stream of little-endian 64-bit words. An instruction word has
   its length (1..15) in bits 56..63, bit 55 set for an iteration of a rep
   string instruction (is_rep_string) and the address below. A control word
   has 0xff in bits 56..63, the record type in bits 32..47 and the payload's
   byte count in bits 0..31; the payload follows, padded to whole words.
   Records: START (pid, program name), MAPS (the client's executable file
   mappings in /proc/PID/maps syntax, after every change), CODE (a mapping of
   valgrind's own file that guest code runs from: the signal return
   trampoline), ANON (guest code in memory no file backs), NODECODE (an
   instruction VEX cannot decode), SIGNAL, THREAD (a thread was created), and
   END (the exit code) when the process ends normally or by a signal.

   Options: --hwt-out=PATH (a FIFO or file opened for writing, required) and
   --hwt-pid=PID: only the process with that pid writes (children that fork
   and exec under --trace-children=yes run untraced). */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_options.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

/* From valgrind's core (m_libcfile.c), not in the tool headers: moves a
   descriptor into the range valgrind reserves for itself (the client cannot
   see or close it) and marks it close-on-exec. */
extern Int VG_(safe_fd)(Int oldfd);
/* The start of valgrind's trampoline code (m_trampoline.S), which guest code
   runs from: signal returns go through it. Valgrind maps its page for the
   client; it is part of this tool's own executable. */
extern const HChar VG_(trampoline_stuff_start)[];

enum {
  kStart = 1,
  kMaps = 2,
  kCode = 3,
  kAnon = 4,
  kNoDecode = 5,
  kSignal = 6,
  kThread = 7,
  kEnd = 8,
};

/* Bit 55 of an instruction word: a rep string iteration (see
   is_rep_string). */
#define kRepeatsBit (1ULL << 55)
#define BUFFER_WORDS (1 << 17) /* 1 MiB */
#define MAPS_TEXT 65536

static const HChar* out_path = NULL;
static Long traced_pid = 0;

static Int out_fd = -1;
static Bool enabled = False;
static Bool started = False;
static Bool maps_dirty = False;

static ULong buffer[BUFFER_WORDS];
/* The next free word; inline IR reads and writes it. */
static HWord cursor = (HWord)buffer;
/* The superblock being executed: the address of its first word, or 0
   between superblocks (set and cleared by inline IR). */
static HWord in_superblock = 0;

static HChar maps_text[MAPS_TEXT];
static HChar last_maps[MAPS_TEXT];

/* The segments of valgrind's own files already reported (CODE). */
#define MAX_CODE_SEGMENTS 16
static Addr code_segments[MAX_CODE_SEGMENTS];
static Int n_code_segments = 0;
/* The client segment holding the trampoline: not in MAPS, reported as CODE
   when guest code runs there. */
static const NSegment* trampoline_segment(void) {
  return VG_(am_find_nsegment)((Addr)VG_(trampoline_stuff_start));
}

static void write_all(const void* data, SizeT n) {
  const char* p = data;
  while (n > 0 && out_fd >= 0) {
    Int done = VG_(write)(out_fd, p, n > (1 << 20) ? (1 << 20) : (Int)n);
    if (done <= 0) {
      /* The reader is gone: nothing more can be recorded. */
      VG_(close)(out_fd);
      out_fd = -1;
      enabled = False;
      return;
    }
    p += done;
    n -= done;
  }
}

/* Called by the superblock preamble when fewer words are left than the
   superblock can store. Must not be inlined: IR calls it. */
static VG_REGPARM(0) void flush(void) {
  HWord used = cursor - (HWord)buffer;
  if (enabled && used > 0) write_all(buffer, used);
  cursor = (HWord)buffer;
}

static void append_record(UInt type, const void* payload, UInt bytes) {
  UInt words = 1 + (bytes + 7) / 8;
  if (cursor + 8 * words > (HWord)(buffer + BUFFER_WORDS)) flush();
  if (8 * words > sizeof buffer) return; /* never: payloads are small */
  ULong* at = (ULong*)cursor;
  at[0] = (0xffULL << 56) | ((ULong)type << 32) | bytes;
  at[words - 1] = 0;
  VG_(memcpy)(at + 1, payload, bytes);
  cursor += 8 * words;
}

static void append_words(UInt type, ULong a, ULong b) {
  ULong payload[2] = {a, b};
  append_record(type, payload, sizeof payload);
}

/* The client's executable file mappings, as /proc/PID/maps lines. */
static void describe_segment(HChar* out, Int size, const NSegment* seg) {
  const HChar* name = VG_(am_get_filename)(seg);
  VG_(snprintf)(out, size, "%lx-%lx %c%c%cp %08llx 00:00 %llu %s\n",
                seg->start, seg->end + 1, seg->hasR ? 'r' : '-',
                seg->hasW ? 'w' : '-', seg->hasX ? 'x' : '-',
                (ULong)seg->offset, seg->ino, name ? name : "");
}

static void emit_maps_if_changed(void) {
  static Addr starts[4096];
  Int n = VG_(am_get_segment_starts)(SkFileC, starts, 4096);
  Int used = 0;
  maps_text[0] = 0;
  for (Int i = 0; i < n; ++i) {
    const NSegment* seg = VG_(am_find_nsegment)(starts[i]);
    if (seg == NULL || !seg->hasX || used > MAPS_TEXT - 4200) continue;
    if (seg == trampoline_segment()) continue;
    describe_segment(maps_text + used, MAPS_TEXT - used, seg);
    used += VG_(strlen)(maps_text + used);
  }
  maps_dirty = False;
  if (VG_(strcmp)(maps_text, last_maps) == 0) return;
  VG_(strcpy)(last_maps, maps_text);
  append_record(kMaps, maps_text, used);
}

static void start(void) {
  if (started) return;
  started = True;
  struct {
    ULong pid;
    HChar name[4096];
  } payload;
  payload.pid = VG_(getpid)();
  VG_(strncpy)(payload.name, VG_(args_the_exename), sizeof payload.name - 1);
  payload.name[sizeof payload.name - 1] = 0;
  append_record(kStart, &payload, 8 + VG_(strlen)(payload.name));
  emit_maps_if_changed();
}

/* Guest code outside the client's file mappings: valgrind's own trampoline
   (reported once per segment, so that its code can be mapped) or code no
   file backs. */
static void check_code_segment(Addr addr) {
  const NSegment* seg = VG_(am_find_nsegment)(addr);
  if (seg != NULL && seg->kind == SkFileC && seg != trampoline_segment()) {
    return;
  }
  if (seg != NULL && (seg->kind == SkFileV || seg->kind == SkFileC)) {
    for (Int i = 0; i < n_code_segments; ++i) {
      if (code_segments[i] == seg->start) return;
    }
    if (n_code_segments < MAX_CODE_SEGMENTS) {
      code_segments[n_code_segments++] = seg->start;
    }
    HChar line[4200];
    describe_segment(line, sizeof line, seg);
    append_record(kCode, line, VG_(strlen)(line));
    return;
  }
  append_words(kAnon, addr, 0);
}

static Bool is_signal_exit(IRJumpKind jk) {
  switch (jk) {
    case Ijk_SigILL:
    case Ijk_SigSEGV:
    case Ijk_SigBUS:
    case Ijk_SigFPE:
    case Ijk_SigFPE_IntDiv:
    case Ijk_SigFPE_IntOvf:
      return True;
    default:
      return False;
  }
}

static IRExpr* word_const(ULong v) { return IRExpr_Const(IRConst_U64(v)); }
static IRExpr* host_addr(const void* p) { return mkIRExpr_HWord((HWord)p); }

/* base + 8 * words, in a new temporary. */
static IRExpr* offset_from(IRSB* out, IRTemp base, ULong words) {
  IRTemp t = newIRTemp(out->tyenv, Ity_I64);
  addStmtToIRSB(out, IRStmt_WrTmp(t, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(base),
                                                  word_const(8 * words))));
  return IRExpr_RdTmp(t);
}

/* Commits `words` instructions of the superblock whose first word is at
   `base` (when `guard` is true, or always when it is NULL). */
static void commit(IRSB* out, IRTemp base, ULong words, IRExpr* guard) {
  IRExpr* end = offset_from(out, base, words);
  if (guard == NULL) {
    addStmtToIRSB(out, IRStmt_Store(Iend_LE, host_addr(&cursor), end));
    addStmtToIRSB(out,
                  IRStmt_Store(Iend_LE, host_addr(&in_superblock), word_const(0)));
  } else {
    addStmtToIRSB(out, IRStmt_StoreG(Iend_LE, host_addr(&cursor), end, guard));
    addStmtToIRSB(out, IRStmt_StoreG(Iend_LE, host_addr(&in_superblock),
                                     word_const(0), guard));
  }
}

/* VEX runs a rep-prefixed string instruction as a superblock that jumps
   back to itself once per iteration (plus a last execution that finds RCX
   zero), so its word repeats. Such words are flagged so that the reader
   counts one execution, as PT does. Recognised from the guest's bytes, since
   VEX's IR does not keep the prefix and its optimiser may fold the RCX test
   away: legacy prefixes and REX, one of them F2 or F3, then a string opcode
   (ins, outs, movs, cmps, stos, lods, scas). This prefix scan is the only
   look at instruction bytes here; lengths and addresses are VEX's. */
static Bool is_rep_string(Addr addr, UInt len) {
  const UChar* p = (const UChar*)addr;
  Bool rep = False;
  for (UInt i = 0; i < len; ++i) {
    UChar b = p[i];
    if (b == 0xf2 || b == 0xf3) {
      rep = True;
    } else if (b == 0x66 || b == 0x67 || b == 0x2e || b == 0x36 ||
               b == 0x3e || b == 0x26 || b == 0x64 || b == 0x65 ||
               b == 0xf0 || (b & 0xf0) == 0x40) {
      /* another prefix */
    } else {
      return rep && ((b >= 0x6c && b <= 0x6f) || (b >= 0xa4 && b <= 0xa7) ||
                     (b >= 0xaa && b <= 0xaf));
    }
  }
  return False;
}

static IRSB* instrument(VgCallbackClosure* closure, IRSB* in,
                        const VexGuestLayout* layout,
                        const VexGuestExtents* vge,
                        const VexArchInfo* archinfo_host, IRType gWordTy,
                        IRType hWordTy) {
  start();
  Int n = 0;
  for (Int i = 0; i < in->stmts_used; ++i) {
    if (in->stmts[i]->tag == Ist_IMark) ++n;
  }
  IRSB* out = deepCopyIRSBExceptStmts(in);
  Int i = 0;
  while (i < in->stmts_used && in->stmts[i]->tag != Ist_IMark) {
    addStmtToIRSB(out, in->stmts[i++]);
  }
  if (n == 0) {
    for (; i < in->stmts_used; ++i) addStmtToIRSB(out, in->stmts[i]);
    return out;
  }
  /* Room for n words, else flush; then base = cursor. */
  IRTemp before = newIRTemp(out->tyenv, Ity_I64);
  addStmtToIRSB(out, IRStmt_WrTmp(before, IRExpr_Load(Iend_LE, Ity_I64,
                                                      host_addr(&cursor))));
  IRTemp full = newIRTemp(out->tyenv, Ity_I1);
  HWord limit = (HWord)(buffer + BUFFER_WORDS) - 8 * (HWord)n;
  addStmtToIRSB(out, IRStmt_WrTmp(full, IRExpr_Binop(Iop_CmpLT64U,
                                                     word_const(limit),
                                                     IRExpr_RdTmp(before))));
  IRDirty* d = unsafeIRDirty_0_N(0, "hwttrace_flush",
                                 VG_(fnptr_to_fnentry)(flush), mkIRExprVec_0());
  d->guard = IRExpr_RdTmp(full);
  addStmtToIRSB(out, IRStmt_Dirty(d));
  IRTemp base = newIRTemp(out->tyenv, Ity_I64);
  addStmtToIRSB(out, IRStmt_WrTmp(base, IRExpr_Load(Iend_LE, Ity_I64,
                                                    host_addr(&cursor))));
  addStmtToIRSB(out, IRStmt_Store(Iend_LE, host_addr(&in_superblock),
                                  IRExpr_RdTmp(base)));
  Int k = 0;
  Addr segment_end = 0;
  for (; i < in->stmts_used; ++i) {
    IRStmt* st = in->stmts[i];
    if (st->tag == Ist_IMark) {
      Addr addr = st->Ist.IMark.addr;
      if (addr >= segment_end) {
        check_code_segment(addr);
        const NSegment* seg = VG_(am_find_nsegment)(addr);
        segment_end = seg != NULL ? seg->end : 0;
      }
      ULong word = (ULong)addr | ((ULong)st->Ist.IMark.len << 56);
      if (is_rep_string(addr, st->Ist.IMark.len)) word |= kRepeatsBit;
      IRExpr* at = offset_from(out, base, k);
      addStmtToIRSB(out, IRStmt_Store(Iend_LE, at, word_const(word)));
      ++k;
    } else if (st->tag == Ist_Exit) {
      IRJumpKind jk = st->Ist.Exit.jk;
      ULong committed = k;
      if (jk == Ijk_InvalICache) committed = 0; /* the superblock restarts */
      if (is_signal_exit(jk) && k > 0) committed = k - 1;
      commit(out, base, committed, st->Ist.Exit.guard);
    }
    addStmtToIRSB(out, st);
  }
  if (in->jumpkind == Ijk_NoDecode) {
    /* The next instruction cannot be decoded: valgrind raises SIGILL. */
    if (in->next->tag == Iex_Const) {
      append_words(kNoDecode, in->next->Iex.Const.con->Ico.U64, 0);
    } else {
      append_words(kNoDecode, 0, 0);
    }
  }
  commit(out, base, is_signal_exit(in->jumpkind) ? n - 1 : n, NULL);
  return out;
}

/* A fault in the middle of a superblock: the instructions before the one at
   `ip` completed, that one did not. */
static void cut_superblock_at(Addr ip) {
  if (in_superblock == 0) return;
  ULong* word = (ULong*)in_superblock;
  ULong* limit = (ULong*)(buffer + BUFFER_WORDS);
  while (word < limit && (*word & (kRepeatsBit - 1)) != ip) ++word;
  cursor = word < limit ? (HWord)word : in_superblock;
  in_superblock = 0;
}

static void pre_deliver_signal(ThreadId tid, Int sig, Bool alt_stack) {
  Addr ip = VG_(get_IP)(tid);
  Bool cut = in_superblock != 0;
  cut_superblock_at(ip);
  append_words(kSignal, sig, cut ? ip : 0);
}

static void on_mapping_change(void) { maps_dirty = True; }
static void new_mem_mmap(Addr a, SizeT len, Bool rr, Bool ww, Bool xx,
                         ULong di_handle) {
  on_mapping_change();
}
static void change_mem_mprotect(Addr a, SizeT len, Bool rr, Bool ww, Bool xx) {
  on_mapping_change();
}
static void die_mem_munmap(Addr a, SizeT len) { on_mapping_change(); }

static void pre_syscall(ThreadId tid, UInt sysno, UWord* args, UInt nargs) {
  /* exec replaces this valgrind (a new one starts for the new program). */
  if (sysno == __NR_execve || sysno == __NR_execveat) flush();
}

static void post_syscall(ThreadId tid, UInt sysno, UWord* args, UInt nargs,
                         SysRes res) {
  if (maps_dirty) emit_maps_if_changed();
}

static void pre_thread_create(ThreadId tid, ThreadId child) {
  /* The first thread is created before the program starts. */
  if (!started) return;
  append_words(kThread, child, 0);
  flush();
}

static void before_fork(ThreadId tid) { flush(); }
static void fork_child(ThreadId tid) {
  /* The child is not the recorded process. */
  enabled = False;
  cursor = (HWord)buffer;
  if (out_fd >= 0) VG_(close)(out_fd);
  out_fd = -1;
}

static Bool process_option(const HChar* arg) {
  if VG_STR_CLO (arg, "--hwt-out", out_path) {
  } else if VG_INT_CLO (arg, "--hwt-pid", traced_pid) {
  } else {
    return False;
  }
  return True;
}

static void print_usage(void) {
  VG_(printf)(
      "    --hwt-out=PATH     write the trace to PATH (required)\n"
      "    --hwt-pid=PID      trace only the process with this pid\n");
}

static void print_debug_usage(void) {}

static void post_clo_init(void) {
  /* IMarks are exact only for translations without chasing: VEX would
     otherwise follow branches into one superblock and if-convert short
     conditional sequences, executing IMarks of instructions that did not
     run. Unrolling would be exact but is not needed. VEX reads these at its
     first translation, after this. */
  VG_(clo_vex_control).guest_chase = False;
  VG_(clo_vex_control).iropt_unroll_thresh = 0;
  if (out_path == NULL) {
    VG_(fmsg)("hwttrace: --hwt-out=PATH is required\n");
    VG_(exit)(1);
  }
  if (traced_pid != 0 && traced_pid != VG_(getpid)()) return;
  Int fd = VG_(fd_open)(out_path, VKI_O_WRONLY | VKI_O_APPEND, 0);
  if (fd < 0) {
    VG_(fmsg)("hwttrace: cannot open %s\n", out_path);
    VG_(exit)(1);
  }
  out_fd = VG_(safe_fd)(fd);
  enabled = True;
}

static void fini(Int exitcode) {
  if (in_superblock != 0) cut_superblock_at(VG_(get_IP)(1));
  append_words(kEnd, (ULong)(Long)exitcode, 0);
  flush();
  if (out_fd >= 0) VG_(close)(out_fd);
  out_fd = -1;
}

static void pre_clo_init(void) {
  VG_(details_name)("hwttrace");
  VG_(details_version)(NULL);
  VG_(details_description)("the executed instructions, for hwt's recorder");
  VG_(details_copyright_author)("the hwt authors");
  VG_(details_bug_reports_to)("the hwt project");
  VG_(basic_tool_funcs)(post_clo_init, instrument, fini);
  VG_(needs_command_line_options)(process_option, print_usage,
                                  print_debug_usage);
  VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);
  VG_(track_new_mem_mmap)(new_mem_mmap);
  VG_(track_change_mem_mprotect)(change_mem_mprotect);
  VG_(track_die_mem_munmap)(die_mem_munmap);
  VG_(track_pre_deliver_signal)(pre_deliver_signal);
  VG_(track_pre_thread_ll_create)(pre_thread_create);
  VG_(atfork)(before_fork, NULL, fork_child);
}

VG_DETERMINE_INTERFACE_VERSION(pre_clo_init)
