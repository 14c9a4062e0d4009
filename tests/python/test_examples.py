"""Runs every script of examples/python and checks each figure it prints against gec's report
for the same graph compiled the same way.

An example prints `LABEL: gec SUBCOMMAND --set 'K=V' ...` (the gec command equivalent to its
configuration) and `LABEL: KEY = VALUE` lines (KEY a path in the report, docs/report.md;
`len(PATH)` for a list's length). The graph is the one the example builds (written with
`--onnx`) or the model it names (`model = PATH`). Exit code 77 = the example skipped itself.
"""
import ast
import os
import re
import shlex
import subprocess
import sys
import tempfile
import unittest

from helpers import gec_report

EXAMPLES = os.environ.get("GE_EXAMPLES_DIR",
                          os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python"))


def lookup(report, key):
    m = re.fullmatch(r"len\((.+)\)", key)
    path = m.group(1) if m else key
    v = report
    for part in path.split("."):
        v = v[part]
    return len(v) if m else v


class ExampleTest(unittest.TestCase):
    def run_example(self, name):
        with tempfile.TemporaryDirectory() as d:
            onnx_path = os.path.join(d, "graph.onnx")
            p = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), "--onnx", onnx_path],
                               capture_output=True, text=True, timeout=900)
            print("---- %s\n%s" % (name, p.stdout), file=sys.stderr)
            if p.returncode == 77:
                self.skipTest(p.stdout.strip().splitlines()[-1])
            self.assertEqual(p.returncode, 0, p.stderr)
            model = onnx_path
            commands, figures = {}, []
            for line in p.stdout.splitlines():
                if line.startswith("model = "):
                    model = line[len("model = "):]
                elif m := re.fullmatch(r"(\w+): gec (\w+)(.*)", line):
                    commands[m.group(1)] = (m.group(2), shlex.split(m.group(3)))
                elif m := re.fullmatch(r"(\w+): (\S+) = (.+)", line):
                    figures.append((m.group(1), m.group(2), ast.literal_eval(m.group(3))))
            self.assertTrue(figures, "the example printed no figures")
            reports = {}
            for label, key, value in figures:
                with self.subTest(label=label, key=key):
                    if label not in reports:
                        sub, args = commands[label]
                        extra = ["--iterations", "1"] if sub == "profile" else []
                        reports[label] = gec_report(sub, model, *args, *extra)
                    expected = lookup(reports[label], key)
                    if isinstance(value, float):
                        self.assertAlmostEqual(value, expected, delta=1e-9 * max(1.0, abs(expected)))
                    else:
                        self.assertEqual(value, expected)
            return p.stdout

    def test_conv_bn_relu_fusion(self):
        out = self.run_example("conv_bn_relu_fusion.py")
        self.assertIn("O2: nodes_after = 1", out)
        self.assertIn("O2: fusions.conv_bn = 1", out)

    def test_conv_bias_relu_fusion(self):
        out = self.run_example("conv_bias_relu_fusion.py")
        self.assertIn("O2: nodes_before = 6", out)
        self.assertIn("O2: nodes_after = 2", out)

    def test_memory_estimate(self):
        out = self.run_example("memory_estimate.py")
        self.assertIn("O0_basic: memory.arena_bytes = 4096", out)
        self.assertIn("O0_basic: memory.no_reuse_bytes = 6144", out)
        self.assertIn("O2: memory.arena_bytes = 3072", out)

    def test_layout_conversion(self):
        self.run_example("layout_conversion.py")

    def test_scheduling(self):
        self.run_example("scheduling.py")

    def test_plan_run(self):
        self.run_example("plan_run.py")

    def test_profile_model(self):
        self.run_example("profile_model.py")


if __name__ == "__main__":
    unittest.main()
