"""Prompts composed through names (DESIGN §2 "What is read"): a rule list whose lead-in and
rule lines are separate strings that meet only where a name is read.

listing.python_lists_rules reads a file's strings in source order, as a prompt written in
one expression reads (`"Refuse these:\\n" + "- x-y: ..."`). Binding also composes a prompt
from names: a constant written further up (`RULES = "- x-y: ..."`, then
`SYSTEM_PROMPT = f"Refuse these:\\n{RULES}"`), a class attribute (`self.RULES`), or one
imported from another module (`from policy import RULES`, `policy.RULES`). Such a prompt
lists rules when one of its strings leaves a refusing lead-in open at its end and a name
read after it holds a rule line. So:

- leadins.py: the names a prompt candidate reads after a string of it that leaves a lead-in
  open (a question of its bytes, asked by the scan's workers);
- passed.py: the names a prompt candidate's value reads that lead out of its module
  (`Agent(instructions=POLICY)`, POLICY imported; `LEAD + RULES`), by what the value's own
  text lacks: a rule line, a word of refusing, or both;
- statements.py: where a file's statements start and end, and the names their code reads;
- grown.py: where a name's value grows or is bound other than by assignment (`.append`);
- reach.py: whether those names, followed as binding's lookup follows them through the
  tree's modules, are bound by statements whose text can hold what is lacking, or glue a
  piece of a card id (`TAIL = FAMILY + "-mixx"`);
- gluing.py: whether a prompt's value may compose a card id no piece of it holds (`FAMILY +
  "-mixx"`), through what its module binds the names it reads to.
"""
