#!/usr/bin/env python3
"""Write ../en.jsonl and ../zh.jsonl from the hand-written case files."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cases_en  # noqa: E402
import cases_zh  # noqa: E402

OUT = os.path.dirname(HERE)


def write(name, cases):
    path = os.path.join(OUT, name)
    with open(path, "w", encoding="utf-8") as f:
        for c in cases:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    print("wrote %s (%d cases)" % (path, len(cases)))


if __name__ == "__main__":
    write("en.jsonl", cases_en.build())
    write("zh.jsonl", cases_zh.build())
