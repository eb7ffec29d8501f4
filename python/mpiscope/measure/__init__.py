"""Measuring: the plan of a run, the operation catalogue, timing methods and
operation options, sizes, launching mpiscope-bench and merging its runs.

Nothing here renders a report: the commands pass their renderer in.
"""
