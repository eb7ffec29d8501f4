/* trace_pack.h (internal): a full half as a THRC block (pack.c). */
#ifndef MPISCOPE_TRACE_PACK_H
#define MPISCOPE_TRACE_PACK_H

#include <stddef.h>
#include <stdint.h>
#include "trace_record.h"

/* Distinct records (after their stamps) a THRC block may hold. */
#define MPISCOPE__TRACE_PACK_TEMPLATES 4096u

/* Bytes a thread needs to pack a half of `capacity` records (the block
 * and the packer's scratch). */
size_t mpiscope__trace_pack_room(uint64_t capacity);

/* Pack records r[0..n) of thread `index`, sequence numbers from `first`,
 * into `room` (mpiscope__trace_pack_room(capacity) bytes, 8-aligned) as a
 * whole THRC chunk, header included: its bytes, or 0 when the block is to
 * stay raw (too varied, or no smaller). Reads the records only. */
size_t mpiscope__trace_pack(char *room, uint64_t capacity, const mpiscope_trace_record_t *r, uint64_t n, unsigned index,
                            uint64_t first);

#endif
