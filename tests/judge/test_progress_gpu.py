#!/usr/bin/env python3
"""The progress a user sees (README, "Using vlbench"): on a terminal, a live line for the running case (its round,
its timed call n/60, then judging, and the seconds spent) above the finished cases' rows; through a pipe, plain lines
only, one per finished case. Runs vlbench on the GPU, isolated (the default) and in process. Exit 77 without a GPU.

Environment (set by ctest): VLBENCH_BINARY.
"""
import os
import pty
import re
import subprocess
import sys
import unittest

VLBENCH = os.environ.get("VLBENCH_BINARY", "build/vlbench")
ARGUMENTS = ["-s", "template", "-c", "6,15"]  # case 6 takes about 7 ms a call: its timing lasts long enough to be seen


def run_on_terminal(arguments):
    """vlbench with a pseudo-terminal as its standard output; everything it wrote there, and its exit code."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([VLBENCH, *arguments], stdout=follower, stderr=subprocess.PIPE)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed when vlbench exited
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    return process.wait(timeout=600), b"".join(chunks).decode(errors="replace")


def has_gpu():
    try:
        return "GPU" in subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout
    except OSError:
        return False


class Progress(unittest.TestCase):
    def check_terminal(self, extra):
        code, output = run_on_terminal(ARGUMENTS + extra)
        self.assertEqual(code, 0, output)
        self.assertIn("\r[1/2] template #6 663d8041: round 1/3, 0.0 s", output)
        self.assertRegex(output, r"\r\[1/2\] template #6 663d8041: timed call \d+/60, \d+\.\d s")
        self.assertRegex(output, r"\r\[1/2\] template #6 663d8041: judging, \d+\.\d s")
        self.assertIn("\r[2/2] template #15 f36740f8: round 1/3, 0.0 s", output)
        # Each finished case's row replaces the live line and stays.
        self.assertRegex(output, r"\r\x1b\[K\[1/2\] template #6 663d8041 .*PASSED .* us\r?\n")
        self.assertRegex(output, r"\r\x1b\[K\[2/2\] template #15 f36740f8 .*PASSED .* us\r?\n")

    def test_a_terminal_gets_a_live_line_isolated(self):
        self.check_terminal([])

    def test_a_terminal_gets_a_live_line_in_process(self):
        self.check_terminal(["--no-isolation"])

    def test_a_pipe_gets_plain_lines(self):
        result = subprocess.run([VLBENCH, *ARGUMENTS], capture_output=True, text=True, timeout=600)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertNotIn("\r", result.stdout)
        self.assertNotIn("\x1b", result.stdout)
        lines = [line for line in result.stdout.splitlines() if line.startswith("[")]
        self.assertEqual(len(lines), 2)
        self.assertTrue(lines[0].startswith("[1/2] template #6 663d8041"))
        self.assertTrue(re.search(r"PASSED \d+\.\d\d us$", lines[1]))


if __name__ == "__main__":
    if not has_gpu():
        print("SKIPPED: no CUDA GPU (nvidia-smi -L lists none)")
        sys.exit(77)
    unittest.main(verbosity=2)
