# MPI mode of `streamlab run` (issue 15, docs/scale.md): `mpirun -np K
# streamlab run` runs one rank per device. SL_MPI: AUTO (default) builds it
# when CMake's FindMPI finds an MPI for C, ON requires it, OFF leaves it out.
# Without it the CLI still builds, and `streamlab run` under mpirun says why
# MPI mode is unavailable (src/cli/cmd_run_mpi.c).
set(SL_MPI "AUTO" CACHE STRING "MPI mode of streamlab run: AUTO (when MPI is found), ON (required) or OFF")
string(TOUPPER "${SL_MPI}" _sl_mpi)
set(SL_HAVE_MPI OFF)
set(_sl_mpi_why "")
if(_sl_mpi STREQUAL "OFF" OR _sl_mpi STREQUAL "0" OR _sl_mpi STREQUAL "NO" OR _sl_mpi STREQUAL "FALSE")
  message(STATUS "streamlab: SL_MPI=OFF: no MPI mode (streamlab run under mpirun will say so)")
  set(_sl_mpi_why "it was configured with -DSL_MPI=OFF")
else()
  find_package(MPI COMPONENTS C)
  if(MPI_C_FOUND)
    set(SL_HAVE_MPI ON)
    message(STATUS "streamlab: MPI mode ON: MPI ${MPI_C_VERSION} (${MPI_C_LIB_NAMES}); mpiexec: ${MPIEXEC_EXECUTABLE}")
  elseif(_sl_mpi STREQUAL "ON" OR _sl_mpi STREQUAL "1" OR _sl_mpi STREQUAL "YES" OR _sl_mpi STREQUAL "TRUE")
    message(FATAL_ERROR "streamlab: SL_MPI=ON but CMake's FindMPI found no MPI for C: install Open MPI "
                        "(Debian/Ubuntu: `sudo apt-get install libopenmpi-dev openmpi-bin`, or scripts/deps.sh), "
                        "or set MPI_HOME / MPI_C_COMPILER, or configure with -DSL_MPI=AUTO")
  else()
    message(STATUS "streamlab: MPI not found: no MPI mode (streamlab run under mpirun will say so); "
                   "install libopenmpi-dev openmpi-bin (scripts/deps.sh) for it")
    set(_sl_mpi_why "CMake found no MPI when it was configured")
  endif()
endif()

if(SL_HAVE_MPI)
  add_library(streamlab_mpi STATIC src/lab/mpi/mpi_lab.c)
  target_include_directories(streamlab_mpi PUBLIC src/lab/mpi)
  target_compile_options(streamlab_mpi PRIVATE ${SL_C_WARNINGS})
  target_link_libraries(streamlab_mpi PUBLIC streamlab_lab MPI::MPI_C PRIVATE OpenMP::OpenMP_C)
  if(SL_HAVE_CUDA)
    target_compile_definitions(streamlab_mpi PRIVATE SL_HAVE_CUDA=1)
    target_link_libraries(streamlab_mpi PRIVATE CUDA::cudart_static)
  endif()
  target_sources(streamlab_cli PRIVATE src/cli/run_mpi_files.c) # the MPI mode's files and table
  target_link_libraries(streamlab_cli PRIVATE streamlab_mpi)
  target_compile_definitions(streamlab_cli PRIVATE SL_HAVE_MPI=1 SL_GIT_DESCRIBE="${SL_GIT_DESCRIBE}")
else()
  target_compile_definitions(streamlab_cli PRIVATE SL_MPI_WHY="${_sl_mpi_why}")
endif()
