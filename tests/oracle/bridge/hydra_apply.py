#!/usr/bin/env python3
"""hydra_apply.py YAML WORD... — each override word applied alone, as
Megatron-Bridge 0.6.2's parse_hydra_overrides applies it
(megatron/bridge/training/utils/omegaconf_utils.py: struct mode, Hydra's
OverridesParser, ConfigLoaderImpl._apply_overrides_to_config), to the
OmegaConf of a ConfigContainer dump (tests/bridge/0.6.2/*.yaml): OK with the
key's value after it, or ERROR with Hydra's exception.  The verdicts behind
tests/cli/hydra.sh.  Run with the Bridge venv's Python (hydra-core,
omegaconf); Bridge itself is not imported (its import needs
transformer_engine), the three lines of parse_hydra_overrides are repeated
here.  Not part of the build."""
import sys

from hydra._internal.config_loader_impl import ConfigLoaderImpl
from hydra.core.override_parser.overrides_parser import OverridesParser
from omegaconf import OmegaConf


def parse_hydra_overrides(cfg, overrides):
    OmegaConf.set_struct(cfg, True)
    parsed = OverridesParser.create().parse_overrides(overrides=overrides)
    ConfigLoaderImpl._apply_overrides_to_config(overrides=parsed, cfg=cfg)
    return cfg


def main():
    path = sys.argv[1]
    for w in sys.argv[2:]:
        cfg = OmegaConf.load(path)
        try:
            parse_hydra_overrides(cfg, [w])
        except Exception as e:  # noqa: BLE001 -- the exception is the verdict
            print("ERROR", w, type(e).__name__, str(e).replace("\n", " ")[:200])
            continue
        key = w.lstrip("+~").split("=")[0].split("@")[0]
        try:
            v = OmegaConf.select(cfg, key, throw_on_missing=False)
        except Exception:  # noqa: BLE001
            v = "?"
        print("OK   ", w, "->", repr(v)[:80])


if __name__ == "__main__":
    main()
