# Sourced by ../workdir.sh after `cd` into this directory, by a relative
# name: bash finds it from the new working directory.
SAVE_DIR=$PWD/ckpt
