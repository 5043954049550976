# cmake/wgmma.cmake - matmul's wgmma rung (issue 12): src/ops/matmul/sm90a/08_wgmma.cu.
#
# wgmma.mma_async, setmaxnreg and the TMA-to-wgmma path exist only in the
# architecture-specific target sm_90a, whose code runs on compute
# capability 9.0 and nowhere else (PTX ISA, "Architecture-specific
# features"; CUDA C++ Programming Guide, "Feature Availability"). So this
# one file compiles in its own object library, with every "90" of the
# build's architectures turned into "90a" (90-real -> 90a-real); the other
# architectures compile it with an empty kernel body (the source guards it
# with __CUDA_ARCH_FEAT_SM90_ALL) and the launcher reports the rung
# unavailable there. SL_MM_WGMMA_SM90A tells the host code whether the
# build holds sm_90a code at all.
if(SL_HAVE_CUDA)
  set(_sl_wg_archs "")
  set(_sl_wg_has90 0)
  foreach(_a IN LISTS CMAKE_CUDA_ARCHITECTURES)
    if(_a MATCHES "^90(-real|-virtual)?$")
      string(REGEX REPLACE "^90" "90a" _a "${_a}")
      set(_sl_wg_has90 1)
    endif()
    list(APPEND _sl_wg_archs "${_a}")
  endforeach()
  add_library(sl_mm_wgmma OBJECT ${PROJECT_SOURCE_DIR}/src/ops/matmul/sm90a/08_wgmma.cu)
  set_target_properties(sl_mm_wgmma PROPERTIES POSITION_INDEPENDENT_CODE ON CUDA_ARCHITECTURES "${_sl_wg_archs}")
  target_include_directories(sl_mm_wgmma PRIVATE include ${SL_GENERATED_INCLUDE} src/core src/cuda src/ops/common
                                                 src/ops/matmul)
  target_compile_definitions(sl_mm_wgmma PRIVATE SL_HAVE_CUDA=1 SL_MM_WGMMA_SM90A=${_sl_wg_has90})
  target_compile_options(sl_mm_wgmma PRIVATE ${SL_CUDA_FLAGS})
  if(SL_PTXAS_VERBOSE)
    target_compile_options(sl_mm_wgmma PRIVATE -Xptxas=-v)
  endif()
  target_link_libraries(sl_mm_wgmma PRIVATE CUDA::cudart_static)
  target_sources(streamlab PRIVATE $<TARGET_OBJECTS:sl_mm_wgmma>)
  target_sources(streamlab_shared PRIVATE $<TARGET_OBJECTS:sl_mm_wgmma>)
  message(STATUS "streamlab: matmul wgmma rung compiled for ${_sl_wg_archs} (sm_90a code: ${_sl_wg_has90})")
endif()
