#!/usr/bin/env python3
"""Mutant of the reference GenericJob controller for differential testing (issue 45).

One rule changed: restart counts are not carried over in the status. Each reconcile reads the
previous tasks[].restartCount and tasks[].replicas[].restartCount as 0, so the counts restart
from zero every step and restartPolicy.limit is never reached across reconciles (the counters
live only in the status, docs/controllers.md §1). Everything else is the reference's
(plugins/examples/reference_generic/). A differential test must tell it from the built-in.

    t9ksim run scenario.yaml \\
        --plugin GenericJob="python3 tests/plugins/mutants/lose_restart_counts.py"
"""
import sys
from pathlib import Path
from typing import Any, Dict, Mapping

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "plugins" / "examples"))
try:
    import t9ksim_sdk  # noqa: F401
except ImportError:  # not installed: the SDK of this repository
    sys.path.insert(0, str(ROOT / "sdk" / "python" / "src"))
    import t9ksim_sdk  # noqa: F401

from t9ksim_sdk import serve_controller  # noqa: E402

from reference_generic import Reconcile  # noqa: E402


class LoseRestartCounts(Reconcile):
    def previous_task_restarts(self, task: Mapping[str, Any]) -> int:
        return 0  # the mutation: the type's count is forgotten

    def previous_rank_restarts(self, task: Mapping[str, Any], name: str) -> int:
        return 0  # the mutation: the rank's count is forgotten


def reconcile(request: Mapping[str, Any]) -> Dict[str, Any]:
    return LoseRestartCounts(request).run()


if __name__ == "__main__":
    sys.exit(serve_controller(reconcile, name="mutant-lose-restart-counts"))
