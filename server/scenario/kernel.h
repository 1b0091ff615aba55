/*
 * kernel.h: the kernel release a run models, chosen from a "kernel" and a
 * "model" (see kernel.c and docs/scenario-format.md, "kernel, model and
 * variants").
 */
#ifndef SLUBLAB_SERVER_SCENARIO_KERNEL_H
#define SLUBLAB_SERVER_SCENARIO_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "slub.h"

/*
 * Set @cfg's model, era and variants from @kernel ("X.Y" or "X.Y.Z": a
 * release of the table) and/or @model ("sheaves", "legacy:ERA", or a
 * release's name as a model).  Both NULL: the newest release, the lab's
 * default.  A kernel with a model is the kernel's release, and the model must
 * agree with it.  Variants whose bit is set in @keep (explicit variants of a
 * scenario) keep their value in @cfg.  Returns 0, or -EINVAL with why in @msg.
 */
int kernel_choose(const char *kernel, const char *model, uint32_t keep, struct sim_config *cfg,
                  char *msg, size_t len);
/*
 * The release of @cfg in words for outputs: "7.3", or "7.3 with
 * BARN_REFILL=after" when variants were changed from the release's row;
 * "" when @cfg names no release.  Returns the length.
 */
size_t kernel_describe(const struct sim_config *cfg, char *buf, size_t len);

#endif
