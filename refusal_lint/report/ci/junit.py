"""JUnit XML: one test case per finding, one test suite per file, as test-report viewers
(Jenkins, GitLab, Azure) expect; a clean run is one passing case."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import TYPE_CHECKING
from xml.etree import ElementTree as ET

from refusal_lint.codes import CODES
from refusal_lint.core.model import TOOL
from refusal_lint.report.base import code_point, coded, tagged

if TYPE_CHECKING:
    from refusal_lint.core.model import Finding
    from refusal_lint.report.base import Report


# What XML 1.0 cannot hold at all, even as a character reference (a control byte in a prompt
# reason): written as its escape, so that the report stays well-formed.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def render(report: Report) -> str:
    findings = report.findings
    by_file: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        by_file[f.loc.path].append(f)
    root = ET.Element("testsuites", name=TOOL, tests=str(max(1, len(findings))), failures=str(len(findings)))
    if not findings:
        suite = ET.SubElement(root, "testsuite", name=TOOL, tests="1", failures="0", errors="0")
        ET.SubElement(suite, "testcase", name="refusals agree", classname=TOOL)
    for path, items in by_file.items():
        suite = ET.SubElement(
            root, "testsuite", name=path, tests=str(len(items)), failures=str(len(items)), errors="0"
        )
        for f in items:
            code = CODES[f.code]
            where = f"at line {f.loc.line}, column {f.loc.col}"
            case = ET.SubElement(
                suite,
                "testcase",
                name=f"{f.code} {tagged(f, where)}",
                classname=path,
                file=path,
                line=str(f.loc.line),
            )
            failure = ET.SubElement(
                case, "failure", message=f.message, type=f"{f.code} {code.name} ({code.severity})"
            )
            failure.text = f"{path}:{f.loc.line}:{f.loc.col}: {coded(f)}\n{code.url}"
    ET.indent(root)
    xml = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + _NOT_XML.sub(code_point, xml) + "\n"
