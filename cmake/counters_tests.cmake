# cmake/counters_tests.cmake - the counters' CPU test, registered with
# ctest. Included from tests/CMakeLists.txt after its sl_test() function is
# defined (it uses it), so the test builds like every other test: include
# dirs src/core src/cpu include, linked to streamlab, CUDA linker rules in a
# CUDA build. Runs on any machine (label cpu): it needs no GPU.

sl_test(test_counters)
add_test(NAME test_counters COMMAND test_counters)
set_tests_properties(test_counters PROPERTIES LABELS cpu)
