from refusal_lint.cli import run

run()
