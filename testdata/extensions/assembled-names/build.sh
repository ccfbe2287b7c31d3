#!/bin/sh
# Builds the two stand-in extensions (g++ 12.2.0, Debian 12; run in this folder). Their bytes are
# committed: planner's tests read them, never load them.
set -e
gcc -nostdlib -shared -Wl,--build-id=none -o duckdb-0.8.1-load-subtypes.so load_subtypes.S
g++ -O2 -fPIC -shared -D_GLIBCXX_USE_CXX11_ABI=0 -Wl,--build-id=none -o gcc12-two-constants.so gcc12_two_constants.cpp
