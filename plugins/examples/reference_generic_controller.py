#!/usr/bin/env python3
"""The built-in GenericJob controller, ported to Python as a t9ksim plugin (docs/plugins.md).

A run with it gives byte-identical outputs to the same run in process
(tests/plugins/reference_port_test.py), so it is both the proof that a controller in another
language can be exact and the base for mutants in differential testing
(tests/plugins/mutants/). The port is the package reference_generic/ beside this file.

Run it:
    t9ksim run scenario.yaml \\
        --plugin GenericJob="python3 plugins/examples/reference_generic_controller.py"

Standard library only, plus the t9ksim Python SDK (sdk/python/src) that serves it.
"""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # reference_generic/, beside this file

try:
    import t9ksim_sdk  # noqa: F401
except ImportError:  # not installed: the SDK of this repository
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "sdk" / "python" / "src"))
    import t9ksim_sdk  # noqa: F401

from t9ksim_sdk import serve_controller  # noqa: E402

from reference_generic import reconcile  # noqa: E402


def main() -> int:
    return serve_controller(reconcile, name="reference-generic")


if __name__ == "__main__":
    sys.exit(main())
