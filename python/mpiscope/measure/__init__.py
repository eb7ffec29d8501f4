"""Measuring: the plan of a run, the operation catalogue, timing methods and
operation options, sizes, launching mpiscope-bench and merging its launches.

Nothing here renders a report: the commands pass their renderer in.
"""
