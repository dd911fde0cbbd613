#!/usr/bin/env python3
"""Mutant of the reference GenericJob controller for differential testing (issue 45).

One rule changed: the job is declared Succeeded as soon as ONE of its replicas has succeeded
(exited 0, no restart pending), instead of the real success rule (every replica, or a
successRule's replicas, §3.1, §11 Q2). Failure rules and everything else are the reference's
(plugins/examples/reference_generic/). A differential test must tell it from the built-in.

    t9ksim run scenario.yaml --plugin GenericJob="python3 tests/plugins/mutants/success_on_one.py"
"""
import sys
from pathlib import Path
from typing import Any, Dict, Mapping, Optional

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "plugins" / "examples"))
try:
    import t9ksim_sdk  # noqa: F401
except ImportError:  # not installed: the SDK of this repository
    sys.path.insert(0, str(ROOT / "sdk" / "python" / "src"))
    import t9ksim_sdk  # noqa: F401

from t9ksim_sdk import serve_controller  # noqa: E402

from reference_generic import Reconcile  # noqa: E402
from reference_generic import rules  # noqa: E402


class SuccessOnOne(Reconcile):
    def decide(self) -> Optional[rules.Verdict]:
        verdict = super().decide()
        if verdict is not None and verdict.phase == "Failed":
            return verdict  # failure is still evaluated first, as the reference does
        if any(s.desired and s.outcome == rules.SUCCEEDED_FINAL for s in self.slots):
            return rules.Verdict("Succeeded", "", rules.MSG_SUCCEEDED)  # the mutation
        return None


def reconcile(request: Mapping[str, Any]) -> Dict[str, Any]:
    return SuccessOnOne(request).run()


if __name__ == "__main__":
    sys.exit(serve_controller(reconcile, name="mutant-success-on-one"))
