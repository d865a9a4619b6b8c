"""Tests of the mcinit package against the installed wheel (or $MCINIT_LIBRARY).

Every expectation below comes from libmcinit's own results: the codes and
messages are the library's, read from its JSON, not from printed text.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import mcinit

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "llama3-8b.json"


@pytest.fixture(scope="module")
def good() -> dict:
    """The example as a plain dict: no ``_target_``, so an unknown key is an
    error (with Bridge's ConfigContainer named, it is a warning, as Bridge
    only logs it)."""
    with open(EXAMPLE, encoding="utf-8") as f:
        d = json.load(f)
    del d["_target_"]
    return d


def test_version_is_the_library_version():
    assert mcinit.library_version() == mcinit.__version__


def test_dict_valid(good):
    r = mcinit.validate(good, world_size=8)
    assert r.ok and bool(r)
    assert r.errors == ()
    assert r.derived["world_size"] == 8
    # the keyword the caller gave, not a command-line option they never saw
    assert r.derived["world_size_source"] == "world_size"
    assert r.derived["data_parallel_size"] == 4  # TP 2 of 8 ranks
    assert r.raise_for_errors() is r


def test_path_and_text_agree(good):
    by_path = mcinit.validate(EXAMPLE, world_size=8)
    by_text = mcinit.validate(json.dumps(good, indent=1), world_size=8)
    assert by_path.ok and by_text.ok
    assert by_path.derived == by_text.derived


def test_yaml_text(good):
    text = "model:\n  tensor_model_parallel_size: 3\n"
    r = mcinit.validate([EXAMPLE, text], world_size=8)
    assert not r.ok
    mc010 = [d for d in r.errors if d.code == "MC010"]
    assert mc010 and "not divisible" in mc010[0].message
    assert "model.tensor_model_parallel_size" in mc010[0].keys


def test_unknown_key_is_an_error_with_its_place(good):
    bad = copy.deepcopy(good)
    bad["model"]["hidden_sizee"] = 4096
    r = mcinit.validate(bad, world_size=8)
    assert not r.ok
    (d,) = [d for d in r.errors if d.code == "MC003"]
    assert "unknown key 'hidden_sizee'" in d.message
    assert d.hint and "hidden_size" in d.hint
    assert d.file == "<dict>" and d.line and d.column
    with pytest.raises(mcinit.ConfigError) as ei:
        r.raise_for_errors()
    assert ei.value.errors == r.errors
    assert "MC003" in str(ei.value) and "hidden_sizee" in str(ei.value)
    assert isinstance(ei.value, ValueError)


def test_unknown_key_under_bridge_is_a_warning_and_werror(good):
    bad = copy.deepcopy(good)
    bad["_target_"] = "megatron.bridge.training.config.ConfigContainer"
    bad["model"]["hidden_sizee"] = 4096
    r = mcinit.validate(bad, world_size=8)
    assert r.ok and [d.code for d in r.warnings] == ["MC003"]
    strict = mcinit.validate(bad, world_size=8, werror=True)
    assert not strict.ok
    with pytest.raises(mcinit.ConfigError, match="hidden_sizee"):
        strict.raise_for_errors()


def test_every_error_in_one_result(good):
    bad = copy.deepcopy(good)
    bad["model"]["tensor_model_parallel_size"] = 3
    bad["model"]["hidden_sizee"] = 1
    codes = {d.code for d in mcinit.validate(bad, world_size=8).errors}
    assert {"MC003", "MC010"} <= codes


def test_missing_file():
    with pytest.raises(mcinit.NoInputError) as ei:
        mcinit.validate("/nonexistent/job.yaml")
    assert isinstance(ei.value, FileNotFoundError)
    assert ei.value.code == "noinput"
    assert ei.value.source == "/nonexistent/job.yaml"
    assert "No such file" in str(ei.value)


@pytest.mark.parametrize("config", [42, 3.5, None, object()])
def test_not_a_config(config):
    with pytest.raises(TypeError, match="config must be a path, a dict"):
        mcinit.validate(config)


def test_top_level_not_a_mapping():
    r = mcinit.validate("[1, 2, 3]\n")
    (d,) = [d for d in r.errors if d.code == "MC004"]
    assert d.location == "<string>:1:1"
    assert "expected a JSON object" in d.message
    with pytest.raises(TypeError, match="got int"):
        mcinit.validate([1, 2, 3])


def test_unparseable_text():
    with pytest.raises(mcinit.ParseError) as ei:
        mcinit.validate("{\"model\": \n")
    assert ei.value.code == "parse" and ei.value.source == "<string>"


def test_to_dict_and_to_yaml(good):
    class Container:
        def to_dict(self):
            return good

    class YamlOnly:
        def to_yaml(self):
            return "model:\n  tensor_model_parallel_size: 3\n"

    assert mcinit.validate(Container(), world_size=8).ok
    r = mcinit.validate(YamlOnly(), world_size=8)
    assert any(d.code == "MC010" and d.file == "<yaml>" for d in r.errors)


def test_overrides_and_versions(good):
    r = mcinit.validate(good, world_size=8, overrides={"model.tensor_model_parallel_size": 8})
    assert r.ok and r.derived["data_parallel_size"] == 1
    r = mcinit.validate(good, world_size=8, overrides=["model.tensor_model_parallel_size=3"])
    assert any(d.code == "MC010" for d in r.errors)
    with pytest.raises(mcinit.UsageError):
        mcinit.validate(good, world_size=8, megatron_version="r9.99")


def test_memory_is_the_command_s(good, tmp_path):
    r = mcinit.validate(good, world_size=8, memory_model="megatron")
    m = r.derived["memory"]
    assert m["model"] == "megatron"
    assert m["total_bytes"] == m["weights_and_optimizer_bytes"] + m["activation_bytes"]
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(good), encoding="utf-8")
    out = subprocess.run(
        ["mcinit", "validate", str(plain), "--world-size", "8", "--memory-model", "megatron",
         "--format", "json"],
        capture_output=True, text=True, check=False,
    ).stdout
    # the command writes reals with 15 significant digits, the JSON call 17
    assert json.loads(out)["derived"]["memory"]["total_bytes"] == float("%.15g" % m["total_bytes"])
    small = mcinit.validate(good, world_size=8, gpu_memory=1)
    assert any(d.code == "MC063" and d.severity == "error" for d in small.errors)
    with pytest.raises(mcinit.UsageError, match="memory"):
        mcinit.validate(good, world_size=8, memory_model="guess")


def test_memory_mcinit_gpu_by_name(good):
    """mcinit's own peak, judged against a GPU given by name, as
    --gpu-memory and launch.gpu take it."""
    big = mcinit.validate(good, world_size=8, memory_model="mcinit", gpu_memory="H200")
    peak = big.derived["memory"]["peak"]["ranks"]
    assert peak and all(0 < k["low"] <= k["high"] for k in peak)
    assert not any(d.code == "MC063" for d in big.diagnostics)
    small = mcinit.validate(good, world_size=8, memory_model="mcinit", gpu_memory="L40S")
    as_gib = mcinit.validate(good, world_size=8, memory_model="mcinit", gpu_memory=48)
    assert [d.code for d in small.diagnostics if d.code == "MC063"] == ["MC063"]
    assert [str(d) for d in small.diagnostics] == [str(d) for d in as_gib.diagnostics]
    with pytest.raises(mcinit.UsageError, match="H1000"):
        mcinit.validate(good, world_size=8, memory_model="mcinit", gpu_memory="H1000")


def test_bad_world_size(good):
    with pytest.raises(TypeError):
        mcinit.validate(good, world_size="8")
    with pytest.raises(mcinit.UsageError, match="world_size"):
        mcinit.validate(good, world_size=0)


def test_topology(good):
    t = mcinit.topology(good, world_size=8)
    assert t.ok and t.order == "tp-cp-ep-dp-pp"
    assert t.sizes["tp"] == 2 and t.sizes["dp"] == 4
    assert t.groups["tp"] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert len(t.ranks) == 8 and t.ranks[3]["tp"] == 1
    one = mcinit.topology(good, world_size=8, rank=3)
    assert one.ranks == (t.ranks[3],)
    with pytest.raises(mcinit.UsageError, match="outside the world"):
        mcinit.topology(good, world_size=8, rank=8)


def test_topology_of_invalid_job(good):
    t = mcinit.topology(good, world_size=7)
    assert not t.ok and t.groups == {} and t.errors


def test_schema_and_explain():
    s = mcinit.schema()
    assert "model" in s["properties"]
    text = mcinit.explain("MC010")
    assert text.startswith("MC010")
    with pytest.raises(ValueError, match="MC999"):
        mcinit.explain("MC999")


def test_eight_threads_same_results(good):
    bad = copy.deepcopy(good)
    bad["model"]["hidden_sizee"] = 1
    inputs = [good, bad] * 4
    want = [mcinit.validate(c, world_size=8) for c in inputs]
    got = [None] * len(inputs)
    barrier = threading.Barrier(len(inputs))

    def run(i):
        barrier.wait()
        for _ in range(5):
            r = mcinit.validate(inputs[i], world_size=8)
            if got[i] is None:
                got[i] = r
            assert r == got[i]

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == want
    assert [r.ok for r in got] == [True, False] * 4


def test_command_on_path():
    out = subprocess.run(
        [sys.executable, "-m", "mcinit._cli", "--version"],
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    ).stdout
    assert mcinit.__version__ in out
    p = subprocess.run(
        [sys.executable, "-m", "mcinit._cli", "validate", str(EXAMPLE), "--world-size", "7"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert p.returncode == 1 and "error[MC010]" in p.stderr
