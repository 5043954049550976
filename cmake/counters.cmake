# cmake/counters.cmake - hardware counters (issue 5): src/cuda/cupti.c,
# CUPTI's Range Profiling API behind the CUDA backend's counter interface
# (src/core/counter_ops.h), when the CUDA backend is on and the toolkit has
# CUPTI. The lab's src/lab/counters.c is in every build and says why when
# no backend offers counters.
#
# Included from the top-level CMakeLists.txt after the CUDA backend block,
# once the library's targets exist: streamlab_objects (the sources, compiled
# once) and the two libraries made of them, streamlab (static) and
# streamlab_shared (libstreamlab.so). Sets SL_HAVE_CUPTI (ON/OFF) for later
# files. Option: SL_ENABLE_CUPTI (default ON).
#
# Linking: CUDA::cupti (libcupti.so), with its directory on the run path of
# every program that links streamlab, and of libstreamlab.so (installed too:
# cmake/install.cmake), so the program starts even where that directory is
# not on the loader path. libcupti loads libnvperf_host.so
# (same directory) itself when profiling starts, through the loader path
# only: where that fails, --counters says so and names the library. The
# driver API is not linked (no CUDA::cuda_driver): cupti.c reaches
# cuCtxGetCurrent through cudaGetDriverEntryPointByVersion, so a CUDA build
# still starts on a machine without the NVIDIA driver (the CPU fallback).

option(SL_ENABLE_CUPTI "Read hardware counters through CUPTI when the CUDA toolkit has it" ON)

set(SL_HAVE_CUPTI OFF)
if(SL_HAVE_CUDA AND SL_ENABLE_CUPTI)
  if(NOT TARGET CUDA::cupti)
    find_package(CUDAToolkit QUIET)
  endif()
  set(_sl_cupti_header "")
  if(TARGET CUDA::cupti)
    find_path(SL_CUPTI_RANGE_PROFILER_INCLUDE cupti_range_profiler.h
              HINTS ${CUDAToolkit_CUPTI_INCLUDE_DIR} ${CUDAToolkit_INCLUDE_DIRS}
                    "${CUDAToolkit_LIBRARY_ROOT}/extras/CUPTI/include"
              NO_DEFAULT_PATH)
    set(_sl_cupti_header "${SL_CUPTI_RANGE_PROFILER_INCLUDE}")
  endif()
  if(TARGET CUDA::cupti AND _sl_cupti_header)
    set(SL_HAVE_CUPTI ON)
    set(_sl_cupti_c ${PROJECT_SOURCE_DIR}/src/cuda/cupti.c)
    target_sources(streamlab_objects PRIVATE ${_sl_cupti_c})
    target_compile_definitions(streamlab_objects PRIVATE SL_HAVE_CUPTI=1)
    # cupti_profiler_host.h (CUDA 12.6 to 13.x) includes the C++ header
    # <string> though it declares only C. An empty <string>, on cupti.c's
    # include path alone, lets the header compile as C.
    set(_sl_shim ${CMAKE_CURRENT_BINARY_DIR}/sl_cupti_c_shim)
    file(CONFIGURE OUTPUT ${_sl_shim}/string
         CONTENT "/* Empty stand-in for C++ <string>, included by cupti_profiler_host.h; see cmake/counters.cmake. */\n")
    set_property(SOURCE ${_sl_cupti_c} APPEND PROPERTY INCLUDE_DIRECTORIES
                 ${_sl_shim} ${_sl_cupti_header})
    target_link_libraries(streamlab_objects PRIVATE CUDA::cupti)
    # The archive's consumers link libcupti ($<LINK_ONLY>); the shared
    # library records it as DT_NEEDED.
    target_link_libraries(streamlab PRIVATE CUDA::cupti)
    target_link_libraries(streamlab_shared PRIVATE CUDA::cupti)
    get_target_property(_sl_cupti_lib CUDA::cupti IMPORTED_LOCATION)
    if(_sl_cupti_lib)
      get_filename_component(_sl_cupti_dir "${_sl_cupti_lib}" DIRECTORY)
      target_link_options(streamlab INTERFACE "LINKER:-rpath,${_sl_cupti_dir}")
      set(SL_CUPTI_LIBRARY_DIR "${_sl_cupti_dir}")
    endif()
    message(STATUS "streamlab: CUPTI found: --counters reads hardware counters (${_sl_cupti_lib})")
  else()
    message(STATUS "streamlab: CUPTI not found: --counters will say so at run time")
  endif()
elseif(SL_HAVE_CUDA)
  message(STATUS "streamlab: SL_ENABLE_CUPTI=OFF: --counters will say so at run time")
endif()
