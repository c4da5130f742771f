"""Bad command-line input gets a one-line error, never a traceback (through click's CliRunner):
log files in missing folders, missing or non-.npz training data, a missing torch, a missing
selfplay folder or weights file, a bare port for ``gbot serve --listen``, and tournament
players or backends that cannot work, found before the run folder is created."""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner, Result

from gbot.cli import main


def invoke(*args: str, **kw: Any) -> Result:
    return CliRunner().invoke(main, list(args), **kw)


def one_line_error(res: Result, code: int, *words: str) -> str:
    """The run failed with exit ``code`` and a single ``Error:`` line naming ``words``."""
    assert res.exit_code == code, res.output
    assert isinstance(res.exception, SystemExit), repr(res.exception)
    assert "Traceback" not in res.output
    errors = [ln for ln in res.output.splitlines() if ln.startswith("Error:")]
    assert len(errors) == 1, res.output
    for w in words:
        assert w in errors[0], res.output
    return errors[0]


# --------------------------------------------------------------------------- serve


def test_serve_log_in_a_missing_folder() -> None:
    one_line_error(invoke("serve", "--log", "/nonexistent/dir/x.log"), 2,
                   "/nonexistent/dir/x.log", "no folder")


def test_serve_bare_port_listens_on_loopback_tcp(monkeypatch: pytest.MonkeyPatch) -> None:
    import gbot.adapters.gnubg_server as server

    seen: list[object] = []

    def fake_serve(address: object, engine: object, **kw: object) -> int:
        seen.append(address)
        return 0

    monkeypatch.setattr(server, "serve", fake_serve)
    monkeypatch.setattr("gbot.cli.Engine", lambda **kw: object())
    res = invoke("serve", "--listen", "31559")
    assert res.exit_code == 0, res.output
    assert seen == [server.Address(host="127.0.0.1", port=31559)]
    assert not Path("31559").exists()
    one_line_error(invoke("serve", "--listen", "70000"), 2, "70000")
    engines: list[dict[str, object]] = []
    monkeypatch.setattr("gbot.cli.Engine", lambda **kw: engines.append(kw) or object())
    assert invoke("serve", "--listen", "31559", "--cube-ply", "0").exit_code == 0
    assert invoke("serve", "--listen", "31559").exit_code == 0
    assert [e["cube_ply"] for e in engines] == [0, None]    # None: the engine's default
    one_line_error(invoke("serve", "--cube-ply", "9"), 2, "9")
    assert "a bare PORT means 127.0.0.1:PORT" in " ".join(invoke("serve", "--help").output.split())


# --------------------------------------------------------------------------- fibs


def test_fibs_log_in_a_missing_folder() -> None:
    one_line_error(invoke("fibs", "--user", "gbot", "--log", "/nonexistent/x.log",
                          env={"GBOT_FIBS_PASSWORD": "pw"}), 2, "/nonexistent/x.log")


# --------------------------------------------------------------------------- train


def test_train_supervised_missing_and_non_npz_data(tmp_path: Path) -> None:
    work = tmp_path / "w"
    one_line_error(invoke("train", "supervised", "--data", "/nonexistent.npz",
                          "--workdir", str(work)), 1, "--data", "/nonexistent.npz",
                   "no such file")
    one_line_error(invoke("train", "supervised", "--data", "/etc/passwd",
                          "--workdir", str(work)), 1, "/etc/passwd", "not an .npz")
    assert not work.exists()


def test_train_supervised_without_torch(monkeypatch: pytest.MonkeyPatch,
                                        tmp_path: Path) -> None:
    data = tmp_path / "d.npz"
    np.savez(data, boards=np.zeros((2, 26), np.int8), probs=np.zeros((2, 5), np.float32))
    monkeypatch.setitem(sys.modules, "torch", None)       # as if torch were not installed
    one_line_error(invoke("train", "supervised", "--data", str(data), "--val", str(data),
                          "--workdir", str(tmp_path / "w")), 1, "torch", "gbot[train]")
    assert not (tmp_path / "w").exists()


def test_train_supervised_only_needs_init(tmp_path: Path) -> None:
    data = tmp_path / "d.npz"
    np.savez(data, boards=np.zeros((2, 26), np.int8), probs=np.zeros((2, 5), np.float32))
    one_line_error(invoke("train", "supervised", "--data", str(data), "--val", str(data),
                          "--only", "race", "--workdir", str(tmp_path / "w")), 2, "--init")
    assert not (tmp_path / "w").exists()


def test_train_supervised_init_of_another_width(tmp_path: Path) -> None:
    from gbot.eval.net import Networks
    data = tmp_path / "d.npz"
    np.savez(data, boards=np.zeros((2, 26), np.int8), probs=np.zeros((2, 5), np.float32))
    width = Networks.default().hidden
    init = str(Path(__file__).resolve().parents[1] / "gbot" / "weights" / "nets.npz")
    one_line_error(invoke("train", "supervised", "--data", str(data), "--val", str(data),
                          "--init", init, "--finetune", "--hidden", str(width + 8),
                          "--workdir", str(tmp_path / "w")), 2, f"--init has {width}",
                   "gbot train widen")
    assert not (tmp_path / "w").exists()


def test_train_supervised_value_weights_per_set(tmp_path: Path) -> None:
    data = tmp_path / "d.npz"
    np.savez(data, boards=np.zeros((2, 26), np.int8), probs=np.zeros((2, 5), np.float32))
    base = ("train", "supervised", "--data", str(data), "--data", str(data), "--val", str(data),
            "--workdir", str(tmp_path / "w"))
    one_line_error(invoke(*base, "--value-weight", "0"), 2, "--value-weight", "(2)")
    one_line_error(invoke(*base, "--weight", "1"), 2, "--weight", "once per --data set")
    one_line_error(invoke(*base, "--value-weight", "1", "--value-weight", "0"), 2,
                   "--rank-weight is 0")
    one_line_error(invoke(*base, "--value-weight", "-1", "--value-weight", "1"), 2, "-1")
    assert not (tmp_path / "w").exists()


def test_train_label_missing_source(tmp_path: Path) -> None:
    out = tmp_path / "lab"
    one_line_error(invoke("train", "label", "--src", "/nonexistent", "--out", str(out)), 1,
                   "--src", "/nonexistent")
    assert not out.exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    one_line_error(invoke("train", "label", "--src", str(empty), "--out", str(out)), 1,
                   "holds no selfplay chunks")


def test_train_selfplay_bad_weights(tmp_path: Path) -> None:
    one_line_error(invoke("train", "selfplay", "--weights", "/nonexistent.npz",
                          "--out", str(tmp_path / "s")), 2, "/nonexistent.npz")
    junk = tmp_path / "junk.npz"
    junk.write_text("not weights\n")
    one_line_error(invoke("train", "selfplay", "--policy", "gbot", "--weights", str(junk),
                          "--out", str(tmp_path / "s")), 1, "cannot read weights file")
    assert not (tmp_path / "s").exists()


# --------------------------------------------------------------------------- tournament


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = int(s.getsockname()[1])
    s.close()
    return port


def test_tournament_bad_weights_found_before_the_folder(tmp_path: Path) -> None:
    out = tmp_path / "t"
    line = one_line_error(invoke("tournament", f"gbot,weights={tmp_path / 'none.npz'}",
                                 "random", "-n", "2", "--out", str(out)), 2, "none.npz")
    assert "resume" not in line
    assert not out.exists()


def test_tournament_unreachable_external_player(tmp_path: Path) -> None:
    out = tmp_path / "t"
    port = _free_port()
    res = invoke("tournament", "random", f"127.0.0.1:{port}", "-n", "2", "--out", str(out))
    line = one_line_error(res, 2, f"127.0.0.1:{port}", "cannot be reached")
    assert "resume" not in line and "done" not in res.output
    assert not out.exists()


def test_tournament_ray_backend_without_ray(monkeypatch: pytest.MonkeyPatch,
                                            tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    out = tmp_path / "t"
    one_line_error(invoke("tournament", "random", "random", "-n", "2", "--backend", "ray",
                          "--out", str(out)), 2, "gbot[ray]")
    assert not out.exists()


def test_tournament_failure_before_any_game_does_not_offer_resume(tmp_path: Path) -> None:
    """The player connects but fails on its first answer: no game finished, so the error
    says so instead of "resume with ...". """
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    port = srv.getsockname()[1]

    def serve() -> None:
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            with conn, contextlib.suppress(OSError):
                f = conn.makefile("rwb")
                for raw in f:
                    f.write(b"roll\n" if b":0:0:0:0:1:" in raw else b"24/1 24/1\n")
                    f.flush()

    threading.Thread(target=serve, daemon=True).start()
    try:
        res = invoke("tournament", "random", f"127.0.0.1:{port},timeout=10", "-n", "2",
                     "--no-cube", "--backend", "serial", "-q", "--out", str(tmp_path / "t"))
        line = one_line_error(res, 1, "no legal play", "no game was finished")
        assert "resume" not in line
    finally:
        srv.close()


def test_tournament_length_beyond_gnubg_is_refused() -> None:
    from click.testing import CliRunner

    from gbot.cli import main
    from gbot.game.match import MAX_MATCH_LENGTH

    res = CliRunner().invoke(main, ["tournament", "gbot", "random", "--length",
                                    str(MAX_MATCH_LENGTH + 1)])
    assert res.exit_code == 2 and "--length" in res.output
