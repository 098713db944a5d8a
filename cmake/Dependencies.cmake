# Finds the Debian/FreeBSD packaged libraries named in DESIGN.md and exposes
# them as imported targets (hwt::ipt, hwt::opencsd, hwt::llvm, ...).

find_package(absl REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(LibArchive REQUIRED)
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)

# libipt ships only intel-pt.h and libipt.so (no CMake or pkg-config files).
find_path(IPT_INCLUDE_DIR intel-pt.h REQUIRED)
find_library(IPT_LIBRARY ipt REQUIRED)
add_library(hwt_ipt INTERFACE)
target_include_directories(hwt_ipt SYSTEM INTERFACE ${IPT_INCLUDE_DIR})
target_link_libraries(hwt_ipt INTERFACE ${IPT_LIBRARY})
add_library(hwt::ipt ALIAS hwt_ipt)

# OpenCSD: pkg-config names only libopencsd; the C API is a second library.
pkg_check_modules(OPENCSD REQUIRED IMPORTED_TARGET libopencsd)
find_library(OPENCSD_C_API_LIBRARY opencsd_c_api REQUIRED
             HINTS ${OPENCSD_LIBRARY_DIRS})
add_library(hwt_opencsd INTERFACE)
target_link_libraries(hwt_opencsd INTERFACE ${OPENCSD_C_API_LIBRARY} PkgConfig::OPENCSD)
add_library(hwt::opencsd ALIAS hwt_opencsd)

pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)

# LLVM 19: link the shared libLLVM (fast links, one copy in every tool).
if(NOT LLVM_DIR AND EXISTS /usr/lib/llvm-19/lib/cmake/llvm)
  set(LLVM_DIR /usr/lib/llvm-19/lib/cmake/llvm)
elseif(NOT LLVM_DIR AND EXISTS /usr/local/llvm19/lib/cmake/llvm)
  set(LLVM_DIR /usr/local/llvm19/lib/cmake/llvm)
endif()
find_package(LLVM REQUIRED CONFIG)
if(NOT LLVM_VERSION_MAJOR EQUAL 19)
  message(FATAL_ERROR "LLVM 19 is required, found ${LLVM_PACKAGE_VERSION} at ${LLVM_DIR}")
endif()
add_library(hwt_llvm INTERFACE)
target_include_directories(hwt_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
target_compile_definitions(hwt_llvm INTERFACE ${LLVM_DEFINITIONS})
if(LLVM_LINK_LLVM_DYLIB OR TARGET LLVM)
  target_link_libraries(hwt_llvm INTERFACE LLVM)
else()
  llvm_map_components_to_libnames(HWT_LLVM_LIBS
    Object DebugInfoDWARF Symbolize Demangle MC MCDisassembler
    X86Disassembler X86Desc X86Info AArch64Disassembler AArch64Desc AArch64Info
    ARMDisassembler ARMDesc ARMInfo)
  target_link_libraries(hwt_llvm INTERFACE ${HWT_LLVM_LIBS})
endif()
add_library(hwt::llvm ALIAS hwt_llvm)

# Run path. Built and installed programs carry the same one, so that
# `cmake --install` has none to rewrite: none where libLLVM resolves into a
# directory the linker searches anyway (Debian: /usr/lib/<triplet>; a
# custom search path there is what lintian rejects), else LLVM's own
# library directory (FreeBSD: /usr/local/llvm19/lib).
set(CMAKE_BUILD_WITH_INSTALL_RPATH ON)
get_filename_component(_hwt_libllvm ${LLVM_LIBRARY_DIR}/libLLVM.so REALPATH)
get_filename_component(_hwt_libllvm_dir ${_hwt_libllvm} DIRECTORY)
if(NOT _hwt_libllvm_dir IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
  set(CMAKE_INSTALL_RPATH ${LLVM_LIBRARY_DIR})
endif()

if(HWT_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(HWT_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()

# protobuf: the saved profile file (analysis/saved/hwtprof.proto). Debian
# and FreeBSD ship no CMake config for it; CMake's FindProtobuf finds the
# library and protoc.
find_package(Protobuf REQUIRED)
