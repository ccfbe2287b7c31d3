#!/bin/sh
# Builds numpy_c_api.cpython-311-x86_64-linux-gnu.so from numpy_c_api.c (gcc, no Python headers).
set -eu
cd "$(dirname "$0")"
gcc -shared -fPIC -O2 -s -o numpy_c_api.cpython-311-x86_64-linux-gnu.so numpy_c_api.c
