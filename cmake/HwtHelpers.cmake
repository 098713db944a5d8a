# Small helpers so that every folder declares libraries and tests the same
# way, and so that the build enforces the layers of cmake/layers.txt: a
# library compiles against an include root that holds only the folders its
# layer may use, so an #include that goes up a layer does not compile.

# Reads cmake/layers.txt into HWT_LAYER_USES_<folder>, and its known
# exceptions ("except FILE FOLDER") into HWT_LAYER_EXCEPTIONS (as
# "layer>folder" pairs a library may link).
file(STRINGS ${PROJECT_SOURCE_DIR}/cmake/layers.txt _hwt_layer_lines
     REGEX "^[a-z]+:")
file(STRINGS ${PROJECT_SOURCE_DIR}/cmake/layers.txt _hwt_exception_lines
     REGEX "^except ")
set(HWT_LAYER_EXCEPTIONS "")
foreach(line IN LISTS _hwt_exception_lines)
  string(REGEX MATCH "^except ([a-z]+)/[^ ]* ([a-z]+)" _ "${line}")
  list(APPEND HWT_LAYER_EXCEPTIONS "${CMAKE_MATCH_1}>${CMAKE_MATCH_2}")
endforeach()
set(HWT_LAYERS "")
foreach(line IN LISTS _hwt_layer_lines)
  string(REGEX MATCH "^([a-z]+):(.*)$" _ "${line}")
  set(folder ${CMAKE_MATCH_1})
  string(STRIP "${CMAKE_MATCH_2}" uses)
  string(REPLACE " " ";" uses "${uses}")
  list(APPEND HWT_LAYERS ${folder})
  set(HWT_LAYER_USES_${folder} ${uses})
endforeach()

# The top folder of the current source directory (its layer).
function(hwt_current_layer out)
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  string(REGEX REPLACE "/.*" "" top "${rel}")
  set(${out} ${top} PARENT_SCOPE)
endfunction()

# The include root of `layer`: a directory of links to the folders it may
# use (the repository root itself for "*" layers).
function(hwt_layer_include_root layer out)
  set(uses ${HWT_LAYER_USES_${layer}})
  if(NOT layer IN_LIST HWT_LAYERS)
    message(FATAL_ERROR "folder '${layer}' is not in cmake/layers.txt")
  endif()
  if("*" IN_LIST uses)
    set(${out} ${PROJECT_SOURCE_DIR} PARENT_SCOPE)
    return()
  endif()
  set(root ${PROJECT_BINARY_DIR}/layers/${layer})
  foreach(folder ${layer} ${uses})
    if(NOT EXISTS ${root}/${folder})
      file(MAKE_DIRECTORY ${root})
      file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${folder} ${root}/${folder}
           SYMBOLIC)
    endif()
  endforeach()
  set(${out} ${root} PARENT_SCOPE)
endfunction()

# Libraries compile as unity batches (CMake joins up to eight of a library's
# sources into one translation unit): the abseil, LLVM and standard headers
# are then parsed once per batch instead of once per source, which halves
# the libraries' compile from clean (docs/reliability.md). Sources of one
# library therefore may not both define the same name in an anonymous
# namespace. HWT_UNITY_BUILD=OFF compiles each source alone; the sanitizer
# build (the fuzz preset) does, so a source that leans on an include of its
# batch neighbour still fails to build in CI.
option(HWT_UNITY_BUILD "Compile each library's sources in unity batches" ON)

# hwt_library(NAME SRCS a.cc b.cc DEPS x y)
function(hwt_library name)
  cmake_parse_arguments(ARG "" "" "SRCS;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SRCS})
  set_property(TARGET ${name} PROPERTY UNITY_BUILD ${HWT_UNITY_BUILD})
  if(HWT_UNITY_BUILD AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # In a batch each source is an included file, which gcc takes for a
    # header: a class of the source with a member of a type from the
    # source's anonymous namespace would then be warned about, wrongly.
    target_compile_options(${name} PRIVATE -Wno-subobject-linkage)
  endif()
  hwt_current_layer(layer)
  hwt_layer_include_root(${layer} root)
  target_include_directories(${name} PUBLIC ${root})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  set_property(TARGET ${name} PROPERTY HWT_LAYER ${layer})
  set_property(GLOBAL APPEND PROPERTY HWT_LIBRARIES ${name})
endfunction()

# Called once at the end of the top-level CMakeLists: every hwt_ library
# links only hwt_ libraries of the layers it may use.
function(hwt_check_library_layers)
  get_property(libraries GLOBAL PROPERTY HWT_LIBRARIES)
  foreach(name IN LISTS libraries)
    get_property(layer TARGET ${name} PROPERTY HWT_LAYER)
    set(uses ${HWT_LAYER_USES_${layer}})
    if("*" IN_LIST uses)
      continue()
    endif()
    get_property(deps TARGET ${name} PROPERTY INTERFACE_LINK_LIBRARIES)
    foreach(dep IN LISTS deps)
      if(NOT TARGET ${dep})
        continue()
      endif()
      get_property(dep_layer TARGET ${dep} PROPERTY HWT_LAYER)
      if(dep_layer AND NOT dep_layer STREQUAL layer
         AND NOT dep_layer IN_LIST uses
         AND NOT "${layer}>${dep_layer}" IN_LIST HWT_LAYER_EXCEPTIONS)
        message(FATAL_ERROR "${name} (${layer}/) links ${dep} (${dep_layer}/): "
                "${layer}/ may use only: ${uses} (cmake/layers.txt)")
      endif()
    endforeach()
  endforeach()
endfunction()

# The headers nearly every test includes (gtest, gmock, abseil's strings and
# status, the standard containers), precompiled once per build and reused by
# every test: parsing them took about 3.7 s of each test's 6-10 s compile,
# in both of the CI run's builds (docs/reliability.md). A reused header
# must be built with the same flags and definitions as its users, so every
# test compiles with LLVM's definitions (the ones of hwt_llvm, which most
# tests get through their libraries anyway); with different macros GCC would
# drop the header (-Winvalid-pch says so) and clang would refuse it.
set(HWT_TEST_PCH_HEADERS
    <algorithm> <cstdint> <cstdlib> <cstring> <filesystem> <fstream>
    <functional> <map> <memory> <optional> <set> <sstream> <string>
    <string_view> <utility> <vector>
    [["absl/container/flat_hash_map.h"]] [["absl/status/status.h"]]
    [["absl/status/statusor.h"]] [["absl/strings/match.h"]]
    [["absl/strings/numbers.h"]] [["absl/strings/str_cat.h"]]
    [["absl/strings/str_format.h"]] [["absl/strings/str_join.h"]]
    [["absl/strings/str_split.h"]] [["absl/strings/string_view.h"]]
    [["gmock/gmock.h"]] [["gtest/gtest.h"]])

# A test's own source (its fixtures, expectations and gtest's templates) is
# compiled at -O1 in the optimised builds: gcc took 12.4 s for
# hwt_report_test.cc at the release build's -O3 and 7.8 s at -O1, and the
# test sources are about 40 % of a release build's compile. The code under
# test stays as the build type has it: libraries keep -O3 (Release) and
# the tests link those. The option comes after the build type's flags, so
# it wins; the precompiled header gets it too (it must match its users).
function(hwt_test_optimization target)
  target_compile_options(${target} PRIVATE $<$<CONFIG:Release,RelWithDebInfo>:-O1>)
endfunction()

# Makes `test` reuse the tests' precompiled header, creating its target on
# first use. HWT_TEST_PCH=OFF turns it off (to check that every test
# includes what it uses, which the forced include would hide).
option(HWT_TEST_PCH "Precompile the headers the tests share" ON)
function(hwt_use_test_pch test)
  target_compile_definitions(${test} PRIVATE ${LLVM_DEFINITIONS})
  hwt_test_optimization(${test})
  if(NOT HWT_TEST_PCH)
    return()
  endif()
  if(NOT TARGET hwt_test_pch)
    add_library(hwt_test_pch OBJECT ${PROJECT_SOURCE_DIR}/base/testing/test_pch.cc)
    target_link_libraries(hwt_test_pch PRIVATE absl::status absl::statusor
                          absl::strings absl::str_format absl::flat_hash_map
                          GTest::gmock GTest::gtest)
    target_compile_definitions(hwt_test_pch PRIVATE ${LLVM_DEFINITIONS})
    hwt_test_optimization(hwt_test_pch)
    target_precompile_headers(hwt_test_pch PRIVATE ${HWT_TEST_PCH_HEADERS})
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      target_compile_options(hwt_test_pch PRIVATE -Winvalid-pch)
    endif()
  endif()
  target_precompile_headers(${test} REUSE_FROM hwt_test_pch)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${test} PRIVATE -Winvalid-pch)
  endif()
endfunction()

# hwt_test(NAME SRCS a_test.cc DEPS lib)
# Tests find the repository root through HWT_SOURCE_DIR and the shared corpus
# through HWT_CORPUS_DIR (../shared/corpus unless the environment overrides it).
# A test beside a library compiles against its folder's include root, so it
# keeps to the same layers as the code it tests.
function(hwt_test name)
  if(NOT HWT_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "TIMEOUT" "SRCS;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SRCS})
  hwt_current_layer(layer)
  hwt_layer_include_root(${layer} root)
  target_include_directories(${name} PRIVATE ${root})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} hwt_base_testing GTest::gmock GTest::gtest_main)
  hwt_use_test_pch(${name})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  # gtest_discover_tests' PROPERTIES is a flat key;value list, so a second
  # label would become a property name of its own: the labels are set by a
  # script ctest runs after the discovered tests are defined.
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST
    PROPERTIES TIMEOUT ${ARG_TIMEOUT})
  if(ARG_LABELS)
    set(labels_script "${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake")
    file(WRITE "${labels_script}"
      "if(${name}_TESTS)\n"
      "  set_tests_properties(\${${name}_TESTS} PROPERTIES LABELS \"${ARG_LABELS}\")\n"
      "endif()\n")
    set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${labels_script}")
  endif()
endfunction()

# The tools that are installed, and that the install, man page and --version
# tests go through: every executable target of tools/ named hwt-*, so that a
# new tool needs no second list. Valid once tools/ has been added.
function(hwt_installed_tools out)
  get_property(targets DIRECTORY ${PROJECT_SOURCE_DIR}/tools
               PROPERTY BUILDSYSTEM_TARGETS)
  set(tools "")
  foreach(target IN LISTS targets)
    get_property(type TARGET ${target} PROPERTY TYPE)
    if(type STREQUAL "EXECUTABLE" AND target MATCHES "^hwt-")
      list(APPEND tools ${target})
    endif()
  endforeach()
  set(${out} ${tools} PARENT_SCOPE)
endfunction()
