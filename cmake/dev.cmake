# cmake/dev.cmake - streamlab_dev, the shared object that the tests and the
# bench tools link (CMakeLists.txt says why). Never installed.
#
# It holds the objects that libstreamlab.a holds, plus the lab's and train's;
# a program linking it needs nothing else of ours. Its usage requirements are
# the union of streamlab_lab's and streamlab_train's, set here by hand
# because $<TARGET_OBJECTS> carries none.
set(_sl_dev_objects $<TARGET_OBJECTS:streamlab_objects> $<TARGET_OBJECTS:streamlab_lab_objects>
                    $<TARGET_OBJECTS:streamlab_train_objects>)
if(TARGET sl_mm_wgmma)
  list(APPEND _sl_dev_objects $<TARGET_OBJECTS:sl_mm_wgmma>)
endif()
add_library(streamlab_dev SHARED ${_sl_dev_objects})
target_include_directories(streamlab_dev PUBLIC include ${SL_GENERATED_INCLUDE} ${SL_LAB_INCLUDES} src/train)
target_link_libraries(streamlab_dev PUBLIC sl_cjson ZLIB::ZLIB OpenMP::OpenMP_C m ${CMAKE_DL_LIBS})
if(SL_HAVE_CUDA)
  target_compile_definitions(streamlab_dev PUBLIC SL_HAVE_CUDA=1)
  # cudart shared and public: the tests call cudaMalloc and friends
  # themselves, and one runtime must own the device state they share.
  target_link_libraries(streamlab_dev PUBLIC CUDA::cudart PRIVATE CUDA::cublas)
  if(SL_HAVE_CUPTI)
    target_link_libraries(streamlab_dev PRIVATE CUDA::cupti)
  endif()
  set_target_properties(streamlab_dev PROPERTIES LINKER_LANGUAGE CUDA CUDA_RUNTIME_LIBRARY Shared)
else()
  set_target_properties(streamlab_dev PROPERTIES LINKER_LANGUAGE C)
endif()
