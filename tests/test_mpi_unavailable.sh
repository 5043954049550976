#!/bin/sh
# A build without MPI, started as if by mpirun (OMPI_COMM_WORLD_SIZE,
# PMI_SIZE): `streamlab run` must refuse with exit 2 and say why MPI mode is
# unavailable, not run a single-device sweep K times over.
# Usage: test_mpi_unavailable.sh STREAMLAB
set -u
SL=$1
fails=0
for var in OMPI_COMM_WORLD_SIZE PMI_SIZE; do
    err=$(env "$var=2" "$SL" run --sizes 1000 --trials 1 2>&1 >/dev/null)
    rc=$?
    [ $rc = 2 ] || { echo "FAILED: $var=2: exit $rc, want 2"; fails=$((fails + 1)); }
    echo "$err" | grep -q "built without MPI (.*), so MPI mode .* is unavailable" ||
        { echo "FAILED: $var=2: no reason given: $err"; fails=$((fails + 1)); }
    echo "$err" | grep -q "libopenmpi-dev" || { echo "FAILED: $var=2: no remedy given"; fails=$((fails + 1)); }
done
[ $fails = 0 ] || exit 1
echo "test_mpi_unavailable: all checks passed"
