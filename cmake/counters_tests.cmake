# cmake/counters_tests.cmake - the counters' tests, registered with ctest.
# Included from tests/CMakeLists.txt after its sl_test() function is
# defined. test_counters checks what needs no GPU (label cpu);
# test_counters_gpu profiles sl_add on GPU 0 and is skipped (77) where
# there is no GPU or its counters cannot be read (label gpu).

sl_test(test_counters)
add_test(NAME test_counters COMMAND test_counters)
set_tests_properties(test_counters PROPERTIES LABELS cpu)
add_test(NAME test_counters_gpu COMMAND test_counters gpu)
set_tests_properties(test_counters_gpu PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
