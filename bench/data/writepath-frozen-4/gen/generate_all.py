"""Regenerates en.jsonl and zh.jsonl, then runs the validator."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
for script in ("gen_en.py", "gen_zh.py", "validate.py"):
    subprocess.check_call([sys.executable, os.path.join(HERE, script)])
