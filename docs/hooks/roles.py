"""MkDocs hook: the reST roles the docstrings use (``:func:`ratings```, ``:class:`~a.b.C```)
shown as code, as ``help()`` readers see them named: the role word dropped, and a ``~`` path
cut to its last name, as Sphinx would show it."""

from __future__ import annotations

import re
from typing import Any

ROLE = re.compile(r":(?:func|class|meth|attr|data|mod|exc):(?=<code>)")
SHORT = re.compile(r"<code>~(?:[\w]+\.)*([\w]+)</code>")


def on_page_content(html: str, **_: Any) -> str:
    """The page's HTML with each role as its plain code name."""
    return SHORT.sub(r"<code>\1</code>", ROLE.sub("", html))
