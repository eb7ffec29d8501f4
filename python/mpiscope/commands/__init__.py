"""One module per ``mpiscope`` subcommand, registered in :mod:`mpiscope.cli`.

A command parses its arguments, calls the libraries (:mod:`mpiscope.measure`,
:mod:`mpiscope.reports`, :mod:`mpiscope.trace`, ...) and prints; it never
imports another command (tests/python/test_layers.py checks it). Each has
``add_parser(commands)`` and keeps its heavy imports inside its handler.
"""
