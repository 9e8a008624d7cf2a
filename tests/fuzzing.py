"""Mutate fixture agents and run the whole CLI on them: the shared engine of the fuzz test
(tests/test_fuzz.py) and of the long fuzzing script (bench/fuzz.py)."""

from __future__ import annotations

import json
import random
import shutil
import tempfile
from pathlib import Path

from click.testing import CliRunner
from conftest import snapshot

from refusal_lint.cli import main

ROOT = Path(__file__).resolve().parent.parent
SEEDS = [
    ROOT / "testdata" / name
    for name in ("survey-agent", "py-a2a-v1", "py-strenum", "prompt-rl203", "py-rl305")
]
JUNK = [
    b"{",
    b"}",
    b"[",
    b'"',
    b"'",
    b"\\",
    b"\x00",
    b"\xff\xfe",
    b"\t",
    b"\r\n",
    b":",
    b"- ",
    b"(",
    b"&a ",
    b"*a",
    b'"""',
    b"refuse(",
    b"seg-mix",
    b"\xe2\x80",
    b"#",
    b"\n    ",
    b"{{",
    b"%",
]


def mutate(data: bytes, rng: random.Random) -> bytes:
    for _ in range(rng.randint(1, 4)):
        pos = rng.randint(0, len(data))
        op = rng.randrange(6)
        if op == 0:
            data = data[:pos]
        elif op == 1 and data:
            i = rng.randrange(len(data))
            data = data[:i] + bytes([rng.randrange(256)]) + data[i + 1 :]
        elif op == 2:
            data = data[:pos] + rng.choice(JUNK) + data[pos:]
        elif op == 3:
            lines = data.splitlines(keepends=True)
            if lines:
                i = rng.randrange(len(lines))
                data = b"".join([*lines[: i + 1], lines[i], *lines[i + 1 :]])
        elif op == 4:
            lines = data.splitlines(keepends=True)
            if lines:
                del lines[rng.randrange(len(lines))]
                data = b"".join(lines)
        else:
            data = data[:pos] + data[pos : pos + rng.randint(1, 40)] * rng.randint(2, 50) + data[pos:]
    return data


def run_case(seed: int) -> str:
    """One mutated agent through the CLI; returns a description, raises AssertionError on a fault."""
    rng = random.Random(seed)
    source = rng.choice(SEEDS)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / source.name
        shutil.copytree(source, root, ignore=shutil.ignore_patterns("expected.txt"))
        files = sorted(p for p in root.rglob("*") if p.is_file())
        touched = []
        for path in rng.sample(files, k=min(len(files), rng.randint(1, 3))):
            path.write_bytes(mutate(path.read_bytes(), rng))
            touched.append(str(path.relative_to(root)))
        before = snapshot(root)
        result = CliRunner().invoke(main, ["check", str(root), "--format", "json", "--no-cache"])
        where = f"seed {seed}: {source.name} with {touched} mutated"
        assert result.exit_code in (0, 1, 2), f"{where}: exit {result.exit_code}, {result.exception!r}"
        assert "Traceback" not in result.output, f"{where}: {result.output[-2000:]}"
        if result.exit_code == 2:
            assert result.stdout == "" and len(result.stderr.splitlines()) == 1, where
        else:
            report = json.loads(result.stdout)
            assert set(report) == {"tool", "agents", "findings", "summary"}, where
        assert snapshot(root) == before, f"{where}: a file was changed"
        return where
