#!/bin/sh
# CLI tests for `mcinit topology`: the worked examples A-D of spec/topology.md
# as golden files, options, usage errors, placement, and the groups checked
# against an independent model of Megatron-Core's RankGenerator
# (inputs/topology-megatron.py) over a range of configurations; then the
# node's GPU/NUMA/NIC affinity from the hwloc XML fixtures of tests/fixtures,
# this machine's (not golden: it depends on the machine) and the SVG picture.
. "$srcdir/tests/cli/lib.sh"

# Affinity comes from hwloc: without a fixed topology the golden files would
# depend on the machine, so the tests read the 8-GPU fixture (NVLink
# everywhere: no placement warnings) unless they choose another.  The path is
# relative to tests/cli/inputs, where the commands run, so it prints the same
# everywhere.
HWLOC_XMLFILE=../../fixtures/dgx8-2s.xml
export HWLOC_XMLFILE
FX=../../fixtures

M=$MCINIT
T="$M topology"
# The model fields validate requires (inputs/topology-model.json) plus sizes.
A="--world-size 16 topology-model.json model.tensor_model_parallel_size=2 model.pipeline_model_parallel_size=2 model.context_parallel_size=2"
D="--world-size 8 topology-model.json"
DFLAGS="-- --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2"
megatron="python3 topology-megatron.py"

# A: W=16, TP=2, PP=2, CP=2 (DP=2), ETP=TP=2 (EDP=4).  The issue's must-show.
golden topology-a-json 0 $T $A --format=json
golden topology-a-text 0 $T $A
check topology-a-json-parses sh -c "$T $A --format=json | python3 -m json.tool >/dev/null"
check topology-a-exact-groups sh -c "$T $A --format=json | python3 -c '
import json, sys
g = json.load(sys.stdin)[\"groups\"]
r = lambda a, b: list(range(a, b))
want = {
    \"tp\": [[i, i + 1] for i in range(0, 16, 2)],
    \"cp\": [[0,2],[1,3],[4,6],[5,7],[8,10],[9,11],[12,14],[13,15]],
    \"dp\": [[0,4],[1,5],[2,6],[3,7],[8,12],[9,13],[10,14],[11,15]],
    \"dp_cp\": [[0,2,4,6],[1,3,5,7],[8,10,12,14],[9,11,13,15]],
    \"pp\": [[i, i + 8] for i in range(8)],
    \"mp\": [[0,1,8,9],[2,3,10,11],[4,5,12,13],[6,7,14,15]],
    \"tp_cp\": [r(0,4), r(4,8), r(8,12), r(12,16)],
    \"tp_dp\": [[0,1,4,5],[2,3,6,7],[8,9,12,13],[10,11,14,15]],
    \"tp_dp_cp\": [r(0,8), r(8,16)],
    \"embd\": [[i, i + 8] for i in range(8)],
    \"pos_embd\": [[i] for i in range(8)],
    \"ep\": [[i] for i in range(16)],
    \"ep_dp\": [[0,2,4,6],[1,3,5,7],[8,10,12,14],[9,11,13,15]],
    \"tp_ep_pp\": [[0,1,8,9],[2,3,10,11],[4,5,12,13],[6,7,14,15]],
}
bad = [k for k in want if g[k] != want[k]]
assert not bad, bad
'"
check topology-a-megatron sh -c "$T $A --format=json | $megatron"

# B: the same sizes with use_tp_pp_dp_mapping are invalid (EDP 4 != DP 2, MC034).
golden topology-b 1 $T $A dist.use_tp_pp_dp_mapping=true
golden topology-b-json 1 $T $A dist.use_tp_pp_dp_mapping=true --format=json
check topology-b-mc034 sh -c "$T $A dist.use_tp_pp_dp_mapping=true --format=json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d[\"valid\"] is False and \"MC034\" in [x[\"code\"] for x in d[\"diagnostics\"]], d
'"

# C: EP=4, ETP=1 from a JSON config, with placement from its launch section.
golden topology-c-json 0 $T topology-c.json --format=json
golden topology-c-text 0 $T topology-c.json
check topology-c-exact-groups sh -c "$T topology-c.json --format=json | python3 -c '
import json, sys
g = json.load(sys.stdin)[\"groups\"]
assert g[\"dp\"] == [[0,2,4,6],[1,3,5,7],[8,10,12,14],[9,11,13,15]], g[\"dp\"]
assert g[\"pp\"] == [[i, i + 8] for i in range(8)], g[\"pp\"]
assert g[\"ep_tp\"] == [[i] for i in range(16)], g[\"ep_tp\"]
assert g[\"ep\"] == [[0,1,2,3],[4,5,6,7],[8,9,10,11],[12,13,14,15]], g[\"ep\"]
assert g[\"ep_dp\"] == [[0,4],[1,5],[2,6],[3,7],[8,12],[9,13],[10,14],[11,15]], g[\"ep_dp\"]
assert g[\"tp_ep_pp\"] == [[0,1,2,3,8,9,10,11],[4,5,6,7,12,13,14,15]], g[\"tp_ep_pp\"]
'"
check topology-c-megatron sh -c "$T topology-c.json --format=json | $megatron --nproc-per-node 4"

# D: W=8, TP=2, PP=2, sizes given as Megatron-LM flags.
golden topology-d-json 0 $T $D --format=json $DFLAGS
golden topology-d-text 0 $T $D $DFLAGS
check topology-d-exact-groups sh -c "$T $D --format=json $DFLAGS | python3 -c '
import json, sys
g = json.load(sys.stdin)[\"groups\"]
assert g[\"tp\"] == [[0,1],[2,3],[4,5],[6,7]] and g[\"dp\"] == [[0,2],[1,3],[4,6],[5,7]], g
assert g[\"pp\"] == [[0,4],[1,5],[2,6],[3,7]] and g[\"mp\"] == [[0,1,4,5],[2,3,6,7]], g
'"

# One rank, one kind.
golden topology-rank 0 $T $A --rank 5 --nproc-per-node 4
golden topology-rank-json 0 $T $A --rank 5 --nproc-per-node 4 --format=json
check topology-rank-one-entry sh -c "$T $A --rank 13 --nproc-per-node 4 --format=json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert len(d[\"ranks\"]) == 1 and len(d[\"groups\"]) == 20, d[\"ranks\"]
e = d[\"ranks\"][0]
assert (e[\"rank\"], e[\"node\"], e[\"local_rank\"]) == (13, 3, 1), e
assert (e[\"tp\"], e[\"cp\"], e[\"dp\"], e[\"pp\"]) == (1, 0, 1, 1), e
assert (e[\"etp\"], e[\"ep\"], e[\"edp\"]) == (1, 0, 2), e
assert e[\"seed\"] == 1234 + 100, e
'"
golden topology-group 0 $T $A --group dp_cp --nnodes 2
golden topology-group-json 0 $T $A --group ep_dp --format=json
check topology-group-one-key sh -c "$T $A --group tp_ep_pp --format=json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert list(d[\"groups\"]) == [\"tp_ep_pp\"] and len(d[\"ranks\"]) == 16, list(d[\"groups\"])
'"
check topology-rank-and-group sh -c "$T $A --rank 5 --group pp | grep -q '^    pp  *group 5 of 8, position 0: \[5,13\]$'"
check topology-rank-not-member sh -c "$T $A --rank 9 --group pos_embd | grep -q 'pos_embd *not a member'"

# Usage errors.
golden topology-bad-group 64 $T $A --group tensor
golden topology-bad-rank 64 $T $A --rank 16
golden topology-bad-rank-word 64 $T $A --rank two
check topology-bad-format sh -c "$T $A --format=yaml; test \$? -eq 64"

# Placement: node = rank / nproc_per_node, local rank = rank % nproc_per_node.
golden topology-placement 0 $T $A --nnodes 4 --nproc-per-node 4
check topology-placement-json sh -c "$T $A --nproc-per-node 4 --format=json | $megatron --nproc-per-node 4"
check topology-placement-from-nnodes sh -c "$T $A --nnodes 2 --format=json | $megatron --nproc-per-node 8"
check topology-placement-unknown sh -c "$T $A --format=json | python3 -c '
import json, sys
assert all(e[\"node\"] is None and e[\"local_rank\"] is None for e in json.load(sys.stdin)[\"ranks\"])
'"
check topology-placement-tp-spans sh -c "$T $A --world-size 32 model.tensor_model_parallel_size=8 --nproc-per-node 4 | grep -q '^  tp  *4  *8  spans nodes (up to 2 per group)$'"

# Placement warnings: a tensor-parallel group across nodes (with the traffic
# estimate), a world size that is not nnodes x nproc-per-node.
golden topology-mc046 0 $T $A --world-size 32 model.tensor_model_parallel_size=8 --nproc-per-node 4 --group tp
check topology-mc046-traffic sh -c "$T $A --world-size 32 model.tensor_model_parallel_size=8 --nproc-per-node 4 2>&1 >/dev/null | grep -q 'MC046.*span nodes' && $T $A --world-size 32 model.tensor_model_parallel_size=8 --nproc-per-node 4 2>&1 >/dev/null | grep -q 'bytes'"
check topology-mc047-json sh -c "$T $A --nnodes 3 --nproc-per-node 4 --format=json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert \"MC047\" in [x[\"code\"] for x in d[\"diagnostics\"]], d[\"diagnostics\"]
assert d[\"ranks\"][15][\"node\"] == 3 and d[\"ranks\"][15][\"local_rank\"] == 3
'"

# Invalid jobs are reported as validate reports them.
golden topology-mc010 1 $T --world-size 12 topology-model.json model.tensor_model_parallel_size=8
golden topology-missing-file 66 $T no-such-file.json
check topology-invalid-json-output sh -c "$T --world-size 12 topology-model.json model.tensor_model_parallel_size=8 --format=json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d[\"valid\"] is False and d[\"diagnostics\"][0][\"code\"] == \"MC010\", d
'"

# sizes.vpp: the derived virtual pipeline size (rules.md D2), null without one.
check topology-vpp sh -c "$T $A model.num_layers_per_virtual_pipeline_stage=2 model.overlap_p2p_comm=true --format=json | python3 -c '
import json, sys
assert json.load(sys.stdin)[\"sizes\"][\"vpp\"] == 2
'"
check topology-vpp-null sh -c "$T $A --format=json | python3 -c '
import json, sys
assert json.load(sys.stdin)[\"sizes\"][\"vpp\"] is None
'"

# Seeds follow rng.seed and rng.data_parallel_random_init.
check topology-seeds sh -c "$T $A rng.seed=99 rng.data_parallel_random_init=true --format=json | $megatron --seed 99 --dp-random-init"

# Large worlds: the per-rank table is left out over 64 ranks unless --all.
check topology-table-elided sh -c "$T $A --world-size 128 | grep -q 'per-rank table left out for 128 ranks'"
check topology-table-all sh -c "test \$($T $A --world-size 128 --all | grep -c '^ *[0-9][0-9]* ') -ge 128"

# Against the model of Megatron's RankGenerator: W, TP, PP, CP, EP, ETP, mapping.
# No linear biases: TransformerConfig rejects MoE biases with ETP > 1.
model="topology-model.json model.num_layers=24 model.seq_length=384 model.max_position_embeddings=384 model.num_moe_experts=48 model.add_bias_linear=false"
for cfg in 1:1:1:1:1:1:false 8:2:2:1:1:2:false 16:2:2:2:1:2:false 16:2:2:1:4:1:false \
	24:1:1:1:3:1:false 48:2:3:2:2:1:false 96:2:2:3:4:2:false 32:2:2:2:2:2:true \
	64:4:2:1:4:1:true 48:1:4:3:3:1:true 4096:8:4:2:8:1:false 4096:4:8:2:8:1:true \
	2048:2:8:1:16:1:false; do
	IFS=: read -r w tp pp cp ep etp map <<EOF
$cfg
EOF
	check "topology-megatron-$cfg" sh -c "$T --world-size $w --nproc-per-node 8 $model \
		model.tensor_model_parallel_size=$tp model.pipeline_model_parallel_size=$pp \
		model.context_parallel_size=$cp model.expert_model_parallel_size=$ep \
		model.expert_tensor_parallel_size=$etp dist.use_tp_pp_dp_mapping=$map \
		--format=json | $megatron --nproc-per-node 8"
done

# ---- affinity (GPU, NUMA, NIC) from hwloc ----
# dgx8-2s: 8 H100 on NVSwitch, 2 sockets, a PCIe switch and an mlx5 NIC per
# GPU pair.  TP 8 inside the node: no warning.
DGX="--world-size 16 topology-model.json model.tensor_model_parallel_size=8 --nproc-per-node 8 --hwloc-xml $FX/dgx8-2s.xml"
golden topology-aff-dgx8-text 0 $T $DGX
golden topology-aff-dgx8-json 0 $T $DGX --format=json
check topology-aff-dgx8-no-warning sh -c "$T $DGX 2>&1 >/dev/null | grep -q . && exit 1; $T $DGX --format=json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d[\"diagnostics\"] == [], d[\"diagnostics\"]
a = d[\"affinity\"]
assert [e[\"local_rank\"] for e in a] == list(range(8)), a
assert a[0] == {\"local_rank\": 0, \"gpu\": \"0000:13:00.0\", \"numa\": [0], \"cpuset\": \"0-55\", \"nics\": [\"mlx5_0\"]}, a[0]
assert a[7] == {\"local_rank\": 7, \"gpu\": \"0000:c4:00.0\", \"numa\": [1], \"cpuset\": \"56-111\", \"nics\": [\"mlx5_3\"]}, a[7]
assert [e[\"nics\"] for e in a] == [[\"mlx5_%d\" % (i // 2)] for i in range(8)], a
'"
check topology-aff-dgx8-matrix sh -c "$T $DGX | grep -q '^  GPU0   X      NV18   NV18   NV18   NV18   NV18   NV18   NV18   PIX    NODE   SYS    SYS    0-55  *0$'"
# --rank: that rank's GPU, CPUs, NUMA node and NICs; JSON keeps its entry.
golden topology-aff-rank 0 $T $DGX --rank 13
check topology-aff-rank-line sh -c "$T $DGX --rank 13 | grep -qx '  affinity: GPU 5 (0000:94:00.0, NVIDIA H100 80GB HBM3), NUMA 1, CPUs 56-111, NICs mlx5_2'"
check topology-aff-rank-json sh -c "$T $DGX --rank 13 --format=json | python3 -c '
import json, sys
a = json.load(sys.stdin)[\"affinity\"]
assert a == [{\"local_rank\": 5, \"gpu\": \"0000:94:00.0\", \"numa\": [1], \"cpuset\": \"56-111\", \"nics\": [\"mlx5_2\"]}], a
'"

# node4-1s: 4 PCIe GPUs without NVLink.  TP 4 → MC050 (located at the TP setting).
N4="--world-size 8 topology-model.json model.tensor_model_parallel_size=4 --nproc-per-node 4 --hwloc-xml $FX/node4-1s.xml"
golden topology-aff-node4-text 0 $T $N4
golden topology-aff-node4-json 0 $T $N4 --format=json
check topology-aff-node4-mc050 sh -c "$T $N4 --format=json | python3 -c '
import json, sys
d = json.load(sys.stdin)
w = [x for x in d[\"diagnostics\"] if x[\"code\"] == \"MC050\"]
assert len(w) == 1 and w[0][\"severity\"] == \"warning\", d[\"diagnostics\"]
assert \"tensor-parallel group 0 (GPUs 0,1,2,3) is not fully NVLink-connected\" in w[0][\"message\"], w
assert w[0][\"keys\"] == [\"model.tensor_model_parallel_size\"] and w[0][\"source\"] == \"override\", w
assert len(d[\"affinity\"]) == 4 and all(e[\"numa\"] == [0] for e in d[\"affinity\"]), d[\"affinity\"]
'"
# Groups that span nodes are MC046's business, not MC050's (TP 8 > 4 per node).
check topology-aff-node4-spanning-tp sh -c "$T $N4 --world-size 16 model.tensor_model_parallel_size=8 2>&1 >/dev/null | grep -q MC050 && exit 1; exit 0"
# More local ranks than GPUs → MC051; the extra ranks have no GPU.
check topology-aff-mc051 sh -c "$T $N4 model.tensor_model_parallel_size=2 --world-size 12 --nproc-per-node 6 --format=json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert [x[\"code\"] for x in d[\"diagnostics\"]].count(\"MC051\") == 1, d[\"diagnostics\"]
a = d[\"affinity\"]
assert len(a) == 6 and a[3][\"gpu\"] == \"0000:41:00.0\" and a[4][\"gpu\"] is None and a[5][\"nics\"] == [], a
'"
# A GPU none of whose CPUs may be used → MC052: the fixture with its allowed
# CPUs cut to the first socket.
sed '0,/allowed_cpuset="[^"]*"/s//allowed_cpuset="0x00ffffff,0xffffffff"/' \
	"$srcdir/tests/fixtures/dgx8-2s.xml" >"$tmp/dgx8-socket0.xml"
check topology-aff-mc052 sh -c "$T $DGX --hwloc-xml $tmp/dgx8-socket0.xml --format=json | python3 -c '
import json, sys
d = json.load(sys.stdin)
w = [x[\"message\"] for x in d[\"diagnostics\"] if x[\"code\"] == \"MC052\"]
assert len(w) == 4 and all(\"local to CPUs 56-111, none of which\" in m for m in w), d[\"diagnostics\"]
assert d[\"affinity\"][4][\"cpuset\"] == \"56-111\", d[\"affinity\"][4]
'"
# external_gpu_device_mapping: every rank uses device 0.
check topology-aff-external-mapping sh -c "$T $DGX dist.external_gpu_device_mapping=true --format=json | python3 -c '
import json, sys
a = json.load(sys.stdin)[\"affinity\"]
assert len(a) == 8 and {e[\"gpu\"] for e in a} == {\"0000:13:00.0\"}, a
'"
# Placement unknown: one entry per GPU of the node.
check topology-aff-placement-unknown sh -c "$T --world-size 16 topology-model.json --format=json | python3 -c '
import json, sys
a = json.load(sys.stdin)[\"affinity\"]
assert [e[\"local_rank\"] for e in a] == list(range(8)) and a[4][\"numa\"] == [1], a
'"

# node16-2s: 16 GPUs; the first eight on NUMA node 0 with its CPUs, the rest
# on node 1 with its CPUs (checked against the node list of the text output).
N16="--world-size 32 topology-model.json model.tensor_model_parallel_size=8 --nproc-per-node 16 --hwloc-xml $FX/node16-2s.xml"
check topology-aff-node16-numa sh -c "$T $N16 --format=json | python3 -c '
import json, sys
d = json.load(sys.stdin)
a = d[\"affinity\"]
assert len(a) == 16 and d[\"diagnostics\"] == [], d
assert all(e[\"numa\"] == [0] and e[\"cpuset\"] == \"0-47\" for e in a[:8]), a[:8]
assert all(e[\"numa\"] == [1] and e[\"cpuset\"] == \"48-95\" for e in a[8:]), a[8:]
assert len({e[\"gpu\"] for e in a}) == 16, a
' && $T $N16 | grep -qx '    node 0: CPUs 0-47, 378.0 GiB' && $T $N16 | grep -qx '    node 1: CPUs 48-95, 378.0 GiB'"
check topology-aff-node16-text-ranks sh -c "test \$($T $N16 | grep -cE '^ +[0-7]  +[0-7]  0000:[0-9a-f:.]+  0  +0-47  +mlx5_[0-3]$') -eq 8 && test \$($T $N16 | grep -cE '^ +(8|9|1[0-5])  +(8|9|1[0-5])  0000:[0-9a-f:.]+  1  +48-95  +mlx5_[4-7]$') -eq 8"

# Bad topology files: missing → 66, not hwloc XML → 65, from either source.
golden topology-aff-missing-xml 66 $T $DGX --hwloc-xml no-such-topology.xml
golden topology-aff-bad-xml 65 $T $DGX --hwloc-xml topology-model.json
# hwloc rejects a bad file in hwloc_topology_set_xml with libxml2 (Debian's
# libhwloc-plugins) and only in hwloc_topology_load with its own minimal
# parser: the message and status must not depend on which one parses.
# HWLOC_LIBXML_IMPORT chooses the parser (1 falls back to the minimal one
# where the plugin is absent).
head -c 400 "$srcdir/tests/fixtures/dgx8-2s.xml" >"$tmp/truncated.xml"
: >"$tmp/empty.xml"
echo '<html><body/></html>' >"$tmp/html.xml"
for p in 0 1; do
	check "topology-aff-bad-xml-libxml$p" sh -c "HWLOC_LIBXML_IMPORT=$p $T $DGX --hwloc-xml topology-model.json >'$tmp/bx$p' 2>&1; echo exit \$? >>'$tmp/bx$p'; diff -u '$cli/golden/topology-aff-bad-xml.out' '$tmp/bx$p'"
	for f in truncated empty html; do
		check "topology-aff-$f-xml-libxml$p" sh -c "HWLOC_LIBXML_IMPORT=$p $T $DGX --hwloc-xml '$tmp/$f.xml' >'$tmp/o' 2>&1; test \$? -eq 65 && grep -qx 'mcinit topology: $tmp/$f.xml: not an hwloc XML topology (hwloc cannot parse it)' '$tmp/o'"
	done
done
# An encoding libxml2 does not carry goes through ICU, whose tables leak
# when hwloc unloads its XML plugin (fuzzing found it): refused first, with
# its line, either parser; lstopo's UTF-8 is read.
sed '1s/UTF-8/EBCDIC-XY/' "$srcdir/tests/fixtures/node4-1s.xml" >"$tmp/encoding.xml"
sed '1s/UTF-8/utf-8/' "$srcdir/tests/fixtures/node4-1s.xml" >"$tmp/encoding-lower.xml"
check "topology-aff-encoding-edited" sh -c "! cmp -s '$tmp/encoding.xml' '$srcdir/tests/fixtures/node4-1s.xml'"
for p in 0 1; do
	check "topology-aff-encoding-libxml$p" sh -c "HWLOC_LIBXML_IMPORT=$p $T $DGX --hwloc-xml '$tmp/encoding.xml' >'$tmp/o' 2>&1; test \$? -eq 65 && grep -q '^mcinit topology: $tmp/encoding.xml:1: encoding \"EBCDIC-XY\"' '$tmp/o'"
	check "topology-aff-encoding-utf8-libxml$p" sh -c "HWLOC_LIBXML_IMPORT=$p $T $DGX --hwloc-xml '$tmp/encoding-lower.xml' >/dev/null"
done
# An object with a cpuset but no complete_cpuset (or a nodeset but no
# complete_nodeset) crashed hwloc 2.9's loader (fuzzing found it; fixed
# upstream in open-mpi/hwloc#783): refused first, with its line, either parser.
awk '/type="PU" os_index="4"/ && !d { sub(/ complete_cpuset="[^"]*"/, ""); d = 1 } 1' \
	"$srcdir/tests/fixtures/node4-1s.xml" >"$tmp/no-complete-cpuset.xml"
awk '/type="NUMANode"/ && !d { sub(/ complete_nodeset="[^"]*"/, ""); d = 1 } 1' \
	"$srcdir/tests/fixtures/node4-1s.xml" >"$tmp/no-complete-nodeset.xml"
for f in cpuset nodeset; do
	check "topology-aff-no-complete-$f-edited" sh -c "! cmp -s '$tmp/no-complete-$f.xml' '$srcdir/tests/fixtures/node4-1s.xml'"
done
for p in 0 1; do
	for f in cpuset nodeset; do
		check "topology-aff-no-complete-$f-libxml$p" sh -c "HWLOC_LIBXML_IMPORT=$p $T $DGX --hwloc-xml '$tmp/no-complete-$f.xml' >'$tmp/o' 2>&1; test \$? -eq 65 && grep -q '^mcinit topology: $tmp/no-complete-$f.xml:[0-9]*: an object with a $f but no complete_$f' '$tmp/o'"
	done
done
check topology-aff-env-missing sh -c "HWLOC_XMLFILE=no-such.xml $T --world-size 8 topology-model.json 2>&1; test \$? -eq 66"
check topology-aff-env-missing-msg sh -c "HWLOC_XMLFILE=no-such.xml $T --world-size 8 topology-model.json 2>&1 | grep -q 'no-such.xml: cannot read hwloc XML: No such file or directory (the file \$HWLOC_XMLFILE names)'"
check topology-aff-env-used sh -c "HWLOC_XMLFILE=$FX/node4-1s.xml $T --world-size 8 topology-model.json | grep -qx '  Topology: $FX/node4-1s.xml'"

# This machine (no XML): output depends on the machine, so properties only.
# Without NVIDIA GPUs it says so and still shows the CPUs and NUMA nodes.
live_gpus=$(cat /sys/bus/pci/devices/*/vendor 2>/dev/null | grep -c 0x10de || true)
check topology-aff-live-text sh -c "env -u HWLOC_XMLFILE $T --world-size 8 --nproc-per-node 4 topology-model.json >\"$tmp/live\" 2>&1 &&
	grep -qx '  Topology: this machine' \"$tmp/live\" && grep -q '^  NUMA nodes: [1-9]' \"$tmp/live\" &&
	grep -q '^  Allowed CPUs: [0-9]' \"$tmp/live\" &&
	if [ $live_gpus -eq 0 ]; then grep -qx '  no NVIDIA GPUs found on this machine' \"$tmp/live\" &&
		grep -q 'note\\[MC053\\]: no NVIDIA GPUs found on this machine' \"$tmp/live\";
	else grep -q '^  GPUs: [1-9]' \"$tmp/live\"; fi"
check topology-aff-live-json sh -c "env -u HWLOC_XMLFILE $T --world-size 8 --nproc-per-node 4 topology-model.json --format=json | python3 -c '
import json, sys
a = json.load(sys.stdin)[\"affinity\"]
assert [e[\"local_rank\"] for e in a] == [0, 1, 2, 3], a
for e in a:
    assert set(e) == {\"local_rank\", \"gpu\", \"numa\", \"cpuset\", \"nics\"} and e[\"cpuset\"], e
    assert $live_gpus > 0 or (e[\"gpu\"] is None and e[\"numa\"]), e
'"

# --format=svg: a well-formed SVG document (Chromium renders it in svg-chromium.sh).
SVG="--world-size 32 topology-model.json model.tensor_model_parallel_size=8 model.pipeline_model_parallel_size=2 --nproc-per-node 8 --format=svg"
check topology-svg-is-xml sh -c "$T $SVG | python3 -c '
import sys, xml.dom.minidom
doc = xml.dom.minidom.parse(sys.stdin)
root = doc.documentElement
assert root.tagName == \"svg\" and root.getAttribute(\"xmlns\") == \"http://www.w3.org/2000/svg\", root.tagName
texts = [t.firstChild.data for t in doc.getElementsByTagName(\"text\") if t.firstChild]
assert [t for t in texts if t.startswith(\"r\") and t[1:].isdigit()] == [\"r%d\" % i for i in range(32)], texts
assert \"mlx5_3\" in texts and \"NUMA 1\" in texts, texts
'"
check topology-svg-node16 sh -c "$T $SVG --hwloc-xml $FX/node16-2s.xml --nproc-per-node 16 | python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.stdin)'"
check topology-svg-no-gpu-slots sh -c "$T $N4 model.tensor_model_parallel_size=2 --world-size 12 --nproc-per-node 6 --format=svg 2>/dev/null | python3 -c '
import sys, xml.dom.minidom
doc = xml.dom.minidom.parse(sys.stdin)
cols = [t.firstChild.data for t in doc.getElementsByTagName(\"text\") if t.getAttribute(\"class\") == \"col\"]
assert cols == [\"GPU 0\", \"GPU 1\", \"GPU 2\", \"GPU 3\", \"no GPU\", \"no GPU\"] * 2, cols
'"
check topology-svg-huge sh -c "$T $SVG --world-size 65536 | python3 -c '
import sys, xml.dom.minidom
data = sys.stdin.read()
xml.dom.minidom.parseString(data)
assert len(data) < 400000 and \"8184 more nodes\" in data, len(data)
'"
check topology-svg-live-no-placement sh -c "env -u HWLOC_XMLFILE $T --world-size 8 topology-model.json --format=svg >/dev/null 2>&1; rc=\$?; if [ $live_gpus -eq 0 ]; then test \$rc -eq 64; else test \$rc -eq 0; fi"

# Every communicator of Megatron-Core's own initialize_model_parallel, per
# release (tests/oracle/golden, written by tests/oracle/topology-oracle.py),
# through Megatron-LM flags: groups per kind in creation order, and the jobs
# Megatron rejects rejected.  Releases mcinit does not know yet are skipped.
for rel in r0.15 r0.16 r0.17 r0.18 r0.19 main; do
	rc=0
	(cd "$cli/inputs" && CUDA_DEVICE_MAX_CONNECTIONS=1 python3 topology-oracle-cli.py "$M" \
		"$srcdir/tests/oracle/golden/$rel.txt" "$rel") >"$tmp/oracle" 2>&1 || rc=$?
	if [ $rc -eq 77 ]; then
		skip "topology-oracle-$rel" "mcinit has no --megatron-version $rel yet"
	elif [ $rc -eq 0 ]; then
		pass "topology-oracle-$rel"
	else
		fail "topology-oracle-$rel" "differs from Megatron-Core:" "$tmp/oracle"
	fi
done

# Issue 9's must-show: hierarchical CP and two optimizer instances (plus the
# expert side with EP 2); main with TP 2 and 4 weight shards.
MS="--world-size 32 --format=json -- --num-layers 4 --hidden-size 64 --num-attention-heads 4 --seq-length 128 --max-position-embeddings 128 --micro-batch-size 1 --train-iters 1 --tensor-model-parallel-size 2 --context-parallel-size 4 --hierarchical-context-parallel-sizes 2 2 --num-distributed-optimizer-instances 2 --use-distributed-optimizer"
check topology-must-show-hcp sh -c "$T $MS 2>/dev/null | python3 -c '
import json, sys
g = json.load(sys.stdin)[\"groups\"]
keys = list(g)
assert keys.index(\"cp\") < keys.index(\"hcp\") < keys.index(\"mp\"), keys
assert keys.index(\"dp_cp\") < keys.index(\"intra_dp_cp\") < keys.index(\"dp\"), keys
assert keys[-1] == \"intra_dist_opt_instance\", keys
assert \"intra_ep_dp\" in keys and \"inter_ep_dp\" in keys, keys
assert g[\"cp\"][0] == [0, 2, 4, 6] and g[\"hcp\"][:4] == [[0, 2], [4, 6], [0, 4], [2, 6]], g[\"hcp\"][:4]
assert g[\"intra_dp_cp\"][:2] == [list(range(0, 16, 2)), list(range(16, 32, 2))], g[\"intra_dp_cp\"][:2]
assert g[\"intra_dist_opt_instance\"] == [list(range(16)), list(range(16, 32))]
'"
check topology-must-show-hcp-ep sh -c "$T $MS --expert-model-parallel-size 2 --num-experts 4 --disable-bias-linear 2>/dev/null | python3 -c '
import json, sys
g = json.load(sys.stdin)[\"groups\"]
assert g[\"ep_dp\"][0] == list(range(0, 32, 4)), g[\"ep_dp\"][0]
assert g[\"intra_ep_dp\"][:2] == [[0, 4, 8, 12], [16, 20, 24, 28]], g[\"intra_ep_dp\"][:2]
assert g[\"inter_ep_dp\"][:4] == [[0, 16], [4, 20], [8, 24], [12, 28]], g[\"inter_ep_dp\"][:4]
'"
GTP="--megatron-version main --world-size 16 --format=json -- --num-layers 4 --hidden-size 64 --num-attention-heads 4 --seq-length 128 --max-position-embeddings 128 --micro-batch-size 1 --train-iters 1 --tensor-model-parallel-size 2 --tensor-parallel-num-weight-shards 4 --global-batch-size 16"
check topology-gtp-remat-main sh -c "$T $GTP 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
g, s = d[\"groups\"], d[\"sizes\"]
assert s[\"gtp_remat\"] == 2 and s[\"dp\"] == 4 and s[\"expert_gtp_remat\"] == 1, s
assert g[\"gtp_remat\"][:3] == [[0, 2], [1, 3], [4, 6]] and len(g[\"gtp_remat\"]) == 8, g[\"gtp_remat\"]
assert g[\"dp\"][0] == [0, 4, 8, 12] and g[\"gtp_remat_dp\"][0] == [0, 2, 4, 6, 8, 10, 12, 14]
assert g[\"mp\"][0] == [0, 1, 2, 3] and g[\"tp_dp\"] == [list(range(16))]
assert list(g)[0] == \"gtp_remat\" and g[\"intra_dist_opt_instance\"] == [list(range(16))]
r = d[\"ranks\"][2]
assert (r[\"tp\"], r[\"gtp_remat\"], r[\"dp\"]) == (0, 1, 0), r
'"
check topology-gtp-remat-needs-r019 sh -c "$T --megatron-version r0.16 $(echo "$GTP" | sed 's/--megatron-version main//') >/dev/null 2>&1; test \$? -ne 0"

check topology-help-mentions-exit-codes sh -c "$T --help | grep -q 'Exit status'"
check topology-listed-in-usage sh -c "$M --help | grep -q '^  topology '"

# libhwloc is opened only by what reads a node's hardware (lib/topo/hwlocdl.c):
# validate never loads it, and without it topology fails naming it (69,
# EX_UNAVAILABLE), --version says "running API none", validate still works.
if [ -z "${MCINIT_WRAPPER:-}" ] && LD_DEBUG=files $M --help 2>&1 >/dev/null | grep -q 'file=libc\.so'; then
	check validate-loads-no-hwloc sh -c "! LD_DEBUG=files $M validate $D 2>&1 | grep -q 'file=libhwloc'"
	check topology-loads-hwloc sh -c "LD_DEBUG=files $T $D --hwloc-xml $FX/dgx8-2s.xml 2>&1 | grep -q 'file=libhwloc'"
else
	skip validate-loads-no-hwloc "LD_DEBUG does not trace this mcinit (a wrapper, or a secure-execution loader)"
	skip topology-loads-hwloc "LD_DEBUG does not trace this mcinit (a wrapper, or a secure-execution loader)"
fi
check topology-without-hwloc-is-69 sh -c "MCINIT_HWLOC_LIBRARY=$tmp/none $T $D --hwloc-xml $FX/dgx8-2s.xml >'$tmp/nohw' 2>&1; test \$? -eq 69 && grep -q 'hwloc is needed.*libhwloc.*MCINIT_HWLOC_LIBRARY=' '$tmp/nohw'"
check version-without-hwloc sh -c "MCINIT_HWLOC_LIBRARY=$tmp/none $M --version | grep -qE '^  hwloc +[0-9.]+ \\(API [0-9.]+; running API none\\)$'"
check validate-without-hwloc sh -c "$M validate $D >'$tmp/v1' 2>&1; a=\$?; MCINIT_HWLOC_LIBRARY=$tmp/none $M validate $D >'$tmp/v2' 2>&1; test \$? -eq \$a && cmp -s '$tmp/v1' '$tmp/v2'"

finish
