/* pattern.h (internal to src/ops): the data the validate hooks of the
 * data-movement ops write and check. Byte k of the data of message
 * `block` that rank `from` sends in launch `launch` has a value that
 * depends on all four, and is never the poison byte that receive buffers
 * hold before a launch: a message that did not arrive, arrived from the
 * wrong rank or block, or is left over from an earlier launch shows. */
#ifndef MPISCOPE_OPS_PATTERN_H
#define MPISCOPE_OPS_PATTERN_H

#include <stddef.h>
#include "layout.h"
#include "mpiscope/op.h"

#define MPISCOPE__POISON 0x5A

/* The value of data byte k (never MPISCOPE__POISON). */
unsigned char mpiscope__pattern_byte(int from, size_t block, size_t launch, size_t k);

/* Write the data of one message into its span at buf; gaps are left alone. */
void mpiscope__pattern_fill(void *buf, const mpiscope__layout_t *layout, int from, size_t block, size_t launch);

/* Check one received message at buf: its data as written by
 * mpiscope__pattern_fill(from, block, ctx->launch) and its gaps still
 * poisoned; from < 0: nothing may have arrived (all poison). On the first
 * difference reports it with mpiscope_op_ctx_mismatch() naming `what` and
 * `index` ("recv block 2 byte 17: ...") and returns MPISCOPE_EVALIDATE. */
int mpiscope__pattern_check(mpiscope_op_ctx_t *ctx, const void *buf, const mpiscope__layout_t *layout, int from,
                            size_t block, const char *what, size_t index);

/* The same for `n` consecutive messages, span_bytes apart, all from one
 * rank and block (the receive windows of the bandwidth ops). */
int mpiscope__pattern_check_each(mpiscope_op_ctx_t *ctx, const void *buf, const mpiscope__layout_t *layout, size_t n,
                                 int from, size_t block);

#endif
