"""oracle.py FILE.yaml — what Megatron-Bridge's loader makes of FILE:
OmegaConf.load, then to_container(resolve=True), as JSON on stdout; exit 1
when OmegaConf refuses the file.  Used by oracle.sh; needs omegaconf."""
import json
import math
import sys

from omegaconf import OmegaConf

try:
    cfg = OmegaConf.load(sys.argv[1])
    data = OmegaConf.to_container(cfg, resolve=True)
except Exception as e:  # noqa: BLE001 - any refusal is the verdict
    print(type(e).__name__, str(e).splitlines()[0], file=sys.stderr)
    sys.exit(1)


def plain(v):
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return v


json.dump(plain(data), sys.stdout, sort_keys=True)
print()
