# MPI mode of `streamlab run` (issue 15): tests/test_mpi.sh with 2 CPU ranks
# (mpirun --oversubscribe -np 2), skipped with a message where mpirun is
# absent; in a build without MPI, test_mpi_unavailable checks that run under
# an MPI launcher says why MPI mode is unavailable (exit 2).
sl_test(mpi_check)
if(SL_HAVE_MPI)
  add_test(NAME test_mpi
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_mpi.sh $<TARGET_FILE:streamlab_cli>
                   $<TARGET_FILE:mpi_check> ${CMAKE_CURRENT_BINARY_DIR}/mpi_out "${MPIEXEC_EXECUTABLE}")
  set_tests_properties(test_mpi PROPERTIES LABELS cpu SKIP_RETURN_CODE 77 TIMEOUT 900)
else()
  add_test(NAME test_mpi_unavailable
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_mpi_unavailable.sh $<TARGET_FILE:streamlab_cli>)
  set_tests_properties(test_mpi_unavailable PROPERTIES LABELS cpu)
endif()
