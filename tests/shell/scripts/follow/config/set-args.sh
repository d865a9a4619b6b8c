# Sourced with arguments; replaces them with set --.
set -- "$@" --split 98,2,0
