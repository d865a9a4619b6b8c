/* yamldl.h — libyaml's API, with libyaml opened at its first use: only a
 * YAML input needs it, and linked it cost every other process (JSON
 * configs, flag lists, explain, --version) its loading and relocation
 * before main.  The same scheme as topo/hwlocdl.h: include this header
 * instead of <yaml.h>; each libyaml function yamltree.c calls is renamed,
 * before <yaml.h> declares it, to a trampoline of the same prototype
 * (yamldl.c). */
#ifndef MCINIT_YAMLDL_H
#define MCINIT_YAMLDL_H

#include "core/util.h"

#define yaml_event_delete            mcinit_dl_yaml_event_delete
#define yaml_parser_delete           mcinit_dl_yaml_parser_delete
#define yaml_parser_initialize       mcinit_dl_yaml_parser_initialize
#define yaml_parser_parse            mcinit_dl_yaml_parser_parse
#define yaml_parser_set_input_string mcinit_dl_yaml_parser_set_input_string

#include <yaml.h>

/* Opens libyaml (configure's MCINIT_YAML_SONAME: $MCINIT_YAML_LIBRARY alone
 * when set, else by the loader's path, then libyaml's libdir) and resolves
 * the functions above: 0, or -1 with err MCINIT_E_UNAVAILABLE saying what
 * is missing.  The first call decides for the process; the trampolines are
 * called only after one succeeded. */
int mcinit_yaml_open(struct mcinit_err *err);

#endif
