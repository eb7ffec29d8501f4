"""The one skeleton of every HTML page mpiscope writes (the run report,
noise, health, Alltoall, models, the trace timeline and heat map): each
page is self-contained, UTF-8, sized for phones as for screens, and
escapes what it shows with :func:`escape`."""

from __future__ import annotations

import html

__all__ = ["escape", "page"]


def escape(value: object) -> str:
    """``value`` as HTML text or attribute value."""
    return html.escape(str(value), quote=True)


def page(title: str, body: str, style: str = "", heading: str | None = None) -> str:
    """A whole page: ``title`` in the tab, ``style`` (CSS) in the head, an
    ``<h1>`` of ``heading`` when given, then ``body`` (HTML, as is)."""
    top = f"<h1>{escape(heading)}</h1>\n" if heading else ""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title>\n<style>\n{style}\n</style></head><body>\n"
        f"{top}{body}\n</body></html>\n"
    )
