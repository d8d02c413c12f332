"""Report formats, each rendered from the findings.json document alone."""

import os

from ..atomicio import write_text


def render_html(doc, outdir, patch_links=None):
    from . import html
    write_text(os.path.join(outdir, "index.html"), html.render(doc, patch_links))


def render_all(doc, outdir, formats, patch_links=None):
    from . import sarif, summary
    if "summary" in formats:
        write_text(os.path.join(outdir, "summary.txt"), summary.render(doc))
    if "sarif" in formats:
        write_text(os.path.join(outdir, "findings.sarif"), sarif.render(doc))
    if "html" in formats:
        render_html(doc, outdir, patch_links)
