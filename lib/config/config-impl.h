/*
 * config-impl.h — PRIVATE to the files of the configuration model's core
 * (config.c, config-fields.c, config-types.c, config-values.c,
 * config-defaults.c, bversions.c): not to be included by any other file,
 * which uses config.h.  It holds what one of these files provides to
 * another and config.h does not declare (mcinit_config_*: extern only
 * because the model spans several files; the library is built with
 * -fvisibility=hidden, so none is exported).
 */
#ifndef MCINIT_CONFIG_IMPL_H
#define MCINIT_CONFIG_IMPL_H

#include "config/config.h"

/* A schema type text ("int|list[str]|null") into *t (config-types.c); a
 * text it cannot parse leaves *t with no alternative, which accepts
 * nothing.  mcinit_type_check (config-values.c) parses a type it is given. */
void mcinit_config_parse_type(const char *text, struct mcinit_type *t);

#endif
