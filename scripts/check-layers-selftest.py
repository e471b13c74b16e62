#!/usr/bin/env python3
"""Self-test of check-layers.py: runs it on small fake repositories, clean and broken, and
checks that it passes the clean ones and fails each broken one for the right reason."""

import os
import subprocess
import sys
import tempfile

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check-layers.py")

LAYERS = """# Architecture

## Folders
Not the section the check reads.

## Layers
| level | folders (under `src/`) |
|---|---|
| 0 | `core` |
| 1 | `text`, `extract` |
| 2 | `codec` |
| 3 | `retrieval` |
| 4 | `engine` |
| 5 | `cli` |

| header | owner |
|---|---|
| `status.h`, `memory.h` | `core` |
| `engine.h` | `engine` |

Allowed within a level:
- `extract` → `text`

Private folders (only the folders named may include them):
- `retrieval`: `engine`
- `engine`:

Known exceptions:
{exceptions}

## Next section
| level | folders |
|---|---|
| 9 | `ignored` |
"""

CLEAN = {
    "include/engram/status.h": "#pragma once\n",
    "include/engram/memory.h": '#include "engram/status.h"\n',
    "include/engram/engine.h": '#include "engram/memory.h"\n',
    "src/core/status.cc": '#include "engram/status.h"\n#include <vector>\n',
    "src/text/utf8.h": '#include "core/status.h"\n#include <unicode/utf8.h>\n',
    "src/codec/json.cc": '#include "text/utf8.h"\n#include "engram/memory.h"\n',
    "src/extract/rules.cc": '#include "text/utf8.h"\n',  # allowed within level 1
    "src/retrieval/searcher.h": '#include "codec/json.h"\n',
    "src/engine/engine.cc": '#include "retrieval/searcher.h"\n#include "engine/internal.h"\n',
    "src/engine/internal.h": '#include "engram/engine.h"\n',
    "src/cli/main.cc": '#include "engram/engine.h"\n#include "cli/output.h"\n',
    # Tests may include anything.
    "src/core/status_test.cc": '#include "engine/internal.h"\n#include "testing/fake.h"\n',
    "src/text/utf8_test_util.h": '#include "cli/output.h"\n',
    "src/testing/fake.h": '#include "engine/internal.h"\n',
}


def run(files, exceptions=""):
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "docs"))
        with open(os.path.join(root, "docs", "architecture.md"), "w", encoding="utf-8") as f:
            f.write(LAYERS.format(exceptions=exceptions))
        for rel, text in files.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        p = subprocess.run([sys.executable, CHECK, "--root", root], capture_output=True,
                           text=True, timeout=60)
        return p.returncode, p.stdout + p.stderr


failures = []


def expect(name, files, rc, needle=None, exceptions=""):
    got_rc, out = run(files, exceptions)
    if got_rc != rc or (needle is not None and needle not in out):
        failures.append(f"{name}: expected exit {rc}" + (f" and '{needle}'" if needle else "") +
                        f", got exit {got_rc}:\n{out}")


def with_file(rel, text):
    files = dict(CLEAN)
    files[rel] = text
    return files


expect("clean tree", CLEAN, 0)
expect("lower includes higher", with_file("src/text/bad.cc", '#include "codec/json.h"\n'),
       1, "src/text/bad.cc: includes codec/json.h: 'text' (level 1) includes the higher 'codec'")
expect("lower includes a higher layer's public header",
       with_file("src/codec/bad.h", '#include "engram/engine.h"\n'), 1,
       "src/codec/bad.h: includes engram/engine.h")
expect("a public header includes a higher one",
       with_file("include/engram/memory.h", '#include "engram/engine.h"\n'), 1,
       "include/engram/memory.h: includes engram/engine.h")
expect("same level, not allowed", with_file("src/text/bad.cc", '#include "extract/rules.h"\n'),
       1, "'text' and 'extract' are on the same level 1")
expect("private folder from above", with_file("src/cli/bad.cc", '#include "retrieval/searcher.h"\n'),
       1, "'retrieval' is private to engine")
expect("engine internals from above", with_file("src/cli/bad.cc", '#include "engine/internal.h"\n'),
       1, "'engine' is private to itself")
expect("public header without an owner", with_file("src/cli/bad.cc", '#include "engram/new.h"\n'),
       1, "a public header no layer owns")
expect("folder missing from the table", with_file("src/newfolder/x.cc", "\n"), 1,
       "folder 'newfolder' is not in the Layers table")
bad = with_file("src/text/bad.cc", '#include "engine/internal.h"\n')
expect("known exception honoured", bad, 0,
       exceptions="- `text/bad.cc` → `engine/internal.h`: fixed by the next change")
expect("known exception for a folder honoured", bad, 0,
       exceptions="- `text` → `engine/internal.h`: a wrapped\n  list item")
expect("stale known exception", CLEAN, 1, "matches nothing",
       exceptions="- `text` → `engine/internal.h`: fixed already")
expect("exception for another include does not hide a violation", bad, 1,
       "src/text/bad.cc: includes engine/internal.h",
       exceptions="- `text/bad.cc` → `engram/engine.h`: another one")
with tempfile.TemporaryDirectory() as empty:
    os.makedirs(os.path.join(empty, "docs"))
    with open(os.path.join(empty, "docs", "architecture.md"), "w", encoding="utf-8") as f:
        f.write("# Architecture\n\nNo layers here.\n")
    p = subprocess.run([sys.executable, CHECK, "--root", empty], capture_output=True, text=True)
    if p.returncode != 2 or "no '## Layers' section" not in p.stderr:
        failures.append(f"missing section: expected exit 2, got {p.returncode}: {p.stderr}")

for f in failures:
    print("FAIL", f)
print(f"check-layers self-test: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
