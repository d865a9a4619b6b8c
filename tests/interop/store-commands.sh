#!/bin/sh
# Every command of torch's TCPStore protocol, sent by torch's own client,
# against `mcinit store`, beside torch's own server (store-commands.py):
# one check per command and torch.  Two torches: the newest on the package
# registry ($MCINIT_TORCH_PYTHON: 2.15.0, commands 0-18, BARRIER and
# LIST_KEYS included) and the oldest a supported Megatron release runs
# with ($MCINIT_TORCH_OLD_PYTHON: megatron-core 0.16-0.19 require
# torch>=2.6.0; 2.6.0 has commands 0-13).  Each is skipped, with the
# reason, where its Python has no torch.  For a run of your own:
#   python3 -m venv V && V/bin/pip install torch==2.15.0, then
#   make check TESTS=tests/interop/store-commands.sh MCINIT_TORCH_PYTHON=$PWD/V/bin/python
. "$srcdir/tests/cli/lib.sh"
unset MASTER_ADDR MASTER_PORT MCINIT_STORE_TOKEN MCINIT_LAUNCHED 2>/dev/null || true
TORCH_CPP_LOG_LEVEL=ERROR
TMPDIR=$tmp # whatever torch leaves there goes with this script's
export TORCH_CPP_LOG_LEVEL TMPDIR

for which in new old; do
	if [ $which = new ]; then
		var=MCINIT_TORCH_PYTHON PY=${MCINIT_TORCH_PYTHON:-python3}
	else
		var=MCINIT_TORCH_OLD_PYTHON PY=${MCINIT_TORCH_OLD_PYTHON:-}
	fi
	if [ -z "$PY" ] || ! "$PY" -c 'import torch.distributed' >/dev/null 2>&1; then
		skip "store-commands-$which-torch" "no torch for ${PY:-(unset)} (set $var to a Python with torch)"
		continue
	fi
	out="$tmp/$which.out"
	timeout -k 5 300 "$PY" "$srcdir/tests/interop/store-commands.py" "$MCINIT" >"$out" 2>"$out.err"
	rc=$?
	v=$(sed -n 's/^# torch \([^+]*\).*/\1/p' "$out")
	comment "$out"
	if ! grep -q '^ok \|^FAIL ' "$out"; then
		fail "store-commands-torch-${v:-$which}" "no result (exit $rc)" "$out.err"
		continue
	fi
	while read -r st code name rest; do
		case $st in ok | FAIL) ;; *) continue ;; esac
		check "store-command-torch-$v-$code-${name%:}" test "$st" = ok
	done <"$out"
	check "store-commands-torch-$v-exit" test $rc = 0
done
finish
