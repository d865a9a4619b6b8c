#!/bin/sh
# Runs one Criterion test program so that automake's tap-driver.sh can read
# it: Criterion writes TAP on stderr, so merge it into stdout.  --jobs 1 keeps
# runs reproducible on small machines (and under valgrind).
exec "$@" --tap=- --ascii --jobs 1 2>&1
