# Issue 25's contract tests: the bit-for-bit ops move bytes (test_bits on
# the CPU, test_gpu_bits on CUDA device 0, one source), and the contract's
# loose ends (test_contract: dot, gemm, the order of the error checks).
sl_test(test_bits)
add_test(NAME test_bits COMMAND test_bits)
set_tests_properties(test_bits PROPERTIES LABELS cpu)
sl_test(test_contract)
target_include_directories(test_contract PRIVATE ${PROJECT_SOURCE_DIR}/src/ops/matmul)
add_test(NAME test_contract COMMAND test_contract)
set_tests_properties(test_contract PROPERTIES LABELS cpu)
if(SL_HAVE_CUDA)
  add_executable(test_gpu_bits test_bits.c)
  target_compile_definitions(test_gpu_bits PRIVATE SL_TEST_GPU)
  target_compile_options(test_gpu_bits PRIVATE ${SL_C_WARNINGS})
  target_link_libraries(test_gpu_bits PRIVATE streamlab_dev)
  target_include_directories(test_gpu_bits PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
  add_test(NAME test_gpu_bits COMMAND test_gpu_bits)
  set_tests_properties(test_gpu_bits PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
endif()
