/*
 * json_gfp.h: a decoded gfp mask as JSON (json_gfp.c).
 */
#ifndef SLUBLAB_SERVER_PRESENT_JSON_GFP_H
#define SLUBLAB_SERVER_PRESENT_JSON_GFP_H

#include <cjson/cJSON.h>

#include "slub.h"

/* The decoding @d of a machine configured as @cfg, asked in @context
 * (enum sim_gfp_context).  NULL on host OOM. */
cJSON *json_gfp_decoding(const struct sim_gfp_decoding *d, const struct sim_config *cfg,
                         unsigned context);

#endif /* SLUBLAB_SERVER_PRESENT_JSON_GFP_H */
