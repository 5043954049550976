# Issue 19: `streamlab train` and src/train. CPU tests run in CI; the GPU
# ones skip (77) without a GPU. The data-set tests skip without
# Fashion-MNIST (Debian's dataset-fashion-mnist; scripts/deps.sh installs it).
function(sl_train_test name)
  add_executable(${name} ${name}.c)
  target_compile_options(${name} PRIVATE ${SL_C_WARNINGS})
  target_link_libraries(${name} PRIVATE streamlab_dev)
endfunction()
sl_train_test(test_train_idx)
sl_train_test(test_train_grad)
sl_train_test(test_train_agree)
add_test(NAME test_train_idx COMMAND test_train_idx ${CMAKE_CURRENT_BINARY_DIR}/train_idx_out)
set_tests_properties(test_train_idx PROPERTIES LABELS cpu)
add_test(NAME test_train_grad COMMAND test_train_grad cpu)
set_tests_properties(test_train_grad PROPERTIES LABELS cpu)
add_test(NAME test_train_cli
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_train_cli.sh $<TARGET_FILE:streamlab_cli>
                 ${CMAKE_CURRENT_BINARY_DIR}/train_cli_out)
set_tests_properties(test_train_cli PROPERTIES LABELS cpu TIMEOUT 600)
add_test(NAME test_train_accuracy_cpu
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_train_accuracy.sh $<TARGET_FILE:streamlab_cli>
                 ${CMAKE_CURRENT_BINARY_DIR}/train_acc_out cpu)
set_tests_properties(test_train_accuracy_cpu PROPERTIES LABELS cpu SKIP_RETURN_CODE 77 TIMEOUT 600)
if(SL_HAVE_CUDA)
  add_test(NAME test_gpu_train_grad COMMAND test_train_grad cuda)
  add_test(NAME test_gpu_train_agree COMMAND test_train_agree)
  add_test(NAME test_gpu_train_accuracy
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_train_accuracy.sh $<TARGET_FILE:streamlab_cli>
                   ${CMAKE_CURRENT_BINARY_DIR}/train_acc_gpu_out cuda)
  set_tests_properties(test_gpu_train_grad test_gpu_train_agree test_gpu_train_accuracy
                       PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
endif()
