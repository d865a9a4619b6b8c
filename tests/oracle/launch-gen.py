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
  dist       torchrun's options literal, or as Megatron-LM's examples
             write them: GPUS_PER_NODE, NNODES with a default, MASTER_ADDR
             (localhost, `hostname`, `scontrol show hostnames` under
             Slurm), WORLD_SIZE by arithmetic, DISTRIBUTED_ARGS as a
             string or an array; `--standalone` on one node
  sizes      the parallel sizes and the batch literal, or variables with
             the batch by $((...)) arithmetic
  split      the flags in one array or string, or in the examples'
             GPT_MODEL_ARGS / TRAINING_ARGS / MODEL_PARALLEL_ARGS arrays
  call       the launch run directly, by exec, through a shell function
             taking "$@", or after an if/else that adds
             --sequence-parallel when TP > 1 (ARGS+=(...) to an array)
  more       comments inside the arrays; the sizes `export`ed,
             `readonly` or `declare -i`, or read from a file the script
             sources; CUDA_VISIBLE_DEVICES before torchrun; torchrun's
             rendezvous options from Slurm's variables; srun running
             `bash -c '...'` whose words expand on the node

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


def dist_vars(rng, kind, nodes, gpus, entry, env):
    """torchrun's options as Megatron-LM's examples write them: (lines,
    command); `env` gains what a Slurm job would give the script."""
    addr = rng.choice(["localhost", "$(hostname)", "scontrol"])
    if addr == "scontrol":
        addr = '$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)'
        env["SLURM_JOB_NODELIST"] = "node[01-%02d]" % nodes
    lines = "GPUS_PER_NODE=%d\nNNODES=${NNODES:-%d}\nNODE_RANK=${NODE_RANK:-0}\n" % (gpus, nodes)
    lines += "MASTER_ADDR=%s\nMASTER_PORT=${MASTER_PORT:-6000}\n" % addr
    lines += "WORLD_SIZE=$((GPUS_PER_NODE * NNODES))\n"
    opts = ["--nproc_per_node $GPUS_PER_NODE", "--nnodes $NNODES", "--node_rank $NODE_RANK",
            "--master_addr $MASTER_ADDR", "--master_port $MASTER_PORT"]
    if rng.random() < 0.5:
        lines += "DISTRIBUTED_ARGS=(\n" + "".join("    %s\n" % o for o in opts) + ")\n"
        use = rng.choice(['"${DISTRIBUTED_ARGS[@]}"', "${DISTRIBUTED_ARGS[@]}"])
    else:
        lines += 'DISTRIBUTED_ARGS="%s"\n' % " ".join(opts)
        use = "$DISTRIBUTED_ARGS"
    head = {"torchrun": "torchrun", "torchrun-eq": "torchrun",
            "distrun": "python -m torch.distributed.run"}[kind]
    return lines, "%s %s %s" % (head, use, entry)


def launcher(rng, kind, nodes, gpus, entry):
    """(#SBATCH lines, oracle env, the command before the flags)."""
    sb, env = "", {}
    if kind == "torchrun" and nodes == 1 and rng.random() < 0.3:
        cmd = "torchrun --standalone --nproc_per_node=%d %s" % (gpus, entry)
    elif kind == "torchrun":
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
    elif kind == "gres-rdzv":
        sb = "#SBATCH --nodes=%d\n#SBATCH --ntasks-per-node=1\n#SBATCH --gpus-per-node=%d\n" % (
            nodes, gpus)
        env = {"SLURM_NNODES": nodes, "SLURM_JOB_NUM_NODES": nodes, "SLURM_NTASKS": nodes,
               "SLURM_NTASKS_PER_NODE": 1, "SLURM_GPUS_ON_NODE": gpus,
               "SLURM_GPUS_PER_NODE": gpus, "SLURM_JOB_ID": 4242, "SLURM_NODEID": 0}
        cmd = ("srun --kill-on-bad-exit=1 torchrun --nnodes=$SLURM_NNODES "
               "--nproc-per-node=$SLURM_GPUS_PER_NODE --rdzv-id=$SLURM_JOB_ID "
               "--rdzv-backend=c10d --rdzv-endpoint=$(hostname):29500 %s" % entry)
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


def sized(rng, flags, style):
    """The sizes and the batch as variables (lines before the launch), or
    as they are."""
    if style == "literal":
        return ""
    lines = ""
    for opt, var in (("--tensor-model-parallel-size", "TP"),
                     ("--pipeline-model-parallel-size", "PP")):
        k = flags.index(opt) + 1
        lines += "%s%s=%s\n" % (rng.choice(["", "", "export ", "readonly ", "declare -i "]),
                                 var, flags[k])
        flags[k] = "$" + var if rng.random() < 0.5 else "${%s}" % var
    k = flags.index("--global-batch-size") + 1
    gbs = int(flags[k])
    a = next(d for d in (4, 3, 2, 1) if gbs % d == 0)
    lines += "GBS=$((%d * %d))\n" % (a, gbs // a)
    flags[k] = "$GBS"
    return lines


GROUPS = (("GPT_MODEL_ARGS", ("--num-layers", "--hidden-size", "--num-attention-heads",
                              "--seq-length", "--max-position-embeddings", "--num-experts",
                              "--disable-bias-linear", "--vocab-size", "--tokenizer-type")),
          ("MODEL_PARALLEL_ARGS", ("--tensor-model-parallel-size",
                                   "--pipeline-model-parallel-size",
                                   "--expert-model-parallel-size")))


def array(rng, name, pairs):
    """An array's definition, a comment line now and then inside it, as
    people annotate their flags."""
    body = ""
    for p in pairs:
        if rng.random() < 0.15:
            body += rng.choice(["    # %s\n", "\n    # %s, see the docs\n"]) % p.split()[0]
        body += "    %s\n" % p
    return "%s=(\n%s)\n" % (name, body)


def grouped(rng, pairs, split):
    """(lines, the words that use them): one array or string, or the
    examples' arrays of model, training and parallel flags."""
    if split == "string":
        return "MODEL_ARGS=\"%s\"\n" % " ".join(pairs), "$MODEL_ARGS"
    if split == "array":
        return array(rng, "ARGS", pairs), '"${ARGS[@]}"'
    lines, uses, rest = "", [], list(pairs)
    for name, opts in GROUPS:
        mine = [p for p in rest if p.split()[0] in opts]
        rest = [p for p in rest if p not in mine]
        lines += array(rng, name, mine)
        uses.append('"${%s[@]}"' % name)
    lines += array(rng, "TRAINING_ARGS", rest)
    return lines, " ".join(uses[:1] + ['"${TRAINING_ARGS[@]}"'] + uses[1:])


def called(rng, call, cmd, words, tp_var, split):
    """The launch line(s): `cmd` run with `words`."""
    if call == "exec":
        return "exec %s \\\n    %s\n" % (cmd, words)
    if call == "function":
        return "launch() {\n    %s \"$@\"\n}\nlaunch %s\n" % (cmd, words)
    if call == "bash-c":  # srun bash -c '...': the words expand on the node
        head, _, rest = cmd.partition("torchrun ")
        return "%sbash -c \"torchrun %s %s\"\n" % (head, rest, words.replace('"', ""))
    if call == "ifelse" and split == "array":
        return ('if [ "%s" -gt 1 ]; then\n    ARGS+=(--sequence-parallel)\nfi\n'
                '%s \\\n    %s\n' % (tp_var, cmd, words))
    if call == "ifelse":
        tp = tp_var or "1"
        return ('if [ "%s" -gt 1 ]; then\n    EXTRA_ARGS="--sequence-parallel"\nelse\n'
                '    EXTRA_ARGS=""\nfi\n%s \\\n    %s $EXTRA_ARGS\n' % (tp, cmd, words))
    return "%s \\\n    %s\n" % (cmd, words)


def script(rng, i):
    pro = rng.choice(sorted(PROLOGUES))
    where = rng.choice(sorted(WHERE))
    args = rng.choice(sorted(ARGS))
    kind = rng.choice(["torchrun", "torchrun-eq", "distrun", "deepspeed", "gres", "gres-typed",
                       "gpus-per-node", "gres-rdzv"])
    wrapper = rng.choice(["none", "none", "numactl", "nsys", "env", "singularity", "wrapper"])
    if kind == "distrun" or kind == "deepspeed":
        wrapper = rng.choice(["none", "numactl", "env"])
    nodes, gpus = rng.choice([(1, 8), (2, 8), (1, 4), (2, 4), (4, 8)])
    bad = rng.choice(["", "", "", "gbs", "ep", "heads"])
    dist = rng.choice(["literal", "vars"]) if kind in ("torchrun", "torchrun-eq",
                                                      "distrun") else "literal"
    sizes = rng.choice(["literal", "vars"])
    split = rng.choice(["array", "string", "groups"])
    call = rng.choice(["direct", "direct", "exec", "function", "ifelse"] +
                      (["bash-c"] if kind == "gres-rdzv" and wrapper == "none" else []))
    entry = WHERE[where][1]
    sb, env, cmd = launcher(rng, kind, nodes, gpus, entry)
    dlines = ""
    if dist == "vars":
        dlines, cmd = dist_vars(rng, kind, nodes, gpus, entry, env)
    cmd, wfile = wrap(wrapper, cmd)
    if cmd.startswith("torchrun ") and call != "exec" and rng.random() < 0.2:  # exec takes no VAR=
        cmd = "CUDA_VISIBLE_DEVICES=%s %s" % (",".join(map(str, range(gpus))), cmd)
    flags = model(rng, nodes * gpus, bad)
    slines = sized(rng, flags, sizes)
    tp_var = "$TP" if sizes == "vars" else \
        flags[flags.index("--tensor-model-parallel-size") + 1]
    alines, aflags, sargs = ARGS[args]
    if args != "mbs":  # else the micro batch comes from the argument
        flags += ["--micro-batch-size", "1"]
    if args != "bare":  # else the data path is an argument
        flags += ["--mock-data"]
    shape = ("prologue=%s where=%s args=%s launcher=%s wrapper=%s world=%d bad=%s dist=%s "
             "sizes=%s split=%s call=%s") % (pro, where, args, kind, wrapper, nodes * gpus,
                                            bad or "no", dist, sizes, split, call)
    text = "#!/bin/bash\n" + sb
    text += "# shape: %s\n" % shape
    if sargs:
        text += "# script-args: %s\n" % sargs
    if env:
        text += "# oracle-env: %s\n" % " ".join("%s=%s" % kv for kv in sorted(env.items()))
    text += PROLOGUES[pro] + WHERE[where][0] + alines + dlines + slines
    text += "export CUDA_DEVICE_MAX_CONNECTIONS=1\n"
    pairs, k = [], 0
    while k < len(flags):
        takes = k + 1 < len(flags) and not flags[k + 1].startswith("--")
        pairs.append(" ".join(flags[k:k + 1 + takes]))
        k += 1 + takes
    glines, words = grouped(rng, pairs, split)
    text += glines + called(rng, call, cmd, (words + " " + aflags).rstrip(), tp_var, split)
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
