// The x86 classifier (decoders/x86) against binutils objdump, for every
// instruction objdump disassembles in the executable sections of the test
// programs (testdata/programs, as built), libc and ld.so: the length, the
// class (call, jump, conditional jump, return, far transfer, other), the
// direct target, and whether it is a rep string or a system call.
//
// Rules for what objdump prints:
// - The bytes: objdump -d -w lists every byte of a section once, so the
//   bytes from an instruction on are the concatenation of its line and the
//   following ones; the classifier decodes from there (up to 15 bytes).
// - Padding is code: the nops between functions (nopw, data16 cs nopw, xchg
//   %ax,%ax, int3) are compared like any instruction.
// - Prefixes: leading prefix words (data16, addr32, cs/ds/es/ss/fs/gs, lock,
//   rex*, rep/repz/repnz/repe/repne, bnd, notrack, xacquire/xrelease) are
//   part of the instruction: its length counts them, its class is that of
//   the mnemonic after them (notrack jmp *%rax is an indirect jump, bnd ret
//   a return). A rep prefix makes a rep string only before a string
//   mnemonic (movs, stos, lods, scas, cmps, ins, outs); repz ret is a return.
// - "(bad)" (bytes objdump cannot decode): the classifier must refuse them
//   too (nullopt); nothing else is compared there.
// - ".byte" lines and a prefix standing alone on its line (objdump's way of
//   showing bytes at a section's end) are data: not compared, counted.
// - xbegin, the one known difference: objdump gives it no class; the
//   classifier makes it a conditional branch to its abort handler. (Intel PT
//   reports a transaction abort as an asynchronous event, not a TNT bit: a
//   question for decoders/x86. The test programs never run it: glibc uses
//   lock elision only when asked to.) Expected as the classifier has it, so
//   that a change shows up here.
#include <dirent.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/testing/test_env.h"
#include "decoders/x86/x86_insn.h"
#include "gtest/gtest.h"

namespace hwt {
namespace {

using x86::InsnClass;

struct Line {
  uint64_t addr = 0;
  std::vector<uint8_t> bytes;
  std::string text;  // mnemonic and operands
};

// objdump -d -w, section by section (a section's bytes are contiguous).
std::vector<std::vector<Line>> Disassemble(const std::string& file) {
  auto result = testing::RunCommand({"objdump", "-d", "-w", file}, 300);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  std::vector<std::vector<Line>> sections;
  for (absl::string_view raw : absl::StrSplit(result.out, '\n')) {
    if (absl::StartsWith(raw, "Disassembly of section")) {
      sections.emplace_back();
      continue;
    }
    std::vector<absl::string_view> f = absl::StrSplit(raw, '\t');
    if (f.size() < 2 || sections.empty()) continue;
    absl::string_view addr = absl::StripAsciiWhitespace(f[0]);
    if (!absl::ConsumeSuffix(&addr, ":")) continue;
    Line line;
    if (!absl::SimpleHexAtoi(addr, &line.addr)) continue;
    for (absl::string_view b : absl::StrSplit(f[1], ' ', absl::SkipEmpty())) {
      uint32_t v = 0;
      if (absl::SimpleHexAtoi(b, &v)) line.bytes.push_back(v);
    }
    if (f.size() > 2) {
      line.text = std::string(absl::StripAsciiWhitespace(f[2]));
    }
    sections.back().push_back(std::move(line));
  }
  return sections;
}

bool IsPrefixWord(absl::string_view w) {
  static const char* kPrefixes[] = {
      "data16", "addr32", "cs",   "ds",      "es",       "ss",
      "fs",     "gs",     "lock", "rep",     "repz",     "repnz",
      "repe",   "repne",  "bnd",  "notrack", "xacquire", "xrelease"};
  for (const char* p : kPrefixes) {
    if (w == p) return true;
  }
  return absl::StartsWith(w, "rex");
}

struct Expected {
  bool data = false;  // .byte, or a lone prefix
  bool bad = false;
  InsnClass cls = InsnClass::kOther;
  bool direct = false;
  uint64_t target = 0;
  bool rep_string = false;
  bool syscall = false;
};

Expected Classify(const Line& line) {
  Expected e;
  std::vector<absl::string_view> words =
      absl::StrSplit(line.text, ' ', absl::SkipEmpty());
  size_t i = 0;
  bool rep = false;
  while (i < words.size() && IsPrefixWord(words[i])) {
    if (absl::StartsWith(words[i], "rep")) rep = true;
    ++i;
  }
  if (words.empty() || words[0] == ".byte" || line.text == "(bad)") {
    e.data = words.empty() || words[0] == ".byte";
    e.bad = line.text == "(bad)";
    return e;
  }
  if (i == words.size()) {
    e.data = true;
    return e;
  }
  const std::string m(words[i]);
  const std::string operand =
      i + 1 < words.size() ? std::string(words[i + 1]) : "";
  const bool indirect = !operand.empty() && operand[0] == '*';
  auto parse_target = [&] {
    e.direct = absl::SimpleHexAtoi(operand, &e.target);
  };
  static const char* kStrings[] = {"movs", "stos", "lods", "scas",
                                   "cmps", "ins",  "outs"};
  for (const char* s : kStrings) {
    if (rep && absl::StartsWith(m, s)) e.rep_string = true;
  }
  if (m == "call") {
    e.cls = indirect ? InsnClass::kCallIndirect : InsnClass::kCall;
    if (!indirect) parse_target();
  } else if (m == "jmp") {
    e.cls = indirect ? InsnClass::kJumpIndirect : InsnClass::kJump;
    if (!indirect) parse_target();
  } else if (m[0] == 'j' || absl::StartsWith(m, "loop")) {
    e.cls = InsnClass::kCondJump;  // jcc, jrcxz, jecxz, loop, loope, loopne
    parse_target();
  } else if (m == "ret") {
    e.cls = InsnClass::kReturn;
  } else if (m == "lret" || absl::StartsWith(m, "iret") ||
             absl::StartsWith(m, "sysret") || absl::StartsWith(m, "sysexit")) {
    e.cls = InsnClass::kFarReturn;
  } else if (m == "syscall" || m == "sysenter" || m == "int" || m == "int3" ||
             m == "lcall" || m == "int1" || m == "icebp") {
    e.cls = InsnClass::kFarCall;
    e.syscall =
        m == "syscall" || m == "sysenter" || (m == "int" && operand == "$0x80");
  } else if (m == "ljmp") {
    e.cls = InsnClass::kFarJump;
  } else if (m == "xbegin") {
    e.cls = InsnClass::kCondJump;  // the known difference (see the top)
    parse_target();
  }
  return e;
}

const char* ClassName(InsnClass c) {
  switch (c) {
    case InsnClass::kOther:
      return "other";
    case InsnClass::kCondJump:
      return "cond-jump";
    case InsnClass::kJump:
      return "jump";
    case InsnClass::kJumpIndirect:
      return "jump-indirect";
    case InsnClass::kCall:
      return "call";
    case InsnClass::kCallIndirect:
      return "call-indirect";
    case InsnClass::kReturn:
      return "return";
    case InsnClass::kFarCall:
      return "far-call";
    case InsnClass::kFarReturn:
      return "far-return";
    case InsnClass::kFarJump:
      return "far-jump";
  }
  return "?";
}

class ClassifierObjdumpTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ClassifierObjdumpTest, LengthsAndClassesAreObjdumps) {
  auto decoder = x86::InsnDecoder::Create(x86::Mode::k64);
  size_t compared = 0, data = 0, bad = 0, wrong = 0;
  std::map<std::string, size_t> by_kind;
  for (const std::vector<Line>& section : Disassemble(GetParam())) {
    std::vector<uint8_t> bytes;
    std::vector<size_t> at;
    for (const Line& line : section) {
      at.push_back(bytes.size());
      bytes.insert(bytes.end(), line.bytes.begin(), line.bytes.end());
    }
    for (size_t k = 0; k < section.size(); ++k) {
      const Line& line = section[k];
      const Expected e = Classify(line);
      if (e.data) {
        ++data;
        continue;
      }
      const size_t n = std::min<size_t>(15, bytes.size() - at[k]);
      auto insn = decoder->Decode(absl::MakeConstSpan(bytes.data() + at[k], n),
                                  line.addr);
      std::string problem;
      if (e.bad) {
        ++bad;
        if (insn) problem = "objdump: (bad), classifier decodes it";
      } else if (!insn) {
        problem = "classifier refuses it";
      } else if (insn->length != line.bytes.size()) {
        problem = absl::StrFormat("length %d, objdump %d", insn->length,
                                  line.bytes.size());
      } else if (insn->cls != e.cls) {
        problem = absl::StrFormat("class %s, objdump %s", ClassName(insn->cls),
                                  ClassName(e.cls));
      } else if (e.direct && insn->target != e.target) {
        problem = absl::StrFormat("target 0x%x, objdump 0x%x", insn->target,
                                  e.target);
      } else if (insn->rep_string != e.rep_string) {
        problem = absl::StrFormat("rep string %d, objdump %d", insn->rep_string,
                                  e.rep_string);
      } else if (insn->is_syscall != e.syscall) {
        problem = absl::StrFormat("system call %d, objdump %d",
                                  insn->is_syscall, e.syscall);
      }
      ++compared;
      if (problem.empty()) continue;
      if (++wrong <= 10) {
        ADD_FAILURE() << absl::StrFormat("%s 0x%x: %s: %s", GetParam(),
                                         line.addr, line.text, problem);
      }
    }
  }
  std::cout << GetParam() << ": " << compared << " instructions compared, "
            << bad << " (bad), " << data << " data lines\n";
  // Every image has code to compare (the smallest, hostile_names, holds 12
  // instructions of hand-written assembly).
  EXPECT_GE(compared, 10u);
  EXPECT_EQ(wrong, 0u);
}

// Every built test program, libc and ld.so.
std::vector<std::string> Files() {
  std::vector<std::string> files;
  const std::string dir = HWT_TEST_PROGRAMS_DIR;
  if (DIR* d = opendir(dir.c_str())) {
    while (struct dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (absl::EndsWith(name, "_static") || absl::EndsWith(name, "_dynamic")) {
        files.push_back(dir + "/" + name);
      }
    }
    closedir(d);
  }
  std::sort(files.begin(), files.end());
  files.push_back("/lib/x86_64-linux-gnu/libc.so.6");
  files.push_back("/lib64/ld-linux-x86-64.so.2");
  return files;
}

INSTANTIATE_TEST_SUITE_P(Files, ClassifierObjdumpTest,
                         ::testing::ValuesIn(Files()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name =
                               info.param.substr(info.param.rfind('/') + 1);
                           for (char& ch : name) {
                             if (!absl::ascii_isalnum(ch)) ch = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace hwt
