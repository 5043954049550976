# The low-precision conversions (src/core/dtype_conv.c). Included from
# tests/CMakeLists.txt after sl_test() is defined; the library must list
# src/core/dtype_conv.c in SL_CORE_SOURCES.
#
# test_dtype_conv: C, no CUDA: every bit pattern, boundary cases, a dense
# sweep against a table-based reference. Under a second.
sl_test(test_dtype_conv)
add_test(NAME test_dtype_conv COMMAND test_dtype_conv)
set_tests_properties(test_dtype_conv PROPERTIES LABELS cpu)

# test_dtype_conv_cuda: the same functions against CUDA's own conversions
# (cuda_fp16.h, cuda_bf16.h, cuda_fp8.h), called on the host: needs nvcc but
# no GPU. Every widening and all 2^32 narrowings, on all cores (~25 s on 2).
if(SL_HAVE_CUDA)
  find_package(Threads REQUIRED)
  add_executable(test_dtype_conv_cuda test_dtype_conv_cuda.cu ${PROJECT_SOURCE_DIR}/src/core/dtype_conv.c)
  target_include_directories(test_dtype_conv_cuda PRIVATE ${PROJECT_SOURCE_DIR}/src/core ${PROJECT_SOURCE_DIR}/include
                                                    ${SL_GENERATED_INCLUDE})
  target_compile_options(test_dtype_conv_cuda PRIVATE $<$<COMPILE_LANGUAGE:C>:${SL_C_WARNINGS}>
                                                      $<$<COMPILE_LANGUAGE:CUDA>:${SL_CUDA_FLAGS}>)
  target_link_libraries(test_dtype_conv_cuda PRIVATE Threads::Threads)
  add_test(NAME test_dtype_conv_cuda COMMAND test_dtype_conv_cuda)
  set_tests_properties(test_dtype_conv_cuda PROPERTIES LABELS cpu TIMEOUT 300)
endif()
