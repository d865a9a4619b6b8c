/*
 * versions.h — release numbers, in one place: Python's order of package
 * versions (PEP 440), which Megatron's checks compare (pyexpr's
 * is_te_min_version, rules-mcheck.c), and the reading of a release name
 * that the tables of Megatron-LM's versions (config/mflags.c) and of
 * Megatron-Bridge's releases (config/config.c) share: a "v" or "core_v"
 * in front, MAJOR.MINOR[.PATCH].  Those tables stay with their modules;
 * this unit knows only how a release is written.
 */
#ifndef MCINIT_VERSIONS_H
#define MCINIT_VERSIONS_H

#include <stdbool.h>

/* s past the "v" of a git tag ("v0.19.2"), or past TAG followed by "v"
 * ("core_v0.19.2" with TAG "core_") when tag is not NULL; s itself when it
 * has neither. */
const char *mcinit_version_skip_v(const char *s, const char *tag);

/* A release number as pip shows it, "MAJOR.MINOR" or "MAJOR.MINOR.PATCH"
 * (PATCH digits only): 0 with *major and *minor, -1 when s is none.  Each
 * of MAJOR and MINOR is read as scanf's %d reads it (blanks and a sign
 * before it are taken). */
int mcinit_version_major_minor(const char *s, int *major, int *minor);

/* Whether s names `release` or a release under it: release itself, or
 * release followed by '.' and anything ("0.6.2" is under "0.6"). */
bool mcinit_version_under(const char *s, const char *release);

/* Package versions as Python's packaging orders them (PEP 440: release
 * numbers, then .devN < aN < bN < rcN < the release < .postN; a "+local"
 * part is ignored; "2.6.0dev0" and "2.6.0.dev0" are one).  Sets *cmp to
 * <0, 0 or >0 and returns 0, or returns -1 when a or b is not a version. */
int mcinit_version_cmp(const char *a, const char *b, int *cmp);

#endif
