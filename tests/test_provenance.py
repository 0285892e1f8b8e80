"""Provenance: one header for every result file, no machine path in results/, and every
committed rendering remade byte for byte from its committed record."""

from __future__ import annotations

import datetime
import gzip
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import spiel_game

from conftest import load
from solver import provenance
from solver.reports import files as report_files
from solver.reports import records

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "results"
RECORD_SUFFIXES = (".json", ".json.gz", ".npz")
RENDERING_SUFFIXES = (".csv", ".md", ".png")
# A path from the root (/home/..., /tmp/x) or a drive (C:\): a word that starts with a
# slash and goes on to another one; "tokens / round" and "a/b" are not.
ABSOLUTE_PATH = re.compile(r"(?:^|[\s\"'=(\[,:])(?:/[\w.~+-]+/|[A-Za-z]:\\)")


def _files() -> list[Path]:
    return sorted(p for p in RESULTS.iterdir() if p.is_file() and not p.name.startswith("."))


def _stem(path: Path) -> str:
    return path.name[:-len(next(s for s in (*RECORD_SUFFIXES, *RENDERING_SUFFIXES)
                                if path.name.endswith(s)))]


def _record(path: Path) -> dict:
    if path.suffix == ".npz":
        with np.load(path, allow_pickle=False) as data:
            return json.loads(str(data["header"]))
    return provenance.read_json(path)


def _assert_header(record: dict, where: str) -> None:
    missing = [field for field in provenance.HEADER_FIELDS if field not in record]
    assert not missing, f"{where}: no {missing}"
    name = record["game"]["name"]
    assert name in spiel_game.REGISTERED, where
    if name in spiel_game.GAMES:  # the Love Letter games: deck and utility always named
        assert {"deck", "players", "utility"} <= set(record["game"]["parameters"])
        assert ("agenda" in record["game"]["parameters"]) == (
            spiel_game.ruleset(name).has_agendas), where
    else:
        assert "players" in record["game"]["parameters"], where
    program = record["command"].split()[:2]
    # a jabba command, or a measurement script of benchmarks/ (the abstraction study)
    assert record["code_version"] and (program[0] == "jabba" or (
        program[0] == "python" and (REPO / program[1]).is_file()
        and program[1].startswith("benchmarks/"))), where
    assert record["seconds"] >= 0 and isinstance(record["cores"], int), where
    assert datetime.datetime.fromisoformat(record["created"]).tzinfo is not None, where


def test_header_names_the_game_and_no_machine_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    monkeypatch.setattr(sys, "argv", ["/opt/venv/bin/jabba", "solve", "--out",
                                      str(tmp_path / "out" / "r.json.gz"),
                                      "--checkpoint=/elsewhere/c.npz", "--policies",
                                      "uniform,/elsewhere/p.npz", "--deck", "tiny"])
    header = provenance.header(load(deck="tiny"), seconds=1.234, algorithm="cfr")
    assert list(header)[:len(provenance.HEADER_FIELDS)] == list(provenance.HEADER_FIELDS)
    assert header["command"] == ("jabba solve --out out/r.json.gz --checkpoint=c.npz "
                                 "--policies uniform,p.npz --deck tiny")
    assert header["game"] == {"name": "jabbas_palace", "parameters": {
        "agenda": "exalted_one", "deck": "tiny", "players": 2, "utility": "margin"}}
    assert header["seconds"] == 1.23 and header["algorithm"] == "cfr"
    _assert_header(header, "header")
    given = provenance.header({"deck": "full", "players": [2, 3]}, seconds=0,
                              command="jabba evaluate --out-dir '/a b/results'")
    assert given["command"] == "jabba evaluate --out-dir results"
    assert provenance.game_parameters(given) == {"deck": "full", "players": [2, 3]}
    assert provenance.game_parameters({"game": {"deck": "full"}}) == {"deck": "full"}
    assert provenance.portable_path("uniform") == "uniform"
    assert provenance.portable_path(RESULTS / "x.npz", RESULTS) == "x.npz"


def test_the_path_pattern_finds_machine_paths_only():
    for text in ('"spec": "/work/main/results/p.npz"', "made in /tmp/x/y", "C:\\Users\\me",
                 "--out=/home/me/a.json"):
        assert ABSOLUTE_PATH.search(text), text
    for text in ("(tokens / round)", "results/policy.npz", "hand jabba+han; deck 3",
                 "evaluation_lbr.png", "1/2"):
        assert not ABSOLUTE_PATH.search(text), text


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name)
def test_every_results_file_has_provenance_and_no_machine_path(path):
    """A record (JSON, gzipped JSON, policy .npz) carries the header; a rendering (CSV,
    Markdown, PNG) sits next to the record its name extends (evaluation_lbr.csv:
    evaluation_lbr.json; evaluation_crosstable_2p.png: evaluation_crosstable.json;
    policy_..._identity.csv: policy_..._identity.npz); the evaluation report next to the
    records of all its parts."""
    if path.name.endswith(RECORD_SUFFIXES):
        record = _record(path)
        _assert_header(record, path.name)
        text = json.dumps(record)
    else:
        assert path.name.endswith(RENDERING_SUFFIXES), f"{path.name}: unknown kind of file"
        stem = _stem(path)
        records = {_stem(p): p for p in _files() if p.name.endswith(RECORD_SUFFIXES)}
        if stem.startswith(report_files.EVALUATION) and stem.endswith("_report"):
            prefix = stem[:-len("_report")]  # evaluation, evaluation_love_letter
            sources = [f"{prefix}_{part}" for part in ("crosstable", "lbr", "validation")
                       if (RESULTS / f"{prefix}_{part}.json").exists()]
        else:
            sources = [max((s for s in records if stem == s or stem.startswith(s + "_")),
                           key=len, default=None)]
        assert None not in sources and set(sources) <= set(records), \
            f"{path.name}: no record it is rendered from"
        text = "" if path.suffix == ".png" else path.read_text()
    if path.name.endswith(".gz"):
        text += gzip.decompress(path.read_bytes()).decode()
    found = ABSOLUTE_PATH.search(text)
    assert found is None, f"{path.name}: machine path {text[found.start():found.end() + 40]!r}"


def _committed_renderings() -> dict[str, bytes]:
    out = {}
    for game in ("jabbas_palace", "love_letter"):
        prefix = report_files.evaluation_prefix(game)
        for part in ("crosstable", "lbr", "validation"):
            path = RESULTS / f"{prefix}_{part}.json"
            if path.exists() or game == "jabbas_palace":
                out.update(report_files.evaluation_part_files(provenance.read_json(path),
                                                              figures=False))
        out.update(report_files.evaluation_report_files(RESULTS, prefix))
    for path in sorted(RESULTS.glob("exploitability_*.json")):
        out.update(report_files.exploitability_files(provenance.read_json(path),
                                                     figures=False))
    for path in sorted(RESULTS.glob("policy_*.npz")):
        out.update(report_files.training_curve_files(_record(path), path.stem,
                                                     figures=False))
    for path in sorted([*RESULTS.glob("search_*.json"), *RESULTS.glob("model_fit_*.json"),
                        *RESULTS.glob("match_values_*.json"),
                        *RESULTS.glob("exploit_*.json"),
                        *RESULTS.glob("match_aware*.json"),
                        *RESULTS.glob("belief_accuracy.json"),
                        *RESULTS.glob("advice_by_players.json"),
                        *RESULTS.glob("han_solo_*.json"),
                        *RESULTS.glob("sarlaccs_pit_*.json")]):
        out.update(report_files.table_files(provenance.read_json(path), path.stem))
    loss = RESULTS / "abstraction_loss.json"
    if loss.exists():
        out.update(_benchmark("abstraction_study").loss_table_files(
            provenance.read_json(loss), loss.stem))
    for curve in sorted(RESULTS.glob("blueprint_curve*.json")):  # 2 players, and <n>p
        out.update(_benchmark("blueprint_curve").curve_files(
            provenance.read_json(curve), curve.stem, figures=False))
    return out


def _benchmark(name: str):
    """A script of benchmarks/ as a module (they import their _common helper by path)."""
    import importlib

    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(REPO / "benchmarks"))


def test_committed_tables_are_remade_byte_for_byte_from_their_records():
    remade = _committed_renderings()
    committed = {p.name for p in _files() if p.suffix in (".csv", ".md")}
    assert set(remade) == committed
    for name, data in remade.items():
        assert (RESULTS / name).read_bytes() == data, f"{name} differs from its record"


def test_shipped_policy_files_load_with_their_checksums():
    from solver.policies.table import load_policy

    import pyspiel

    from solver.han_solo import table_policy as han_solo_tables
    from solver.sarlaccs_pit import table_policy as sarlaccs_pit_tables

    loaders = {module.FORMAT: module.load_table
               for module in (han_solo_tables, sarlaccs_pit_tables)}  # by file format
    for path in sorted(RESULTS.glob("policy_*.npz")):
        header = _record(path)
        game = pyspiel.load_game(provenance.game_name(header), {
            k: v for k, v in provenance.game_parameters(header).items() if k != "utility"})
        load = loaders.get(header["format"], load_policy)
        assert len(load(path, game)) == header["keys"]  # checksum checked on load


def test_table_policy_file_gets_the_header_and_keeps_its_refusals(tmp_path, monkeypatch):
    from solver.mccfr.solver import MCCFRSolver
    from solver.policies.table import export_policy, load_policy

    monkeypatch.setattr(sys, "argv", ["jabba", "solve", "--algorithm", "mccfr"])
    game = load(deck="tiny")
    solver = MCCFRSolver(game, seed=2, threads=1)
    solver.run(200)
    path = tmp_path / "p.npz"
    header = export_policy(solver, path)
    _assert_header(header, "export_policy")
    assert header["command"] == "jabba solve --algorithm mccfr"
    assert provenance.game_parameters(load_policy(path, game).header) == dict(
        game.get_parameters())
    with pytest.raises(ValueError, match="policy is for game"):
        load_policy(path, load(deck="tiny", agenda="rescue_mission"))


def test_tournament_and_lbr_records_name_policy_files_without_a_machine(tmp_path,
                                                                         monkeypatch):
    from typer.testing import CliRunner

    from cli.main import app

    monkeypatch.chdir(tmp_path)
    policy = str(RESULTS / "policy_small_exalted_one_2p_identity.npz")  # absolute
    runs = {"t": ["tournament", "--deck", "small", "--policies", f"{policy},uniform",
                  "--deals", "40", "--matches", "0", "--out", str(tmp_path / "t")],
            "l": ["lbr", "--deck", "small", "--policy", policy, "--deals", "4",
                  "--rollouts", "2", "--out", str(tmp_path / "l.json")]}
    for name, args in runs.items():
        monkeypatch.setattr(sys, "argv", ["jabba", *args])
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        record = provenance.read_json(tmp_path / f"{name}.json")
        _assert_header(record, name)
        text = json.dumps(record) + "".join(p.read_text() for p in tmp_path.glob(f"{name}.*"))
        assert "policy_small_exalted_one_2p_identity.npz" in text
        assert not ABSOLUTE_PATH.search(text), text[:300]
    assert provenance.read_json(tmp_path / "t.json")["policies"] == {
        "policy_small_exalted_one_2p_identity": "policy_small_exalted_one_2p_identity.npz",
        "uniform": "uniform"}


def test_a_table_made_in_parts_keeps_each_rows_run(tmp_path):
    path = tmp_path / "table.json"
    provenance.write_json(path, {"command": "jabba first", "seconds": 5.0,
                                 "rows": [{"id": "a", "v": 1}, {"id": "b", "v": 2}]})
    row_id = lambda r: r["id"]  # noqa: E731
    second = {"command": "jabba second", "started": "t2"}
    rows, parts = records.merged_rows(path, [{"id": "b", "v": 3, "run": "t2"}],
                                      row_id, second)
    assert rows == [{"id": "a", "v": 1}, {"id": "b", "v": 3, "run": "t2"}]
    assert [p["command"] for p in parts] == ["jabba first", "jabba second"]
    provenance.write_json(path, {"rows": rows, "parts": parts})
    again, parts = records.merged_rows(  # the same run writing again
        path, [{"id": "b", "v": 4, "run": "t2"}, {"id": "c", "v": 5, "run": "t2"}],
        row_id, {**second, "seconds": 9.0})
    assert [r["v"] for r in again] == [1, 4, 5] and len(parts) == 2
    assert parts[-1]["seconds"] == 9.0
    provenance.write_json(path, {"rows": again, "parts": parts})
    third = {"command": "jabba third", "started": "t3"}
    rows, parts = records.merged_rows(path, [{"id": "a", "v": 6, "run": "t3"}],
                                      row_id, third)
    assert {r["id"]: r["v"] for r in rows} == {"b": 4, "c": 5, "a": 6}
    assert [p["command"] for p in parts] == ["jabba second", "jabba third"]  # first: no rows


def _code_versions(value) -> list[str]:
    """Every code_version in a record, its parts' and rows' included."""
    if isinstance(value, dict):
        return [v for k, item in value.items()
                for v in ([item] if k.endswith("code_version") else _code_versions(item))]
    if isinstance(value, list):
        return [v for item in value for v in _code_versions(item)]
    return []


def test_no_committed_record_was_made_from_uncommitted_code():
    """Every record in results/ names a commit that remakes it (no '+dirty')."""
    dirty = {path.name: versions for path in _files() if path.name.endswith(RECORD_SUFFIXES)
             if (versions := [v for v in _code_versions(_record(path)) if "dirty" in v])}
    assert not dirty, f"made from uncommitted code: {dirty}"


def test_dirty_code_is_refused_in_results_unless_allowed(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from cli.main import app

    monkeypatch.setattr(provenance, "_CODE_AT_START", ("0123456789ab+dirty", "d" * 64))
    monkeypatch.setattr(provenance, "_allow_dirty", False)
    with pytest.raises(provenance.DirtyCodeError, match="uncommitted changes.*--allow-dirty"):
        provenance.check_results_write(RESULTS / "exploitability_tiny_2p.json")
    provenance.check_results_write(tmp_path / "x.json")  # elsewhere: written
    provenance.check_results_write(RESULTS / "checkpoints" / "x.npz")  # ignored scratch
    runner = CliRunner()
    for args in (["exploit", "--deck", "tiny", "--ship"],
                 ["solve", "--deck", "tiny", "--out", str(RESULTS / "x.json.gz")],
                 ["evaluate", "--out-dir", str(RESULTS)]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and "uncommitted changes" in result.output, (args,
                                                                                result.output)
    result = runner.invoke(app, ["--allow-dirty", "solve", "--deck", "tiny", "--iterations",
                                 "5", "--no-lp", "--out", str(tmp_path / "s.json.gz")])
    assert result.exit_code == 0, result.output
    assert provenance._allow_dirty
    record = provenance.read_json(tmp_path / "s.json.gz")
    assert record["code_version"] == "0123456789ab+dirty"
    assert record["code_diff_sha256"] == "d" * 64
    provenance.check_results_write(RESULTS / "x.json")  # allowed now: no refusal


def test_the_code_version_is_read_once_at_start(monkeypatch):
    """A commit made during a long run does not retag its record."""
    started = provenance.code_version()
    monkeypatch.setattr(provenance, "_read_code_version", lambda: pytest.fail("read again"))
    assert provenance.header({}, seconds=1)["code_version"] == started


def test_a_dirty_record_is_re_attested_part_by_part():
    record = {"code_version": "aaa+dirty", "rows": [1],
              "parts": [{"code_version": "bbb"}, {"code_version": "ccc+dirty"}],
              "curve": [{"training_code_version": "aaa+dirty"}]}
    out = provenance.attested(record, {"aaa+dirty": ("ddd", "landed as ddd"),
                                       "ccc+dirty": ("eee", "landed as eee")})
    assert out["code_version"] == "ddd" and out["attestation"]["recorded"] == "aaa+dirty"
    assert out["parts"][0] == {"code_version": "bbb"}
    assert out["parts"][1]["code_version"] == "eee"
    assert out["parts"][1]["attestation"]["basis"] == "landed as eee"
    assert out["curve"][0]["training_code_version"] == "ddd"
    assert out["curve"][0]["training_attestation"]["recorded"] == "aaa+dirty"
    assert not [v for v in _code_versions(out) if "dirty" in v] and out["rows"] == [1]


def test_an_untracked_folder_of_code_makes_the_checkout_dirty(tmp_path, monkeypatch):
    """A new package folder not yet added is uncommitted code: '+dirty' with its files in
    the hash (it read as 'unknown' when git listed the folder as one entry)."""
    import subprocess

    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "pyproject.toml").write_text("[project]\n")
    git("add", "pyproject.toml")
    git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "x")
    monkeypatch.setattr(provenance, "_ROOT", tmp_path)
    clean, none = provenance._read_code_version()
    assert none is None and "+" not in clean and clean != "unknown"
    (tmp_path / "solver" / "new").mkdir(parents=True)
    (tmp_path / "solver" / "new" / "m.py").write_text("x = 1\n")
    dirty, digest = provenance._read_code_version()
    assert dirty == clean + "+dirty" and digest
    (tmp_path / "solver" / "new" / "m.py").write_text("x = 2\n")
    assert provenance._read_code_version()[1] != digest
