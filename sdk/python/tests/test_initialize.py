"""initialize: the version negotiated, the role checked, the name and capabilities answered."""

import pytest
from support import Recorder, controller, initialize, policy, shutdown


@pytest.mark.parametrize("offered, chosen", [
    (None, "1"),           # a version 1 simulator: no protocolVersions
    (("1",), "1"),
    (("1", "2"), "2"),
    (("2", "1"), "2"),
    (("1", "2", "3"), "2"),  # a version the SDK does not know is not chosen
])
def test_version_negotiation(offered, chosen):
    for run, role in ((controller, "controller"), (policy, "elasticPolicy")):
        rc, replies, _ = run(Recorder(), [initialize(role, offered), shutdown(2)])
        assert rc == 0
        assert replies[0]["id"] == 1
        assert replies[0]["result"]["protocolVersion"] == chosen


def test_the_environment_can_keep_a_plugin_on_version_1(monkeypatch):
    monkeypatch.setenv("T9KSIM_SDK_PROTOCOL", "1")
    _, replies, _ = controller(Recorder(), [initialize("controller", ("1", "2"))])
    assert replies[0]["result"]["protocolVersion"] == "1"


def test_name_and_capabilities():
    _, replies, _ = controller(Recorder(), [initialize("controller")], name="mine")
    assert replies[0]["result"] == {"protocolVersion": "2", "name": "mine", "capabilities": {}}
    _, replies, _ = policy(Recorder(), [initialize("elasticPolicy")], name="p")
    assert replies[0]["result"]["capabilities"] == {"decide": True}
    _, replies, _ = policy(Recorder(), [initialize("elasticPolicy")], name="p", decides=False)
    assert replies[0]["result"]["capabilities"] == {"decide": False}


def test_a_controller_started_as_a_policy_is_refused_clearly():
    rc, replies, _ = controller(Recorder(), [initialize("elasticPolicy"), shutdown(2)])
    err = replies[0]["error"]
    assert err["code"] == -32602
    assert "controller" in err["message"] and "elasticPolicy" in err["message"]
    assert rc == 0 and replies[1]["result"] is None  # and it goes on serving


def test_a_policy_started_as_a_controller_is_refused_clearly():
    _, replies, _ = policy(Recorder(), [initialize("controller")])
    err = replies[0]["error"]
    assert err["code"] == -32602
    assert "elastic policy" in err["message"] and "serve_policy" in err["message"]


def test_initialize_params_that_are_not_an_object():
    _, replies, _ = controller(Recorder(), [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                             "params": [1]}])
    assert replies[0]["error"]["code"] == -32602
