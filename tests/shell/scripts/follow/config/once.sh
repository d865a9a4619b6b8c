# Sources itself until DEPTH reaches 3 (bash); mcinit does not re-enter it.
DEPTH=$((${DEPTH:-0} + 1))
LAYERS=12
if [ "$DEPTH" -lt 3 ]; then
	. ./config/once.sh
fi
