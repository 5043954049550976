# The cuDNN softmax peer (issue 18): src/ops/softmax/cuda/peer_cudnn.cu
# compiles against cudnn.h where one is found (the toolkit's include
# directory, CUDNN_INCLUDE_DIR, or -DSL_CUDNN_INCLUDE_DIR=...) and loads
# libcudnn.so.9 at run time (dlopen; SL_CUDNN_LIB names another file), so
# the library never links cuDNN and a machine without it skips the peer
# with the reason. Without cudnn.h the peer is built as a stub that says so.
if(SL_HAVE_CUDA)
  find_path(SL_CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS} ENV CUDNN_INCLUDE_DIR)
  set(_sl_cudnn_src ${PROJECT_SOURCE_DIR}/src/ops/softmax/cuda/peer_cudnn.cu)
  if(SL_CUDNN_INCLUDE_DIR)
    set_source_files_properties(${_sl_cudnn_src} PROPERTIES COMPILE_DEFINITIONS SL_HAVE_CUDNN=1
                                                           INCLUDE_DIRECTORIES ${SL_CUDNN_INCLUDE_DIR})
    message(STATUS "streamlab: cudnn.h in ${SL_CUDNN_INCLUDE_DIR}: the cuDNN softmax peer loads libcudnn.so.9 at run time")
  else()
    message(STATUS "streamlab: no cudnn.h (set -DSL_CUDNN_INCLUDE_DIR): the cuDNN softmax peer is skipped")
  endif()
endif()
