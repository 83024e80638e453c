"""Write the frozen corpus of today's reports and refusals (issue 46), which
``tests/engine/test_frozen_reports.py`` compares the engine and the record with.

    python scripts/frozen_reports.py      # from the repository, with chukker importable

Run it only when a report or a refusal is meant to change (say which, and why, in the
commit): the corpus is what "byte-identical to today's" means. What it holds and how
each part is computed: ``tests/engine/frozen_corpus.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.engine.frozen_corpus import CORPUS, corpus


def main() -> None:
    data = corpus()
    parts = []
    for key, value in data.items():  # one example, match or bad event a line
        items = value.items() if isinstance(value, dict) else enumerate(value)
        lines = [(f"{json.dumps(k)}: " if isinstance(value, dict) else "")
                 + json.dumps(v, ensure_ascii=True) for k, v in items]
        o, c = "{}" if isinstance(value, dict) else "[]"
        parts.append(f"{json.dumps(key)}: {o}\n" + ",\n".join(lines) + f"\n{c}")
    CORPUS.write_text("{\n" + ",\n".join(parts) + "\n}\n", encoding="utf-8")
    print(f"{CORPUS}: {len(data['examples'])} examples, {len(data['matches'])} matches, "
          f"{len(data['bad'])} bad events")


if __name__ == "__main__":
    main()
