"""Framing: one JSON object per line both ways, any length, flushed reply by reply."""

import io
import json

from support import (Recorder, controller, initialize, job, lines, request, shutdown,
                     status)

from t9ksim_sdk import serve_controller


def v1_reconcile(rid, job_obj, now=1100000):
    return request(rid, "reconcile", {
        "job": job_obj, "pods": [], "podGroup": None, "tensorBoard": None,
        "now": "1970-01-01T00:00:01.100000Z", "nowMicros": now, "options": {}})


class Trickle(io.RawIOBase):
    """A stream that gives at most `size` bytes per read, as a pipe may."""

    def __init__(self, data: bytes, size: int) -> None:
        self.data, self.pos, self.size = data, 0, size

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        n = min(self.size, len(b), len(self.data) - self.pos)
        b[:n] = self.data[self.pos:self.pos + n]
        self.pos += n
        return n


def test_a_ten_megabyte_line_both_ways():
    big = "x" * (10 * 1024 * 1024)
    j = job()
    j["metadata"]["annotations"] = {"big": big}
    rec = Recorder(lambda r: {"status": {"phase": "Pending",
                                         "conditions": [{"type": "Initialized", "status": "True",
                                                         "message": r["job"]["metadata"]
                                                         ["annotations"]["big"]}]}})
    rc, replies, _ = controller(rec, [initialize(versions=None), v1_reconcile(2, j), shutdown(3)])
    assert rc == 0
    assert rec.seen[0]["job"]["metadata"]["annotations"]["big"] == big
    assert replies[1]["result"]["status"]["conditions"][0]["message"] == big
    assert [r["id"] for r in replies] == [1, 2, 3]


def test_crlf_and_split_reads_and_a_last_line_without_newline():
    data = lines([initialize(versions=None), v1_reconcile(2, job())]).replace(b"\n", b"\r\n")
    data += json.dumps(shutdown(3)).encode()  # no newline at the end of input
    rec = Recorder()
    stdin = io.BufferedReader(Trickle(data, 7), buffer_size=16)
    rc, replies, _ = controller(rec, [], stdin=stdin)
    assert rc == 0
    assert [r["id"] for r in replies] == [1, 2, 3]
    assert replies[2]["result"] is None
    assert len(rec.seen) == 1


def test_replies_are_compact_utf8_one_per_line_each_flushed():
    j = job()
    j["metadata"]["labels"] = {"team": "研究"}
    rec = Recorder(lambda r: {"status": {"phase": "Pending",
                                         "conditions": [{"type": "Initialized", "status": "True",
                                                         "message": "é 研究 \u2028"}]}})
    rc, replies, out = controller(rec, [initialize(versions=None), v1_reconcile(2, j),
                                        shutdown(3)])
    raw = out.getvalue()
    assert rc == 0
    assert raw.count(b"\n") == 3 and raw.endswith(b"\n")
    assert "é 研究 \u2028".encode() in raw  # UTF-8, not \u escapes
    assert b": " not in raw and b", " not in raw
    # Every reply was flushed before the next was written.
    ends = [i + 1 for i, c in enumerate(raw) if c == ord("\n")]
    assert all(e in out.flushed for e in ends)


def test_not_json_and_not_a_request_are_answered_and_serving_goes_on(capsys):
    rec = Recorder()
    msgs = [initialize(versions=None), b"{not json\n", b"[1,2]\n",
            b'{"jsonrpc":"2.0","id":7,"params":{}}\n', v1_reconcile(2, job()), shutdown(3)]
    rc, replies, _ = controller(rec, msgs)
    assert rc == 0
    assert replies[1]["error"]["code"] == -32700 and replies[1]["id"] is None
    assert replies[2]["error"]["code"] == -32700
    assert replies[3]["error"]["code"] == -32700 and replies[3]["id"] == 7
    assert replies[4]["id"] == 2 and "result" in replies[4]
    assert "not JSON" in capsys.readouterr().err


def test_empty_lines_are_ignored_without_a_reply():
    rc, replies, _ = controller(Recorder(), [initialize(versions=None), b"\n", b"\r\n",
                                             b"   \n", shutdown(3)])
    assert rc == 0
    assert [r["id"] for r in replies] == [1, 3]


def test_end_of_input_without_shutdown_returns_0():
    rc, replies, _ = controller(Recorder(), [initialize(versions=None), v1_reconcile(2, job())])
    assert rc == 0 and len(replies) == 2
    rc, replies, _ = controller(Recorder(), [])
    assert rc == 0 and replies == []


def test_shutdown_answers_null_and_stops_reading():
    rec = Recorder()
    rc, replies, _ = controller(rec, [initialize(versions=None), shutdown(2),
                                      v1_reconcile(3, job())])
    assert rc == 0
    assert replies[-1] == {"jsonrpc": "2.0", "id": 2, "result": None}
    assert rec.seen == []


def test_unknown_method():
    rc, replies, _ = controller(Recorder(), [initialize(versions=None),
                                             request(2, "decide", {}), shutdown(3)])
    assert replies[1]["error"]["code"] == -32601
    assert "decide" in replies[1]["error"]["message"]


def test_a_closed_output_ends_serving():
    class Closed(io.BytesIO):
        def write(self, b):
            raise BrokenPipeError

    stdin = io.BytesIO(lines([initialize(versions=None), v1_reconcile(2, job())]))
    assert serve_controller(Recorder(), stdin=stdin, stdout=Closed()) == 1


def test_status_round_trip_keeps_types():
    """Integers stay integers, floats floats, null null (no NaN allowed out)."""
    st = status("Running")
    rec = Recorder(lambda r: {"status": st, "requeueAfterMicros": 5})
    _, replies, _ = controller(rec, [initialize(versions=None), v1_reconcile(2, job())])
    assert replies[1]["result"] == {"status": st, "requeueAfterMicros": 5}
