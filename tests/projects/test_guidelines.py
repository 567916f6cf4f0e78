"""negviz.projects.guidelines: a project's guidelines rendered as Markdown without HTML, scripts or images."""

from __future__ import annotations

import re

from negviz.projects.guidelines import safe_markdown


def test_guidelines_render_without_html_scripts_or_images():
    text = (
        "# Rules\n\n<script>alert(1)</script> <img src=x onerror=alert(2)>\n\n"
        "![tracker](https://example.com/t.png) [ok](https://example.com/rules) "
        "[bad](javascript:alert(3)) [data](data:text/html,hi) [rel](other-page)\n\n**bold** & more"
    )
    safe = safe_markdown(text)
    assert "<script" not in safe and "<img" not in safe and "&lt;script>" in safe
    assert not re.search(r"(?<!\\)!\[", safe) and "\\![tracker](https://example.com/t.png)" in safe
    assert "[ok](https://example.com/rules)" in safe and "[rel](other-page)" in safe
    assert "javascript:" not in safe and "data:text" not in safe and "[bad](#) [data](#) " in safe
    assert "**bold** &amp; more" in safe
