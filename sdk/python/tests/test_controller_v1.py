"""Controllers on protocol version 1: one reconcile per request, errors answered, serving
goes on."""

import json

from support import (OPTIONS, Recorder, controller, initialize, job, pod, request, shutdown,
                     status)


def params(j=None, pods=(), now=1100000):
    return {"job": j or job(), "pods": list(pods), "podGroup": None, "tensorBoard": None,
            "now": "1970-01-01T00:00:01.100000Z", "nowMicros": now, "options": OPTIONS}


def test_the_request_is_version_1_params_and_the_result_goes_back_as_returned():
    j = job()
    j["status"] = status("Running")
    p = params(j, [pod("a", 0, "pod-0", "Running")])
    answer = {"actions": [{"type": "DeletePod", "name": "a-w-0", "reason": "Restart"}],
              "status": {"phase": "Running"}, "requeueAfterMicros": 30000000}
    rec = Recorder(lambda r: answer)
    rc, replies, _ = controller(rec, [initialize(versions=None), request(2, "reconcile", p),
                                      shutdown(3)])
    assert rc == 0
    assert rec.snapshots == [p]
    assert replies[1] == {"jsonrpc": "2.0", "id": 2, "result": answer}


def test_an_exception_names_the_job_and_serving_goes_on(capsys):
    def boom(r):
        if r["nowMicros"] == 1:
            return r["job"]["spec"]["nope"]
        return {"status": {"phase": "Pending"}}

    rc, replies, _ = controller(boom, [initialize(versions=None),
                                       request(2, "reconcile", params(now=1)),
                                       request(3, "reconcile", params(now=2)), shutdown(4)])
    assert rc == 0
    assert replies[1]["id"] == 2
    assert replies[1]["error"] == {"code": -32603, "message": "KeyError: 'nope' (job default/a)"}
    assert replies[2]["result"] == {"status": {"phase": "Pending"}}
    err = capsys.readouterr().err
    assert "Traceback" in err and "KeyError: 'nope'" in err


def test_a_result_without_status_or_not_a_dict_is_an_error():
    answers = iter([{"actions": []}, None, {"status": None}, {"status": {"x": float("nan")}}])
    rc, replies, _ = controller(lambda r: next(answers),
                                [initialize(versions=None)]
                                + [request(i, "reconcile", params()) for i in range(2, 6)])
    msgs = [r["error"]["message"] for r in replies[1:]]
    assert all(r["error"]["code"] == -32603 for r in replies[1:])
    assert msgs[0].startswith("ValueError: the result has no 'status'")
    assert msgs[1].startswith("TypeError: reconcile returned NoneType")
    assert msgs[2].startswith("ValueError: the result has no 'status'")
    assert msgs[3].startswith("ValueError: Out of range float values")
    assert all(m.endswith("(job default/a)") for m in msgs)


def test_an_unserializable_result_is_an_error_naming_the_job():
    _, replies, _ = controller(lambda r: {"status": {"phase": "Pending", "x": {1, 2}}},
                               [initialize(versions=None), request(2, "reconcile", params())])
    assert replies[1]["error"]["code"] == -32603
    assert "not JSON serializable" in replies[1]["error"]["message"]
    assert replies[1]["error"]["message"].endswith("(job default/a)")


def test_params_it_cannot_read():
    _, replies, _ = controller(Recorder(), [initialize(versions=None),
                                            request(2, "reconcile", {"pods": []}),
                                            request(3, "reconcile", [1]),
                                            request(4, "reconcile", params())])
    assert [r.get("error", {}).get("code") for r in replies[1:]] == [-32602, -32602, None]


def test_options_come_with_each_request():
    rec = Recorder()
    other = dict(OPTIONS, restartBackoff=True)
    p = params()
    p["options"] = other
    controller(rec, [initialize(versions=None), request(2, "reconcile", p)])
    assert rec.seen[0]["options"] == other


def test_reply_ids_are_the_requests():
    rec = Recorder()
    _, replies, _ = controller(rec, [initialize(versions=None), request(41, "reconcile", params()),
                                     request(7, "reconcile", params())])
    assert [r["id"] for r in replies] == [1, 41, 7]
    assert json.dumps(replies[1]["id"]) == "41"
