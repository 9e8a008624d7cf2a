"""The formats CI systems read beside a job: annotations (GitHub, Azure), GitLab Code
Quality, reviewdog's rdjson, JUnit XML. Each is `render(report) -> str` like every format."""
