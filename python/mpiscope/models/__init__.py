"""Communication performance models (docs/models.md): fitted from measured
points, predicting collectives, calibrating the simulator.

Pure computation, no I/O beyond the model document: :mod:`.hockney`
(piecewise, breakpoints from the data), :mod:`.loggp` (Netgauge's PRTT
procedure), :mod:`.plogp` (Kielmann's), :mod:`.lmo` (MPIBlib's one-to-two
experiments), :mod:`.collectives` (costs by name), :mod:`.platform` (a
SimGrid platform calibrated from a model). numpy is not needed.
"""
