from refusal_lint.cli import main

main()
