"""The agreement matrix: per agent, rule x (card, prompt, guards). Pure: a report's agents and
findings in; the `refusal-lint matrix` formats (text, markdown, json) out, each a
`render_*(report)` that formats.FORMATS names."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from refusal_lint.core.model import Finding, Loc
from refusal_lint.report.base import Report, dumps, shown
from refusal_lint.report.jsonout import prompt_entries
from refusal_lint.static.bind.agent import Agent
from refusal_lint.static.checks.guards import RL302, RL303
from refusal_lint.static.checks.prompt import RL202, RL203, mention_lines

MISSING = "✗ missing"
NOT_ADVERTISED = "✗ not advertised"
DRIFT = "≠ reason"  # the prompt (RL203) or a guard (RL303) states another reason than the card


@dataclass(frozen=True)
class Row:
    rule_id: str
    card: tuple[Loc, ...]  # empty: not advertised
    prompt: tuple[Loc, ...]
    guards: tuple[Loc, ...]
    derived: bool = False
    prompt_drift: bool = False  # RL203 for this rule
    guard_drift: bool = False  # RL303 for this rule


def rows(agent: Agent, findings: Sequence[Finding]) -> list[Row]:
    out: list[Row] = []
    card_ids: set[str] = set()
    drift = {
        (f.rule_id, f.code) for f in findings if f.agent == agent.name and f.code in (RL203.code, RL303.code)
    }
    if agent.card is not None:
        for r in agent.card.rules:
            card_ids.add(r.rule_id)
            derived = any(p.derived for p in agent.prompts)
            prompt = tuple(loc for loc in mention_lines(agent.prompts, r.rule_id))
            guards = agent.fired_at(r.rule_id)
            out.append(
                Row(
                    r.rule_id,
                    (r.loc,),
                    prompt,
                    guards,
                    derived,
                    prompt_drift=(r.rule_id, RL203.code) in drift,
                    guard_drift=(r.rule_id, RL303.code) in drift,
                )
            )
    unknown: dict[str, tuple[list[Loc], list[Loc]]] = {}
    for f in findings:
        if (
            f.agent == agent.name
            and f.rule_id
            and f.rule_id not in card_ids
            and f.code in (RL202.code, RL302.code)
        ):
            prompt_locs, guard_locs = unknown.setdefault(f.rule_id, ([], []))
            (prompt_locs if f.code == RL202.code else guard_locs).append(f.loc)
    for rid, (prompt_locs, guard_locs) in sorted(unknown.items()):
        out.append(Row(rid, (), tuple(prompt_locs), tuple(guard_locs)))
    return out


def _cell(locs: tuple[Loc, ...], empty: str, limit: int = 3) -> str:
    if not locs:
        return empty
    listed = [f"{loc.path}:{loc.line}" for loc in locs[:limit]]
    more = f" (+{len(locs) - limit} more)" if len(locs) > limit else ""
    return ", ".join(listed) + more


def _cells(row: Row) -> tuple[str, str, str, str]:
    prompt = "derived" if row.derived and row.card else _cell(row.prompt, MISSING)
    guards = _cell(row.guards, MISSING)
    if row.prompt_drift:
        prompt += f" {DRIFT}"
    if row.guard_drift:
        guards += f" {DRIFT}"
    return row.rule_id, _cell(row.card, NOT_ADVERTISED), prompt, guards


def prompts_found(agent: Agent, limit: int = 4) -> str:
    """Where the agent's prompt candidates were found, and how (DESIGN §2's prompt table)."""
    if not agent.prompts:
        return "none found: point `prompt:` in the config at it"
    listed = [f"{p.loc.path}:{p.loc.line} ({p.form})" for p in agent.prompts[:limit]]
    more = f" (+{len(agent.prompts) - limit} more)" if len(agent.prompts) > limit else ""
    return ", ".join(listed) + more


def render_text(report: Report) -> str:
    findings = report.findings
    out: list[str] = []
    for agent in report.agents:
        card = f" ({agent.card.loc.path}:{agent.card.loc.line})" if agent.card else ""
        out.append(f"agent {agent.name}{card}")
        out.append(f"  prompt found in: {prompts_found(agent)}")
        table = [("rule", "card", "prompt", "guards"), *(_cells(r) for r in rows(agent, findings))]
        widths = [max(len(r[i]) for r in table) for i in range(4)]
        for i, r in enumerate(table):
            out.append("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
            if i == 0:
                out.append("  " + "  ".join("-" * w for w in widths))
        out.append("")
    return "\n".join(map(shown, out)) if out else "no agent found\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown(report: Report) -> str:
    out: list[str] = []
    for agent in report.agents:
        card = f" — card `{agent.card.loc.path}:{agent.card.loc.line}`" if agent.card else ""
        out += [
            f"### Agent `{_md(agent.name)}`{card}",
            "",
            f"Prompt found in: {_md(prompts_found(agent))}",
            "",
            "| rule | card | prompt | guards |",
            "|---|---|---|---|",
        ]
        for r in rows(agent, report.findings):
            rid, card_cell, prompt, guards = _cells(r)
            out.append(f"| `{_md(rid)}` | {_md(card_cell)} | {_md(prompt)} | {_md(guards)} |")
        out.append("")
    return "\n".join(map(shown, out)) if out else "No agent found.\n"


def as_json(agents: Sequence[Agent], findings: Sequence[Finding]) -> list[dict[str, object]]:
    def locs(items: tuple[Loc, ...]) -> list[dict[str, object]]:
        return [loc.at() for loc in items]

    return [
        {
            "name": a.name,
            "prompts": prompt_entries(a),
            "rules": [
                {
                    "rule": r.rule_id,
                    "advertised": bool(r.card),
                    "card": locs(r.card),
                    "prompt": "derived" if r.derived and r.card else locs(r.prompt),
                    "guards": locs(r.guards),
                    "reason_drift": {"prompt": r.prompt_drift, "guards": r.guard_drift},
                }
                for r in rows(a, findings)
            ],
        }
        for a in agents
    ]


def render_json(report: Report) -> str:
    doc = {"agents": as_json(report.agents, report.findings)}
    return dumps(doc)
