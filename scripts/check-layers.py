#!/usr/bin/env python3
"""Fails if a lower layer of Engram includes a higher one.

The rules are not kept here: they are read from the "Layers" section of docs/architecture.md,
so the document and the check cannot drift apart. The section holds four tables and lists,
recognised by their header row or lead-in line:

  | level | folders |            levels low -> high; a folder is a directory under src/
  | header | owner |             each public header in include/engram/ and the folder owning it
  Allowed within a level:        list items "`a` -> `b`": a may include b at the same level
  Private folders:               list items "`a`: `b`, `c`": only b and c (and a) include a's
                                 headers under src/ (a public header a owns stays public)
  Known exceptions:              list items "`path` -> `include`": tolerated until removed

An include "x/y.h" counts when x is a folder of the table; "engram/y.h" counts as its owner's.
Tests (*_test.cc, *_test_util.h, src/testing/) are exempt. A known exception that no longer
matches any include is an error too, so the list shrinks as the code is fixed.

Usage: check-layers.py [--root DIR]   (DIR: the repository, default: this script's parent's)
Exit status 0 when clean, 1 on violations, 2 when the Layers section cannot be read.
"""

import argparse
import os
import re
import sys

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
CODE_RE = re.compile(r"`([^`]+)`")
ARROW_RE = re.compile(r"^\s*[-*]\s*`([^`]+)`\s*(?:->|→)\s*`([^`]+)`")
PRIVATE_RE = re.compile(r"^\s*[-*]\s*`([^`]+)`\s*:\s*(.*)$")
SOURCE_SUFFIXES = (".h", ".cc", ".cc.in")


class LayerError(Exception):
    pass


def read_layers_section(doc_path):
    with open(doc_path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^## Layers\s*$(.*?)(?=^## |\Z)", text, re.M | re.S)
    if not m:
        raise LayerError(f"{doc_path}: no '## Layers' section")
    return m.group(1).splitlines()


def table_rows(lines, first_header):
    """The body rows (lists of cells) of the table whose header row starts with first_header."""
    rows, inside = [], False
    for line in lines:
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if "|" in line else None
        if not inside:
            inside = cells is not None and cells[0].lower() == first_header
            continue
        if cells is None:
            break
        if not set(cells[0]) <= set("-: "):
            rows.append(cells)
    return rows


def list_items(lines, lead_in):
    """The list items of the paragraph that starts with lead_in, up to the next blank line."""
    items, inside = [], False
    for line in lines:
        if not inside:
            inside = line.strip().lower().startswith(lead_in.lower())
            continue
        if not line.strip():
            break
        if re.match(r"^\s*[-*]\s", line):
            items.append(line.strip())
        elif items:
            items[-1] += " " + line.strip()  # a wrapped list item
    return items


def parse_rules(doc_path):
    lines = read_layers_section(doc_path)
    level_of = {}
    for cells in table_rows(lines, "level"):
        try:
            level = int(cells[0])
        except ValueError:
            raise LayerError(f"Layers: level '{cells[0]}' is not a number") from None
        for folder in CODE_RE.findall(cells[1]):
            level_of[folder] = level
    if not level_of:
        raise LayerError("Layers: no '| level | folders |' table")
    owner_of = {}
    for cells in table_rows(lines, "header"):
        headers, owners = CODE_RE.findall(cells[0]), CODE_RE.findall(cells[1])
        if len(owners) != 1 or owners[0] not in level_of:
            raise LayerError(f"Layers: header row {cells} needs one owner folder of the table")
        for h in headers:
            owner_of[h] = owners[0]
    allowed = set()
    for item in list_items(lines, "Allowed within a level"):
        m = ARROW_RE.match(item)
        if not m:
            raise LayerError(f"Layers: cannot read allowed include '{item.strip()}'")
        allowed.add((m.group(1), m.group(2)))
    private = {}
    for item in list_items(lines, "Private folders"):
        m = PRIVATE_RE.match(item)
        if not m:
            raise LayerError(f"Layers: cannot read private folder '{item.strip()}'")
        private[m.group(1)] = set(CODE_RE.findall(m.group(2)))
    exceptions = []
    for item in list_items(lines, "Known exceptions"):
        m = ARROW_RE.match(item)
        if not m:
            raise LayerError(f"Layers: cannot read known exception '{item.strip()}'")
        exceptions.append((m.group(1), m.group(2)))
    return level_of, owner_of, allowed, private, exceptions


def is_exempt(rel):
    name = os.path.basename(rel)
    return (rel.startswith("src/testing/") or name.endswith("_test.cc") or
            name.endswith("_test_util.h"))


def source_files(root):
    for top in ("src", "include/engram"):
        base = os.path.join(root, top)
        for dirpath, _, names in os.walk(base):
            for name in sorted(names):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")


def check(root, doc_path):
    level_of, owner_of, allowed, private, exceptions = parse_rules(doc_path)
    problems, used_exceptions = [], set()

    def folder_of_file(rel):
        if rel.startswith("include/engram/"):
            return owner_of.get(rel[len("include/engram/"):])
        return rel.split("/")[1] if rel.count("/") >= 2 else None

    def excepted(rel, inc):
        for i, (where, what) in enumerate(exceptions):
            src = "src/" + where if not where.startswith(("src/", "include/")) else where
            if what == inc and (rel == src or rel.startswith(src.rstrip("/") + "/")):
                used_exceptions.add(i)
                return True
        return False

    for rel in source_files(root):
        if is_exempt(rel):
            continue
        here = folder_of_file(rel)
        if here is None:
            problems.append(f"{rel}: no layer owns this file (add it to the Layers tables)")
            continue
        if here not in level_of:
            problems.append(f"{rel}: folder '{here}' is not in the Layers table")
            continue
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            includes = INCLUDE_RE.findall(f.read())
        for inc in includes:
            top = inc.split("/")[0] if "/" in inc else None
            if top == "engram":
                there = owner_of.get(inc[len("engram/"):])
                if there is None:
                    problems.append(f"{rel}: includes {inc}, a public header no layer owns")
                    continue
            elif top in level_of:
                there = top
            else:
                continue  # third-party, system or generated header
            if there == here:
                continue
            why = None
            if top != "engram" and there in private and here not in private[there]:
                why = f"'{there}' is private to {', '.join(sorted(private[there])) or 'itself'}"
            elif level_of[there] > level_of[here]:
                why = (f"'{here}' (level {level_of[here]}) includes the higher "
                       f"'{there}' (level {level_of[there]})")
            elif level_of[there] == level_of[here] and (here, there) not in allowed:
                why = f"'{here}' and '{there}' are on the same level {level_of[here]}"
            if why and not excepted(rel, inc):
                problems.append(f"{rel}: includes {inc}: {why}")
    for i, (where, what) in enumerate(exceptions):
        if i not in used_exceptions:
            problems.append(f"known exception `{where}` -> `{what}` matches nothing: remove it "
                            "from docs/architecture.md")
    return problems


def main():
    default_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=default_root, help="repository root")
    args = parser.parse_args()
    try:
        problems = check(args.root, os.path.join(args.root, "docs", "architecture.md"))
    except (LayerError, OSError) as e:
        print(f"check-layers: {e}", file=sys.stderr)
        return 2
    for p in problems:
        print(p)
    if problems:
        print(f"check-layers: {len(problems)} problem(s); the rules are in the Layers section "
              "of docs/architecture.md", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
