"""The tests run against this checkout's SDK (src/), installed or not: a copy installed in the
environment may be older than the sources."""

import pathlib
import sys

SRC = pathlib.Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
