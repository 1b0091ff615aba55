/*
 * run_state.h: what a scenario run's build leaves besides its machine, as
 * bytes: the op log, the timeline, the replay's names, aliases, name spans,
 * expects and warnings, and the races it ran.
 *
 * The build keeps them as the extra of the stored image at the end of
 * batch 0 (ckpt_disk.h), and the same run built again (after an eviction
 * or a restart, on this server or another on the same store) loads that
 * image and these instead of replaying the scenario from its first
 * operation (session.c).  The bytes are the server's own, in its byte
 * order; the image they go with is keyed by the engine's image tag.
 */
#ifndef SLUBLAB_SERVER_SESSION_RUN_STATE_H
#define SLUBLAB_SERVER_SESSION_RUN_STATE_H

#include <stddef.h>

#include "session/session.h"

/* The state of @r, built to the end of batch 0, into a malloc()ed *out of
 * *len bytes.  0, -EINVAL (a log with a tier: a trace's) or -ENOMEM. */
int run_state_save(const struct session_run *r, unsigned char **out, size_t *len);
/* Put a saved state into @r, whose head is replay_init()ed and has run no
 * operation: all of it or nothing.  The state must end where its image is
 * (@seq events, @op operations, the log @off bytes long).  0, -EINVAL
 * (bytes that do not read back, or another position) or -ENOMEM. */
int run_state_load(struct session_run *r, const unsigned char *data, size_t len, uint64_t seq,
                   uint64_t op, size_t off);

#endif /* SLUBLAB_SERVER_SESSION_RUN_STATE_H */
