#!/usr/bin/env python3
"""Copies workloads/definition_reference.py into workloads/definition.json: its text becomes the definition's
"reference" (the PyTorch code SOL-ExecBench's evaluator runs) and its make_inputs() the definition's
"custom_inputs_entrypoint" (the function that makes every input of a workload).

    python3 scripts/update_definition_reference.py           # rewrite definition.json
    python3 scripts/update_definition_reference.py --check   # exit 1 if definition.json is out of date
"""
import argparse
import json
import sys
from pathlib import Path

WORKLOADS = Path(__file__).resolve().parent.parent / "workloads"
ENTRY_POINT = "make_inputs"


def updated_definition(definition_path, reference_path):
    definition = json.loads(definition_path.read_text())
    definition["reference"] = reference_path.read_text()
    definition["custom_inputs_entrypoint"] = ENTRY_POINT
    return json.dumps(definition, indent=2, ensure_ascii=False) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare only: exit 1 when definition.json differs")
    parser.add_argument("--workloads", type=Path, default=WORKLOADS, help="folder of definition.json (default: %(default)s)")
    args = parser.parse_args()
    definition_path = args.workloads / "definition.json"
    text = updated_definition(definition_path, args.workloads / "definition_reference.py")
    if definition_path.read_text() == text:
        print(f"{definition_path} is up to date")
        return 0
    if args.check:
        print(f"{definition_path} does not hold definition_reference.py: run python3 scripts/update_definition_reference.py",
              file=sys.stderr)
        return 1
    definition_path.write_text(text)
    print(f"wrote {definition_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
