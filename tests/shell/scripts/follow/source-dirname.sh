#!/bin/bash
# Files named from the script's own place: $(dirname "$0"), and a child
# that finds its own files through its $0.
# oracle: all known
HERE=$(dirname "$0")
source "$HERE/config/model.sh"
export MODEL_ARGS_STR="${MODEL_ARGS[*]}"
bash "$(dirname "$0")/child/self-dir.sh" 4
