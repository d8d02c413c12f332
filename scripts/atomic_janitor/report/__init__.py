"""Report formats, each rendered from the findings.json document alone."""

import os

from ..atomicio import write_text


def render_all(doc, outdir, formats):
    from . import html, sarif, summary
    if "summary" in formats:
        write_text(os.path.join(outdir, "summary.txt"), summary.render(doc))
    if "sarif" in formats:
        write_text(os.path.join(outdir, "findings.sarif"), sarif.render(doc))
    if "html" in formats:
        write_text(os.path.join(outdir, "index.html"), html.render(doc))
