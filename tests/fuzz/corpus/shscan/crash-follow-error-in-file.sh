. ./self.sh
A=(--num-layers 2)
cho $1; }
source a.sh 1 2
. no-such.sh
bash b.sh "$@"
srun -N 2 bash -x c.sh x
./d.sh --flag
V=1 }"
sh e.sh
