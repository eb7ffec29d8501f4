"""The Alltoall lab around the engine's algorithms (src/alltoall): the
catalogue of lab and native algorithms (:mod:`.catalogue`), Hockney models
fitted per protocol regime (:mod:`.models`), PLP's leader rule
(:mod:`.plp`), the comparison document (:mod:`.compare`), tuning files
for MPICH and Open MPI and the proof that the library follows them
(:mod:`.tune`), text tables (:mod:`.text`), figures (:mod:`.plots`) and the
HTML section (:mod:`.html`).

The commands that launch (``mpiscope alltoall ...``) live in
mpiscope/commands/alltoall.py; nothing here starts a process except the
tuning proof, through a callable the command passes in.
"""
