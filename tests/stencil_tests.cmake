# The stencil op (issue 11): test_stencil on the CPU (CI), test_gpu_stencil
# on the device (skips without a GPU).
sl_test(test_stencil)
add_test(NAME test_stencil COMMAND test_stencil)
set_tests_properties(test_stencil PROPERTIES LABELS cpu)
if(SL_HAVE_CUDA)
  sl_test(test_gpu_stencil)
  target_include_directories(test_gpu_stencil PRIVATE ${PROJECT_SOURCE_DIR}/src/ops/stencil ${PROJECT_SOURCE_DIR}/src/ops/common
                                                     ${CUDAToolkit_INCLUDE_DIRS})
  add_test(NAME test_gpu_stencil COMMAND test_gpu_stencil)
  set_tests_properties(test_gpu_stencil PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
endif()
