"""`refusal-lint server`: the language server (DESIGN §11), LSP over stdio on pygls.

It publishes the findings `check` would give for the open files, computed over the whole
agent from the editor's buffers (disk for the rest); hover on a rule id; code actions for
the RL203/RL303 fixes and for suppression comments. It never writes a file and never
imports user code. One job a module:

    projects.py   which project (root folder) a file belongs to; the one key of a document URI
    lint.py       one pipeline run over a project, buffers in place of the disk
    positions.py  refusal-lint's 1-based code-point spans <-> LSP ranges
    diagnostics.py  findings -> LSP diagnostics
    hover.py      the hover of a rule id
    suppress.py   where a suppression comment goes, and its text
    actions.py    code actions: the fix edits, the suppressions
    app.py        the pygls server: documents, debounced runs, publishing
"""
