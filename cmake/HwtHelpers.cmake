# Small helpers so that every folder declares libraries and tests the same way.

# hwt_library(NAME SRCS a.cc b.cc DEPS x y)
function(hwt_library name)
  cmake_parse_arguments(ARG "" "" "SRCS;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SRCS})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
endfunction()

# hwt_test(NAME SRCS a_test.cc DEPS lib)
# Tests find the repository root through HWT_SOURCE_DIR and the shared corpus
# through HWT_CORPUS_DIR (../shared/corpus unless the environment overrides it).
function(hwt_test name)
  if(NOT HWT_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "TIMEOUT" "SRCS;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SRCS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} hwt_testing GTest::gmock GTest::gtest_main)
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST
    PROPERTIES TIMEOUT ${ARG_TIMEOUT} LABELS "${ARG_LABELS}")
endfunction()
