#!/usr/bin/env python3
"""The code's shape: lines per module and the longest functions.

    python3 scripts/structure.py [REV]     # REV: a git revision (default: the work tree)

Lines per file under src/ (tests inside a file included), grouped by folder,
then the ten longest functions (from `fn` to its closing brace; strings,
characters and comments are skipped when braces are counted).
"""
import re
import subprocess
import sys
from collections import defaultdict

FN = re.compile(r"^\s*(?:pub(?:\([a-z]+\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+([A-Za-z_][A-Za-z0-9_]*)")


def files(rev):
    if rev:
        names = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, "src"],
                               capture_output=True, text=True, check=True).stdout.split()
        read = lambda p: subprocess.run(["git", "show", f"{rev}:{p}"], capture_output=True,
                                        text=True, check=True).stdout
    else:
        names = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "src"],
                               capture_output=True, text=True, check=True).stdout.split()
        read = lambda p: open(p, encoding="utf-8").read()
    return {p: read(p) for p in names if p.endswith(".rs")}


def line_braces(line, state):
    """The braces of one line as +1 / -1, in order; `state` carries an open block comment or raw string."""
    depth, i, n = [], 0, len(line)
    while i < n:
        if state["raw"] is not None:
            end = '"' + "#" * state["raw"]
            j = line.find(end, i)
            if j < 0:
                return depth
            i, state["raw"] = j + len(end), None
            continue
        if state["block"]:
            j = line.find("*/", i)
            if j < 0:
                return depth
            i, state["block"] = j + 2, False
            continue
        c = line[i]
        if line.startswith("//", i):
            return depth
        if line.startswith("/*", i):
            state["block"], i = True, i + 2
            continue
        m = re.match(r'b?r(#*)"', line[i:])
        if m and (i == 0 or not (line[i - 1].isalnum() or line[i - 1] == "_")):
            state["raw"], i = len(m.group(1)), i + m.end()
            continue
        if c == '"':
            i += 1
            while i < n and line[i] != '"':
                i += 2 if line[i] == "\\" else 1
            if i >= n:  # a string spanning lines: treat the rest as text
                state["raw"] = 0
            i += 1
            continue
        if c == "'":
            m = re.match(r"'(\\.|[^\\'])'|'\\u\{[0-9a-fA-F]+\}'", line[i:])
            if m:
                i += m.end()
                continue
        if c == "{":
            depth.append(1)
        elif c == "}":
            depth.append(-1)
        i += 1
    return depth


def functions(path, text):
    out, open_fns, depth, state = [], [], 0, {"raw": None, "block": False}
    for no, line in enumerate(text.split("\n"), 1):
        m = FN.match(line) if state["raw"] is None and not state["block"] else None
        if m:
            open_fns.append([m.group(1), no, depth, False])
        for c in line_braces(line, state):
            depth += c
            if open_fns and c > 0 and depth == open_fns[-1][2] + 1:
                open_fns[-1][3] = True
            if open_fns and c < 0 and open_fns[-1][3] and depth == open_fns[-1][2]:
                name, start, _, _ = open_fns.pop()
                out.append((no - start + 1, f"{path}:{start}", name))
        if open_fns and not open_fns[-1][3] and line.rstrip().endswith(";") and depth == open_fns[-1][2]:
            open_fns.pop()  # a declaration without a body
    return out


def main():
    rev = sys.argv[1] if len(sys.argv) > 1 else None
    texts = files(rev)
    by_folder = defaultdict(list)
    for p, t in sorted(texts.items()):
        by_folder[p.rsplit("/", 1)[0]].append((p, t.count("\n")))
    total = 0
    print(f"Lines per module ({rev or 'work tree'}):")
    for folder, items in sorted(by_folder.items()):
        sub = sum(n for _, n in items)
        total += sub
        print(f"  {folder}/  {sub}")
        for p, n in items:
            print(f"      {n:6}  {p.rsplit('/', 1)[1]}")
    print(f"  total {total} lines in {len(texts)} files")
    fns = [f for p, t in texts.items() for f in functions(p, t)]
    fns.sort(key=lambda f: -f[0])
    print("Ten longest functions:")
    for n, where, name in fns[:10]:
        print(f"  {n:5}  {name}  ({where})")


if __name__ == "__main__":
    main()
