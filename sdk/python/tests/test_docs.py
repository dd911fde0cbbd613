"""docs/plugins.md §8 shows the minimal plugins of tests/plugins/ (which test_end_to_end.py
runs) as they are."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[3]


def test_the_docs_show_the_tested_minimal_plugins():
    text = (ROOT / "docs" / "plugins.md").read_text()
    section = text[text.index("### With the SDK"):text.index("### Standard library only")]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    for name in ("minimal_controller.py", "minimal_policy.py"):
        code = (pathlib.Path(__file__).parent / "plugins" / name).read_text()
        assert code in blocks, f"docs/plugins.md §8 does not show tests/plugins/{name} as it is"
