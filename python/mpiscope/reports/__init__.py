"""Showing result documents: the text report, the HTML report, comparisons,
exports and the figures (:mod:`mpiscope.reports.plots`). Reads the result
model only; never launches anything.
"""
