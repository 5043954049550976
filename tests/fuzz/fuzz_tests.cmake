# tests/fuzz/fuzz_tests.cmake - included by tests/CMakeLists.txt in every
# build, gcc ones too. It registers the ctest fuzz_short (label cpu): run.sh
# builds the tests/fuzz targets with clang in a build of their own under
# this build tree and runs each for SL_FUZZ_SECONDS over a copy of its
# seeds. That needs a clang that links -fsanitize=fuzzer,address,undefined
# and, as the top-level configure asks for OpenMP, -fopenmp; both are tried
# here once per clang. Without them fuzz_short is still listed, and exits
# 77 (skipped) saying what is missing.
set(SL_FUZZ_SECONDS 60 CACHE STRING "Seconds each fuzz target runs in the ctest fuzz_short")
if(SL_SANITIZE)
  add_test(NAME fuzz_short COMMAND sh -c "echo 'fuzz_short skipped: the fuzz targets are a clang sanitizer build of their own, which the main CI stage runs; this build is SL_SANITIZE=${SL_SANITIZE}'; exit 77")
  set_tests_properties(fuzz_short PROPERTIES LABELS cpu SKIP_RETURN_CODE 77)
  return()
endif()
if(NOT SL_FUZZ_SECONDS MATCHES "^[0-9]+$")
  message(FATAL_ERROR "SL_FUZZ_SECONDS must be a whole number of seconds, not '${SL_FUZZ_SECONDS}'")
endif()
if(NOT SL_FUZZ_CLANG AND CMAKE_C_COMPILER_ID STREQUAL "Clang")
  set(SL_FUZZ_CLANG "${CMAKE_C_COMPILER}" CACHE FILEPATH "clang for the fuzz targets (tests/fuzz)")
endif()
find_program(SL_FUZZ_CLANG NAMES clang clang-21 clang-20 clang-19 clang-18 clang-17 clang-16 clang-15 clang-14
             DOC "clang for the fuzz targets (tests/fuzz)")

if(NOT SL_FUZZ_CLANG)
  set(_sl_fuzz_skip "no clang found (point SL_FUZZ_CLANG at one)")
elseif(DEFINED SL_FUZZ_PROBED_CLANG AND SL_FUZZ_PROBED_CLANG STREQUAL SL_FUZZ_CLANG)
  set(_sl_fuzz_skip "${SL_FUZZ_PROBE_RESULT}")
else()
  set(_dir ${CMAKE_CURRENT_BINARY_DIR}/fuzz_probe)
  file(WRITE ${_dir}/fuzzer.c
       "#include <stddef.h>\n#include <stdint.h>\n"
       "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\n"
       "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return n > 1 && d[0] == 1; }\n")
  file(WRITE ${_dir}/openmp.c
       "#include <omp.h>\nint main(void) { return omp_get_max_threads() > 0 ? 0 : 1; }\n")
  execute_process(COMMAND ${SL_FUZZ_CLANG} -fsanitize=fuzzer,address,undefined fuzzer.c -o fuzzer
                  WORKING_DIRECTORY ${_dir} RESULT_VARIABLE _rc_fuzz OUTPUT_QUIET ERROR_QUIET)
  execute_process(COMMAND ${SL_FUZZ_CLANG} -fopenmp openmp.c -o openmp
                  WORKING_DIRECTORY ${_dir} RESULT_VARIABLE _rc_omp OUTPUT_QUIET ERROR_QUIET)
  if(NOT _rc_fuzz EQUAL 0)
    set(_sl_fuzz_skip "${SL_FUZZ_CLANG} cannot link -fsanitize=fuzzer,address,undefined (no libFuzzer runtime)")
  elseif(NOT _rc_omp EQUAL 0)
    set(_sl_fuzz_skip "${SL_FUZZ_CLANG} cannot link -fopenmp (install libomp-dev), which the clang build needs")
  else()
    set(_sl_fuzz_skip "")
  endif()
  set(SL_FUZZ_PROBED_CLANG "${SL_FUZZ_CLANG}" CACHE INTERNAL "the clang fuzz_tests.cmake tried")
  set(SL_FUZZ_PROBE_RESULT "${_sl_fuzz_skip}" CACHE INTERNAL "why fuzz_short is skipped; empty: it runs")
endif()

if(_sl_fuzz_skip STREQUAL "")
  add_test(NAME fuzz_short
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/run.sh ${SL_FUZZ_CLANG} ${PROJECT_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/fuzz_short ${SL_FUZZ_SECONDS})
  # four runs, plus configuring and building the clang tree
  math(EXPR _sl_fuzz_timeout "4 * ${SL_FUZZ_SECONDS} + 900")
  set_tests_properties(fuzz_short PROPERTIES LABELS cpu TIMEOUT ${_sl_fuzz_timeout} SKIP_RETURN_CODE 77)
  message(STATUS "streamlab: ctest fuzz_short: 4 fuzz targets x ${SL_FUZZ_SECONDS} s with ${SL_FUZZ_CLANG}")
else()
  add_test(NAME fuzz_short COMMAND sh -c "echo 'fuzz_short skipped: ${_sl_fuzz_skip}'; exit 77")
  set_tests_properties(fuzz_short PROPERTIES LABELS cpu SKIP_RETURN_CODE 77)
  message(STATUS "streamlab: ctest fuzz_short skipped: ${_sl_fuzz_skip}")
endif()
