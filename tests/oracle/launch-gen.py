#!/usr/bin/env python3
"""Generates launch scripts in the shapes cluster users write, for the
script differential (launch-diff.sh): each script is one choice per axis,

  prologue   how the script starts (`set -euo pipefail`, `set -e -u -o
             pipefail`, `set -o errexit`, `set -x`, `shopt -s ...`, none)
  where      how it finds its own directory (`$(dirname "$0")`, `cd ...
             && pwd`, `$PWD`, `$(pwd)`, `$SLURM_SUBMIT_DIR`, none)
  args       what it reads from its arguments (`CKPT=$1` used bare, or
             with a default, `${1:-8}` as a size, none)
  launcher   torchrun (both option spellings), `python -m
             torch.distributed.run`, deepspeed, srun running python,
             sbatch directives with --gres / --gpus-per-node
  wrapper    numactl, nsys profile, env A=B, singularity exec, a wrapper
             script of the repository that runs `python3 -u "$@"`, none
  model      a valid shape, or one Megatron rejects (a batch that the
             data-parallel size does not divide, an expert-parallel size
             the world does not hold)

Every script carries its own truth for the oracle in comment lines:
`# script-args:` the arguments it is launched with, `# oracle-env:` the
environment Slurm gives it (read from the directives by hand, not by
mcinit), `# shape:` the choices.  mcinit is run on the script without
its arguments: an argument it does not know must never become an error.

    launch-gen.py OUTDIR [--count N] [--seed S]
"""
import argparse
import os
import random

PROLOGUES = {
    "none": "",
    "euo": "set -euo pipefail\n",
    "e-u-o": "set -e -u -o pipefail\n",
    "errexit": "set -o errexit\nset -o nounset\n",
    "ex": "set -ex\n",
    "shopt": "set -Eeuo pipefail\nshopt -s nullglob extglob\n",
    "plusx": "set -x\nset +x\n",
}

WHERE = {
    "none": ("", "pretrain_gpt.py"),
    "dirname": ('HERE=$(dirname "$0")\n', "$HERE/pretrain_gpt.py"),
    "cdpwd": ('ROOT=$(cd "$(dirname "$0")" && pwd)\n', "${ROOT}/pretrain_gpt.py"),
    "cdpwd-up": ('ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/sub/.." && pwd)"\n',
                 "$ROOT/pretrain_gpt.py"),
    "pwd": ('WORK=$(pwd)\n', '"$WORK/pretrain_gpt.py"'),
    "PWD": ("", '"${PWD}/pretrain_gpt.py"'),
    "cd": ('cd "$(dirname "$0")"\n', "./pretrain_gpt.py"),
}

# (lines, the flags that use them, script-args, model defaults it changes)
ARGS = {
    "none": ("", "", ""),
    "bare": ("CKPT=$1\nDATA=$2\n", "--save $CKPT --load $CKPT --save-interval 50 --data-path $DATA", "/ckpt /data/x"),
    "quoted": ('CKPT="$1"\n', '--save "$CKPT" --save-interval 50', "/ckpt"),
    "default": ('CKPT=${1:-/tmp/ckpt}\n', "--save ${CKPT} --save-interval 50", ""),
    "mbs": ('MBS=${1:-1}\n', "--micro-batch-size $MBS", "2"),
}


def model(rng, world, bad):
    """Flags of a small GPT for `world` ranks; `bad`: one error Megatron
    gives before the GPU."""
    tp = rng.choice([t for t in (1, 2, 4) if world % t == 0])
    pp = rng.choice([p for p in (1, 2) if world % (tp * p) == 0])
    dp = world // (tp * pp)
    gbs = dp * rng.choice([4, 8])  # the micro batch of an argument is 2
    flags = ["--tensor-model-parallel-size", str(tp), "--pipeline-model-parallel-size", str(pp),
             "--num-layers", str(4 * pp), "--hidden-size", "256", "--num-attention-heads", "8",
             "--seq-length", "512", "--max-position-embeddings", "512",
             "--global-batch-size", str(gbs), "--train-iters", "100", "--lr", "1e-4",
             "--bf16", "--tokenizer-type", "NullTokenizer",
             "--vocab-size", "1024"]
    if bad == "gbs":
        flags[flags.index("--global-batch-size") + 1] = str(gbs * 3 + (1 if dp > 1 else 0))
        if dp == 1:
            flags[flags.index("--tensor-model-parallel-size") + 1] = "3"
    elif bad == "ep":
        flags += ["--num-experts", "8", "--expert-model-parallel-size", str(world * 2),
                  "--disable-bias-linear"]
    elif bad == "heads":
        flags[flags.index("--num-attention-heads") + 1] = "6"
        flags[flags.index("--tensor-model-parallel-size") + 1] = "4"
    return flags


def launcher(rng, kind, nodes, gpus, entry):
    """(#SBATCH lines, oracle env, the command before the flags)."""
    sb, env = "", {}
    if kind == "torchrun":
        cmd = "torchrun --nproc_per_node %d --nnodes %d %s" % (gpus, nodes, entry)
    elif kind == "torchrun-eq":
        cmd = "torchrun --nproc-per-node=%d --nnodes=%d --node-rank=0 %s" % (gpus, nodes, entry)
    elif kind == "distrun":
        cmd = "python -m torch.distributed.run --nproc_per_node=%d --nnodes %d %s" % (
            gpus, nodes, entry)
    elif kind == "deepspeed":
        cmd = "deepspeed --num_gpus %d --num_nodes %d --master_port 29501 %s" % (gpus, nodes, entry)
    elif kind == "gres":
        sb = "#SBATCH --nodes=%d\n#SBATCH --ntasks-per-node=1\n#SBATCH --gres=gpu:%d\n" % (
            nodes, gpus)
        env = {"SLURM_NNODES": nodes, "SLURM_JOB_NUM_NODES": nodes, "SLURM_NTASKS": nodes,
               "SLURM_NTASKS_PER_NODE": 1, "SLURM_GPUS_ON_NODE": gpus}
        cmd = ("srun torchrun --nproc_per_node $SLURM_GPUS_ON_NODE --nnodes $SLURM_NNODES "
               "%s" % entry)
    elif kind == "gres-typed":
        sb = "#SBATCH -N %d\n#SBATCH --gres=gpu:h100:%d\n" % (nodes, gpus)
        env = {"SLURM_NNODES": nodes, "SLURM_JOB_NUM_NODES": nodes, "SLURM_GPUS_ON_NODE": gpus,
               "SLURM_NTASKS": nodes}
        cmd = "srun --ntasks-per-node=1 torchrun --nproc-per-node=${SLURM_GPUS_ON_NODE} " \
              "--nnodes=${SLURM_NNODES} %s" % entry
    elif kind == "gpus-per-node":
        sb = "#SBATCH --nodes=%d\n#SBATCH --gpus-per-node=%d\n#SBATCH --ntasks-per-node=%d\n" % (
            nodes, gpus, gpus)
        env = {"SLURM_NNODES": nodes, "SLURM_JOB_NUM_NODES": nodes,
               "SLURM_NTASKS": nodes * gpus, "SLURM_NTASKS_PER_NODE": gpus,
               "SLURM_GPUS_ON_NODE": gpus, "SLURM_GPUS_PER_NODE": gpus}
        cmd = "srun python %s" % entry
    else:
        raise ValueError(kind)
    return sb, env, cmd


def wrap(kind, cmd):
    """The command behind a wrapper, and any file the wrapper needs."""
    head, _, rest = cmd.partition(" python ")
    if kind == "none":
        return cmd, None
    pre = {"numactl": "numactl --cpunodebind=0 --membind=0",
           "nsys": "nsys profile -t cuda,nvtx -o /tmp/prof --force-overwrite true",
           "env": "env NCCL_DEBUG=WARN OMP_NUM_THREADS=4",
           "singularity": "singularity exec --nv /images/pytorch.sif",
           "wrapper": '"$(dirname "$0")/wrap.sh"'}[kind]
    wrapper = "#!/bin/bash\n# runs its arguments, as cluster wrappers do\nexport NCCL_DEBUG=WARN\n" \
              "exec \"$@\"\n" if kind == "wrapper" else None
    if rest:  # srun python ...: the wrapper goes before python
        return "%s %s python %s" % (head, pre, rest), wrapper
    return "%s %s" % (pre, cmd), wrapper


def script(rng, i):
    pro = rng.choice(sorted(PROLOGUES))
    where = rng.choice(sorted(WHERE))
    args = rng.choice(sorted(ARGS))
    kind = rng.choice(["torchrun", "torchrun-eq", "distrun", "deepspeed", "gres", "gres-typed",
                       "gpus-per-node"])
    wrapper = rng.choice(["none", "none", "numactl", "nsys", "env", "singularity", "wrapper"])
    if kind == "distrun" or kind == "deepspeed":
        wrapper = rng.choice(["none", "numactl", "env"])
    nodes, gpus = rng.choice([(1, 8), (2, 8), (1, 4), (2, 4), (4, 8)])
    bad = rng.choice(["", "", "", "gbs", "ep", "heads"])
    entry = WHERE[where][1]
    sb, env, cmd = launcher(rng, kind, nodes, gpus, entry)
    cmd, wfile = wrap(wrapper, cmd)
    flags = model(rng, nodes * gpus, bad)
    alines, aflags, sargs = ARGS[args]
    if args != "mbs":  # else the micro batch comes from the argument
        flags += ["--micro-batch-size", "1"]
    if args != "bare":  # else the data path is an argument
        flags += ["--mock-data"]
    shape = "prologue=%s where=%s args=%s launcher=%s wrapper=%s world=%d bad=%s" % (
        pro, where, args, kind, wrapper, nodes * gpus, bad or "no")
    text = "#!/bin/bash\n" + sb
    text += "# shape: %s\n" % shape
    if sargs:
        text += "# script-args: %s\n" % sargs
    if env:
        text += "# oracle-env: %s\n" % " ".join("%s=%s" % kv for kv in sorted(env.items()))
    text += PROLOGUES[pro] + WHERE[where][0] + alines
    text += "export CUDA_DEVICE_MAX_CONNECTIONS=1\n"
    pairs, k = [], 0
    while k < len(flags):
        takes = k + 1 < len(flags) and not flags[k + 1].startswith("--")
        pairs.append(" ".join(flags[k:k + 1 + takes]))
        k += 1 + takes
    if rng.random() < 0.5:
        text += "ARGS=(\n" + "".join("    %s\n" % p for p in pairs) + ")\n"
        text += "%s \\\n    \"${ARGS[@]}\" %s\n" % (cmd, aflags)
    else:
        text += "MODEL_ARGS=\"%s\"\n" % " ".join(pairs)
        text += "%s $MODEL_ARGS %s\n" % (cmd, aflags)
    return "launch-%03d.sh" % i, text, wfile


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--seed", type=int, default=39)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(os.path.join(a.outdir, "sub"), exist_ok=True)
    for i in range(a.count):
        name, text, wfile = script(rng, i)
        with open(os.path.join(a.outdir, name), "w") as f:
            f.write(text)
        if wfile:
            with open(os.path.join(a.outdir, "wrap.sh"), "w") as f:
                f.write(wfile)
            os.chmod(os.path.join(a.outdir, "wrap.sh"), 0o755)


if __name__ == "__main__":
    main()
