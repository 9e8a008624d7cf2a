"""The code table of DESIGN §3, with the explanations `refusal-lint rule CODE` prints."""

from __future__ import annotations

from dataclasses import dataclass

REPO = "https://github.com/upperhand/refusal-lint"
RULE_PAGES = "docs/rules"  # one page a code, generated from this table (python -m refusal_lint.rulepages)


@dataclass(frozen=True)
class Code:
    code: str
    name: str
    severity: str  # "error" | "warning"
    fixable: bool
    summary: str
    explanation: str

    def section(self, head: str) -> str:
        """The prose after `What:`, `Why:` or `Fix:` in the explanation, on one line."""
        lines: list[str] = []
        current = ""
        for line in self.explanation.splitlines():
            if line.startswith("    "):
                continue
            for h in ("What:", "Why:", "Fix:"):
                if line.startswith(h):
                    current, line = h, line[len(h) :]
            if current == head + ":":
                lines.append(line.strip())
        return " ".join(x for x in lines if x)

    @property
    def example(self) -> str:
        """The explanation's indented example, dedented."""
        return "\n".join(line[4:] for line in self.explanation.splitlines() if line.startswith("    "))

    @property
    def url(self) -> str:
        return f"{REPO}/blob/main/{RULE_PAGES}/{self.code}.md"


def _c(code: str, name: str, sev: str, summary: str, text: str, fixable: bool = False) -> Code:
    return Code(code, name, "error" if sev == "E" else "warning", fixable, summary, text.strip())


CODES: dict[str, Code] = {
    c.code: c
    for c in (
        _c(
            "RL001",
            "card-missing",
            "E",
            "guards fire kebab-form rule ids, but no card advertises the extension",
            """
What: tool code refuses with rule ids such as `refuse("seg-mix")`, but no AgentCard in the
tree declares the Refusals v1 extension.
Why: callers learn which computations are refused from the card; a refusal whose rule no
card advertises cannot be pre-filtered, and consumers cannot check it.
Fix: add the extension to the card, listing every rule the guards fire:
    "capabilities": {"extensions": [{"uri": "https://standards.upperhandai.com/ext/refusals/v1",
      "params": {"seg-mix": "Segmentation families cannot be crossed; ask for one family per cut."}}]}
""",
        ),
        _c(
            "RL002",
            "syntax-error",
            "W",
            "a Python, JSON or YAML file in scope cannot be parsed by the standard parser",
            """
What: a file that may hold a card, a prompt or a guard is rejected by the standard parser
(`ast.parse` for Python, `json` for JSON, PyYAML for YAML), or is not valid UTF-8. The
file is skipped and the run goes on.
Why: facts in that file are invisible, so other findings may be missing.
Fix: correct the syntax at the reported line, e.g. a trailing comma in JSON:
    {"seg-mix": "One family per cut.",}   ->   {"seg-mix": "One family per cut."}
""",
        ),
        _c(
            "RL003",
            "unused-suppression",
            "W",
            "a `# refusal-lint: ignore[...]` that silences nothing",
            """
What: a suppression comment whose codes match no finding on its line.
Why: stale suppressions hide future problems and mislead readers.
Fix: delete the comment, or narrow it to the code that really fires there:
    refuse(rule_for(kind))  # refusal-lint: ignore[RL304]
""",
        ),
        _c(
            "RL004",
            "agent-ambiguous",
            "E",
            "a file in scope belongs to no agent or to two",
            """
What: the tree holds several cards, and a file that yields facts (a prompt, a guard, a
card) sits under no agent root, or under two equally near ones.
Why: each agent is checked against its own card only; refusal-lint cannot guess which.
Fix: say which files belong to which agent in the config:
    agents:
      - {name: survey-analyst, card: survey/card.json, prompt: survey/prompt.md, guards: ["survey/**/*.py"]}
""",
        ),
        _c(
            "RL005",
            "file-unchecked",
            "W",
            "a valid file could not be analysed within the limits; its facts are unknown",
            """
What: the standard parser accepts the file, but refusal-lint could not analyse it within
its limits: the parser used up its CPU time (`parse-timeout`, CPU seconds per file), ran
out of memory, crashed, or met nesting deeper than it reads.
Why: whatever card, prompt or guard the file holds is invisible, so other findings may be
missing or wrong. The limits are CPU time and memory, never wall-clock time, so the same
tree gives the same findings under any load.
Fix: raise the limit if the file is worth reading, or leave it out:
    parse-timeout: 60            # in .refusal-lint.yaml
    exclude: ["tests/fixtures/huge_module.py"]
""",
        ),
        _c(
            "RL100",
            "card-unreadable",
            "E",
            "the configured card file is missing or is not valid JSON/YAML",
            """
What: the `card:` of an `agents:` entry names a file that does not exist or cannot be parsed
(the line and column where parsing stopped are given).
Why: without the card there is nothing to check the prompt and guards against.
Fix: correct the path in the config, or the file's syntax.
""",
        ),
        _c(
            "RL101",
            "extension-malformed",
            "E",
            "`uri` not a string, `required` not a boolean, entry not an object",
            """
What: the refusals extension entry is not shaped as A2A's AgentExtension.
Why: A2A clients and SDKs reject or misread such cards.
Fix: an object with a string `uri`, an optional boolean `required` and the `params` map:
    {"uri": "https://standards.upperhandai.com/ext/refusals/v1", "required": false, "params": {...}}
""",
        ),
        _c(
            "RL102",
            "uri-near-miss",
            "E",
            "an extension URI that is almost ours (`http://`, trailing `/`, `refusal/`, `v2`)",
            """
What: an extension URI that equals the Refusals v1 URI once scheme, case, a trailing slash,
`refusal`/`refusals` and the version are folded (`http://...`, `.../refusals/v1/`, `.../refusal/v1`).
Why: clients match the URI exactly; a near miss means callers never see the refusals.
Fix: use exactly https://standards.upperhandai.com/ext/refusals/v1
""",
        ),
        _c(
            "RL103",
            "params-empty",
            "E",
            "params absent, null, or `{}`",
            """
What: the extension declares no rules.
Why: the spec requires a non-empty map; an empty one advertises nothing and fails the probe.
Fix: list each rule with its one-line reason:
    "params": {"invalid-cut": "That demographic cut is not defined for this study."}
""",
        ),
        _c(
            "RL104",
            "params-not-flat",
            "E",
            "params not an object, or a value that is not a string",
            """
What: `params` is a list or a scalar, or one of its values is not a string (a nested object,
a number, null).
Why: the spec makes params a flat string-to-string map of rule id to reason.
Fix: flatten it:
    "params": {"seg-mix": {"reason": "..."}}   ->   "params": {"seg-mix": "..."}
""",
        ),
        _c(
            "RL105",
            "rule-id-not-kebab",
            "E",
            "rule id not `^[a-z0-9]+(-[a-z0-9]+)*$`",
            """
What: a rule id with capitals, underscores, spaces or doubled hyphens.
Why: the spec requires kebab-case keys; consumers and evals match them literally.
Fix: rename the key everywhere it appears: `Seg_Mix` -> `seg-mix`.
""",
        ),
        _c(
            "RL106",
            "reason-not-one-line",
            "E",
            "reason blank, or holds a line break",
            """
What: a rule's reason is empty or spans several lines.
Why: the reason is a one-line, user-facing text that clients render verbatim.
Fix: one sentence on one line: "That demographic cut is not defined for this study."
""",
        ),
        _c(
            "RL107",
            "rule-id-duplicate",
            "E",
            "the same key twice in one params object",
            """
What: a params object (JSON, YAML or a Python dict literal) repeats a key.
Why: parsers keep only the last value, silently dropping the first reason.
Fix: keep one entry per rule id (the last one is the one in effect).
""",
        ),
        _c(
            "RL108",
            "extension-duplicate",
            "E",
            "the refusals extension declared twice in one card",
            """
What: the card's extensions list holds the Refusals v1 entry twice.
Why: clients pick one at random; the two maps can drift apart.
Fix: merge both params maps into a single extension entry.
""",
        ),
        _c(
            "RL200",
            "prompt-missing",
            "E",
            "an agent with refusal rules has no prompt found or configured",
            """
What: no system prompt was found for an agent whose card advertises rules.
Why: the model must know the rules to refuse consistently with the card and guards.
Fix: set `prompt:` in the agent's config (file, file.yaml#key.path or module.py:NAME), or
keep the prompt where it is discovered (a prompt*.md file, SYSTEM_PROMPT, instruction=...).
""",
        ),
        _c(
            "RL201",
            "rule-not-in-prompt",
            "E",
            "a card rule the prompt never mentions",
            """
What: the card advertises a rule whose id appears nowhere in the agent's prompt.
Why: the model cannot refuse by a rule it was never told about.
Fix: add a rule line to the prompt:
    - invalid-cut: That demographic cut is not defined for this study.
""",
        ),
        _c(
            "RL202",
            "prompt-unknown-rule",
            "E",
            "the prompt names a rule the card does not advertise (did-you-mean)",
            """
What: a rule line (or a near miss of a card id, such as `seg_mix`) in the prompt names a
rule the card does not have. The message suggests the nearest card rule.
Why: the model will refuse with a rule no caller can look up.
Fix: rename it to the card's id, or add the rule to the card.
""",
        ),
        _c(
            "RL203",
            "prompt-reason-mismatch",
            "E",
            "a prompt rule line states another reason than the card",
            """
What: the prompt's line `seg-mix: <reason>` states a reason that differs from the card's
(white space folded).
Why: users see one wording in refusals and another in the card; evals asserting the reason fail.
Fix: `refusal-lint check --fix` rewrites the prompt's reason to the card's.
""",
            fixable=True,
        ),
        _c(
            "RL301",
            "rule-unguarded",
            "E",
            "a card rule that no guard fires",
            """
What: the card advertises a rule, but no tool-level guard ever refuses with it.
Why: the agent promises a refusal it relies on the model alone to deliver.
Fix: add a guard in the tool code:
    if cut not in DEFINED_CUTS:
        return refuse("invalid-cut", detail=f"{cut} is not a cut of this study")
""",
        ),
        _c(
            "RL302",
            "guard-unknown-rule",
            "E",
            "a guard fires a rule the card does not advertise (did-you-mean)",
            """
What: a guard refuses with a rule id that is not a key of the card's params (the message
suggests the nearest card rule).
Why: consumers must match the emitted rule against the card; an unknown rule breaks them.
Fix: use the card's id (`refuse("seg-mix")`, not `refuse("seg_mix")`), or advertise the rule.
""",
        ),
        _c(
            "RL303",
            "guard-reason-mismatch",
            "E",
            "a guard passes a literal reason other than the card's",
            """
What: a guard passes `reason="..."` that differs from the card's reason for that rule.
Why: the runtime Part must carry the advertised one-liner.
Fix: `refusal-lint check --fix` rewrites the literal; better, read it from the params map:
    refuse("seg-mix", reason=RULES["seg-mix"])
""",
            fixable=True,
        ),
        _c(
            "RL304",
            "guard-rule-unresolved",
            "W",
            "a guard's rule id cannot be resolved statically",
            """
What: the rule id is computed at run time (`refuse(pick(x))`, `refuse(f"seg-{kind}")`, a
local variable), so it cannot be checked against the card.
Why: a typo there would only show in production.
Fix: use a literal, a constant or an enum member; or suppress with
`# refusal-lint: ignore[RL304]` where the dynamism is intended.
""",
        ),
        _c(
            "RL305",
            "refusal-as-error",
            "E",
            "a refusal is raised or returned as a protocol error",
            """
What: a refusal travels in a JSON-RPC error (`JSONRPCError`, `ServerError`, `A2AError`,
`InvalidParamsError`, `HTTPException`, an `{"error": ...}` envelope).
Why: the spec makes a refused request a successful exchange: a normal result carrying a
text Part and a refusal data Part.
Fix: return the two Parts in the result instead of raising the error.
""",
        ),
        _c(
            "RL306",
            "refusal-part-malformed",
            "E",
            "a refusal payload with extra keys, no rule, or a near-miss media type",
            """
What: a refusal data payload holds keys other than rule/reason/detail, lacks `rule`, or
its Part's media type is almost `application/vnd.upperhand.refusal+json`.
Why: consumers recognise refusals by the exact media type and keys.
Fix: {"rule": "seg-mix", "reason": "...", "detail": "..."} with
media type application/vnd.upperhand.refusal+json.
""",
        ),
        _c(
            "RL400",
            "probe-unreachable",
            "E",
            "the card or the endpoint cannot be fetched",
            """
What: `refusal-lint probe` could not fetch the card (both well-known paths) or get an
answer from the agent's JSON-RPC endpoint: connection refused, an HTTP error status, a
timeout, or a body that is not JSON.
Why: nothing can be probed; the agent is down, misrouted, or not an A2A agent.
Fix: check the URL, that the agent serves /.well-known/agent-card.json, and that its
interface url answers JSON-RPC POSTs.
""",
        ),
        _c(
            "RL401",
            "refusal-as-jsonrpc-error",
            "E",
            "the envelope holds `error` instead of `result`",
            """
What: the provoked request came back as a JSON-RPC error object.
Why: the spec makes a refused request a successful exchange: a normal result carrying
the refusal Parts, never a protocol error.
Fix: return a message with the text Part and the refusal data Part instead of raising:
    {"jsonrpc": "2.0", "id": 1, "result": {"message": {"parts": [...]}}}
""",
        ),
        _c(
            "RL402",
            "refusal-not-fired",
            "E",
            "a normal answer came back where the rule should refuse",
            """
What: the message written to provoke the rule got an ordinary answer, with no refusal Part.
Why: a refused computation answered anyway is a fabricated answer, the one thing the
spec forbids outright.
Fix: make the tool-level guard fire for this request, or correct the probe message.
""",
        ),
        _c(
            "RL403",
            "text-part-missing",
            "E",
            "no text/plain Part carrying the reason",
            """
What: the refusal came with its data Part but no text Part.
Why: plain clients that ignore data Parts show nothing; the spec asks for both Parts.
Fix: emit a text Part holding the reason next to the data Part.
""",
        ),
        _c(
            "RL404",
            "data-part-malformed",
            "E",
            "no data Part with the refusal media type, or its data is not {rule, reason[, detail]}",
            """
What: the refusal's data Part is missing, carries another media type, or its data has
other keys or non-string values.
Why: consumers recognise a refusal by the media type application/vnd.upperhand.refusal+json
and read exactly rule, reason and detail.
Fix: {"data": {"rule": "seg-mix", "reason": "...", "detail": "..."},
      "mediaType": "application/vnd.upperhand.refusal+json"}
""",
        ),
        _c(
            "RL405",
            "refused-rule-unadvertised",
            "E",
            "the emitted `rule` is not a key of the card's params",
            """
What: the agent refused with a rule id its card does not advertise.
Why: consumers must find the emitted rule in the card's map; an unknown one cannot be
rendered or filtered.
Fix: emit the card's id, or add the rule to the card.
""",
        ),
        _c(
            "RL406",
            "refused-reason-mismatch",
            "E",
            "the emitted reason (or the text Part) is not the advertised one-liner",
            """
What: the data Part's `reason`, or the text Part, says something other than the card's
reason for the emitted rule.
Why: the reason is the advertised one-liner; callers and evals compare it verbatim.
Fix: read the reason from the card's params map when building both Parts.
""",
        ),
        _c(
            "RL407",
            "refusal-mixed-with-content",
            "E",
            "other Parts sit beside the refusal Parts",
            """
What: besides the refusal's text and data Parts, the answer holds other text, data or
file Parts.
Why: the refusal Parts must replace the result entirely; anything beside them is an
answer the agent said it would not give.
Fix: return only the two refusal Parts.
""",
        ),
        _c(
            "RL408",
            "media-type-untransported",
            "W",
            "a v0.3 agent: data Parts carry no media type",
            """
What: the agent was probed over A2A v0.3, where data Parts have no media type, so the
refusal Part was recognised by its keys.
Why: consumers on v0.3 cannot tell a refusal from other data by its type.
Fix: serve A2A v1.0 (the a2a-sdk serves both on one endpoint), or put the media type in
the Part's metadata.
""",
        ),
    )
}


def expand(patterns: list[str]) -> set[str]:
    """Codes named by `patterns`: full codes or prefixes (`RL3`, `RL30`, `ALL`)."""
    out: set[str] = set()
    for pattern in patterns:
        pat = pattern.strip().upper()
        if pat == "ALL":
            out |= set(CODES)
            continue
        hits = {c for c in CODES if c.startswith(pat)} if pat else set()
        if not hits:
            raise KeyError(pattern)
        out |= hits
    return out
