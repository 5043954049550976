# `streamlab train` (issue 19): the IDX reader, the MLP and its kernels
# (src/train), linked into the CLI and the training tests. zlib reads the
# gzip-compressed IDX files.
find_package(ZLIB)
if(NOT ZLIB_FOUND)
  message(FATAL_ERROR "streamlab needs zlib (streamlab train reads gzip IDX files): install zlib1g-dev "
                      "(Debian/Ubuntu: `sudo apt-get install zlib1g-dev`, or run scripts/deps.sh)")
endif()
set(SL_TRAIN_SOURCES src/train/idx.c src/train/mlp.c src/train/train_cpu.c)
if(SL_HAVE_CUDA)
  list(APPEND SL_TRAIN_SOURCES src/train/train_cuda.cu)
endif()
# Compiled once (streamlab_train_objects) for the CLI's archive and for
# streamlab_dev (cmake/dev.cmake), which the tests link.
add_library(streamlab_train_objects OBJECT ${SL_TRAIN_SOURCES})
set_target_properties(streamlab_train_objects PROPERTIES POSITION_INDEPENDENT_CODE ON)
target_include_directories(streamlab_train_objects PUBLIC src/train PRIVATE src/core)
target_compile_options(streamlab_train_objects PRIVATE $<$<COMPILE_LANGUAGE:C>:${SL_C_WARNINGS}>)
target_link_libraries(streamlab_train_objects PUBLIC streamlab ZLIB::ZLIB PRIVATE OpenMP::OpenMP_C m)
if(SL_HAVE_CUDA)
  target_compile_options(streamlab_train_objects PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${SL_CUDA_FLAGS}>)
  target_link_libraries(streamlab_train_objects PRIVATE CUDA::cudart_static CUDA::cublas)
endif()
add_library(streamlab_train STATIC)
target_link_libraries(streamlab_train PUBLIC streamlab_train_objects)
target_link_libraries(streamlab_cli PRIVATE streamlab_train)
