"""An mpi4py program (no mpiscope inside) for `mpiscope trace`: a ring of
pickled messages, a nonblocking exchange and a reduction.

    mpiscope trace --np 2 -o ring.trace python examples/trace/ring_mpi4py.py
"""

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
right, left = (rank + 1) % size, (rank - 1) % size
token = comm.sendrecv({"from": rank}, dest=right, source=left)
request = comm.isend(b"x" * 1000, dest=right, tag=5)
payload = comm.recv(source=left, tag=5)
request.wait()
total = comm.allreduce(rank)
if rank == 0:
    print(f"ring_mpi4py: {size} ranks, token from {token['from']}, {len(payload)} bytes, "
          f"sum {total}")
