# Smoke test: Sphinx builds a two-page reStructuredText project to HTML (docutils parses it,
# Jinja2 renders the theme): Jinja2 2.11.3 under MarkupSafe 3 fails here (`import jinja2`:
# cannot import name 'soft_unicode'), as does a docutils release the Sphinx release cannot drive.
import os
import sys
import tempfile
from importlib.metadata import version

from sphinx.cmd.build import build_main

with tempfile.TemporaryDirectory(prefix="planner-smoke-sphinx-") as tmp:
    src, out = os.path.join(tmp, "src"), os.path.join(tmp, "out")
    os.mkdir(src)
    with open(os.path.join(src, "conf.py"), "w") as f:
        f.write("project = 'planner smoke'\nextensions = ['sphinx.ext.autodoc']\n")
    with open(os.path.join(src, "index.rst"), "w") as f:
        f.write(
            "Smoke\n=====\n\n.. toctree::\n\n   other\n\nA *paragraph* with ``code``.\n\n"
            ".. note:: A directive.\n\n.. autofunction:: os.path.join\n"
        )
    with open(os.path.join(src, "other.rst"), "w") as f:
        f.write("Other\n=====\n\n- a list\n- :ref:`genindex`\n")
    code = build_main(["-q", "-b", "html", src, out])
    if code != 0:
        sys.exit("sphinx-build exited %d" % code)
    html = open(os.path.join(out, "index.html"), encoding="utf-8").read()
    assert "A directive." in html and "paragraph" in html, "the page lacks its text"
print(
    "Sphinx %s with docutils %s and Jinja2 %s: a two-page HTML build"
    % (version("sphinx"), version("docutils"), version("jinja2"))
)
