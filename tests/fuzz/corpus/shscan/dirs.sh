#!/bin/bash
#SBATCH --chdir=sub
# seeds for the working directory (issue 39, class 3)
ROOT=$(cd "$(dirname "$0")/../.." && pwd -P)
cd; cd -; cd ""; cd -L -P -- "$ROOT/./a/../b//c"; cd "$1"; cd ..; cd /
pushd "$ROOT" >/dev/null; pushd +1; popd; popd; popd
for a; do echo "$a" "${BASH_SOURCE[@]}" "$OLDPWD" "$SLURM_SUBMIT_DIR"; done
set -ou nounset -- "$#" "${@:2}"; shift 9
python "$PWD/pretrain_gpt.py" --save "$(pwd)/x" --load "${PWD}" $#
