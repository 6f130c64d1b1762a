#!/usr/bin/env python3
"""Rewrites the `--- output` sections of src/modules/builtins/help/docs.txt
with what the oracle (real TensorFlow) prints for each `--- example`.

usage: tools/help_docs.py [--oracle PATH] [--check]

All examples run in one oracle process (two virtual GPUs, as the doctest in
tests/help_docs.rs runs them), each with fresh globals holding only `tf`.
--check only reports the entries whose output differs.
"""
import argparse
import os
import subprocess
import sys
import tempfile

DOCS = os.path.join(os.path.dirname(__file__), "..", "src/modules/builtins/help/docs.txt")
MARK = "=====DOC-EXAMPLE-BOUNDARY====="


def parse(text):
    """(header lines before the first entry, [entry dict])."""
    entries, head, cur, section = [], [], None, None
    for line in text.split("\n"):
        if line.startswith("@@ "):
            cur = {"head": line, "text": [], "example": [], "output": []}
            entries.append(cur)
            section = "text"
        elif cur is None:
            head.append(line)
        elif line == "--- example":
            section = "example"
        elif line == "--- output":
            section = "output"
        else:
            cur[section].append(line)
    for e in entries:
        for k in ("text", "example", "output"):
            while e[k] and e[k][-1] == "":
                e[k].pop()
    return head, entries


def render(head, entries):
    out = list(head)
    for e in entries:
        out.append(e["head"])
        out.extend(e["text"])
        out.append("--- example")
        out.extend(e["example"])
        out.append("--- output")
        out.extend(e["output"])
        out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", default="/work/shared/oracle/tf")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    with open(DOCS) as f:
        head, entries = parse(f.read())
    prog = ["import tensorflow as tf", "import sys"]
    for e in entries:
        src = "\n".join(e["example"]) + "\n"
        prog.append(f"print({MARK!r})")
        prog.append("try:")
        prog.append(f"    exec(compile({src!r}, 'example', 'exec'), {{'tf': tf}})")
        prog.append("except Exception as e:")
        prog.append("    print('!! example raised', type(e).__name__, e)")
        prog.append("sys.stdout.flush()")
    with tempfile.NamedTemporaryFile("w", suffix=".dist", delete=False) as f:
        f.write("\n".join(prog) + "\n")
        path = f.name
    res = subprocess.run([args.oracle, "--virtual-gpus", "2", path], capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"oracle failed:\n{res.stderr}")
    outs = res.stdout.split(MARK + "\n")[1:]
    if len(outs) != len(entries):
        sys.exit(f"expected {len(entries)} outputs, got {len(outs)}")
    changed = 0
    for e, o in zip(entries, outs):
        new = o.rstrip("\n").split("\n") if o else []
        if new != e["output"]:
            changed += 1
            print(f"{'differs' if args.check else 'updated'}: {e['head']}")
            if any(l.startswith("!! example raised") for l in new):
                print("   " + "\n   ".join(new))
            e["output"] = new
    if not args.check:
        with open(DOCS, "w") as f:
            f.write(render(head, entries))
    print(f"{len(entries)} examples, {changed} changed")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
