/* Unit tests: the versions unit (lib/core/versions.c) and the two tables
 * that read release names through it, Megatron-LM's versions
 * (mcinit_mversion_parse) and Megatron-Bridge's releases
 * (mcinit_bversion_parse).  They pin the forms each accepts and refuses
 * today, oddities included, so that a change to one is deliberate. */
#include <criterion/criterion.h>
#include <string.h>

#include "config/config.h"
#include "config/mflags.h"
#include "core/versions.h"

/* Pairs ordered as Python's packaging.version.Version orders them. */
Test(versions, order_as_packaging)
{
	static const struct {
		const char *a, *b;
		int want;
	} v[] = {
	    {"2.7.0.dev0", "2.7.0a0", -1},
	    {"2.7.0a0", "2.7.0b1", -1},
	    {"2.7.0rc1", "2.7.0", -1},
	    {"2.7.0", "2.7.0.post1", -1},
	    {"2.10", "2.9.0", 1},
	    {"2.6.0dev0", "2.6.0.dev0", 0},
	    {"1.10.0a0", "1.10.0", -1},
	    {"2.3.0.dev0+39c0e70", "2.3.0", -1},
	    {"2", "2.0.0", 0},
	    {"2.14", "2.14.0", 0},
	    {"0.0.0", "1.7.0.dev0", -1},
	    {"2.11.0a0", "2.11.0.dev20250101", 1},
	    {"2.10", "2.9", 1},
	    {"10.0", "9.99", 1},
	    {"1.0.1", "1.0", 1},
	    {"1.0", "1.0.0.0", 0},
	    {"1.0rc1", "1.0", -1},
	    {"1.0rc2", "1.0rc10", -1},
	    {"1.0a1.dev0", "1.0a1", -1},
	    {"1.0.post1", "1.0.post2", -1},
	    {"1.0.post1.dev0", "1.0.post1", -1},
	    {"1.0.dev0", "1.0.dev1", -1},
	    {"1.0-rc1", "1.0rc1", 0},
	    {"1.0_post1", "1.0.post1", 0},
	    {"1.0.post", "1.0.post0", 0},
	    {"1.0.dev", "1.0.dev0", 0},
	    {"v2.0", "2.0", 0},
	    {"2.0+cu121", "2.0", 0},
	    {"1.0+", "1.0", 0},
	    {"1.2.3.4.5.6.7.8", "1.2.3.4.5.6.7", 1},
	};
	size_t i;
	int c;

	for (i = 0; i < sizeof v / sizeof v[0]; i++) {
		cr_assert_eq(mcinit_version_cmp(v[i].a, v[i].b, &c), 0, "%s", v[i].a);
		cr_expect_eq((c > 0) - (c < 0), v[i].want, "%s vs %s", v[i].a, v[i].b);
		cr_assert_eq(mcinit_version_cmp(v[i].b, v[i].a, &c), 0, "%s", v[i].b);
		cr_expect_eq((c > 0) - (c < 0), -v[i].want, "%s vs %s", v[i].b, v[i].a);
	}
	cr_expect_eq(mcinit_version_cmp("abc", "2.0", &c), -1);
	cr_expect_eq(mcinit_version_cmp("2.0x", "2.0", &c), -1);
	cr_expect_eq(mcinit_version_cmp("", "2.0", &c), -1);
}

/* What is no version: mcinit_version_cmp refuses either side. */
Test(versions, refuses_what_is_no_version)
{
	static const char *const bad[] = {
	    "v",           "1..0",
	    ".1",          "-1.0",
	    "1.0rc",       "1.0c1",
	    "1.0a1b2",     "1.0.x",
	    "1.0.post1a1", "1.0.dev1.post1",
	    "1.0-1",       "1.0 ",
	    " 1.0",        "1.2.3.4.5.6.7.8.9", /* more release numbers than kept */
	};
	size_t i;
	int c;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cr_expect_eq(mcinit_version_cmp(bad[i], "1.0", &c), -1, "%s", bad[i]);
		cr_expect_eq(mcinit_version_cmp("1.0", bad[i], &c), -1, "%s", bad[i]);
	}
}

Test(versions, skip_v)
{
	cr_expect_str_eq(mcinit_version_skip_v("v0.19.2", NULL), "0.19.2");
	cr_expect_str_eq(mcinit_version_skip_v("vmain", NULL), "main");
	cr_expect_str_eq(mcinit_version_skip_v("0.6", NULL), "0.6");
	cr_expect_str_eq(mcinit_version_skip_v("core_v0.19.2", NULL), "core_v0.19.2");
	cr_expect_str_eq(mcinit_version_skip_v("core_v0.19.2", "core_"), "0.19.2");
	cr_expect_str_eq(mcinit_version_skip_v("v0.19.2", "core_"), "0.19.2");
	cr_expect_str_eq(mcinit_version_skip_v("core_r0.15", "core_"), "core_r0.15");
	cr_expect_str_eq(mcinit_version_skip_v("core_0.15", "core_"), "core_0.15");
	/* one prefix, once */
	cr_expect_str_eq(mcinit_version_skip_v("vv1", NULL), "v1");
	cr_expect_str_eq(mcinit_version_skip_v("vcore_v1", "core_"), "core_v1");
	cr_expect_str_eq(mcinit_version_skip_v("", "core_"), "");
}

Test(versions, major_minor)
{
	static const struct {
		const char *s;
		int major, minor;
	} ok[] = {
	    {"0.19", 0, 19},
	    {"0.19.2", 0, 19},
	    {"1.10.0", 1, 10},
	    {"12.345.6789", 12, 345},
	    /* scanf's %d: blanks, a sign and leading zeros are taken */
	    {" 0.19", 0, 19},
	    {"+0.19", 0, 19},
	    {"00.019", 0, 19},
	    {"0. 19", 0, 19},
	};
	static const char *const bad[] = {"0.19.",   "0.19.2.1", "0.19.x", "0.19rc1", "0.19 ",
	                                  "0.19.2 ", "0",        "0.",     "r0.19",   "v0.19",
	                                  "main",    "",         ".19",    "0..19"};
	size_t i;
	int major, minor;

	for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		cr_assert_eq(mcinit_version_major_minor(ok[i].s, &major, &minor), 0, "%s", ok[i].s);
		cr_expect_eq(major, ok[i].major, "%s", ok[i].s);
		cr_expect_eq(minor, ok[i].minor, "%s", ok[i].s);
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_expect_eq(mcinit_version_major_minor(bad[i], &major, &minor), -1, "%s", bad[i]);
}

Test(versions, under)
{
	cr_expect(mcinit_version_under("0.6", "0.6"));
	cr_expect(mcinit_version_under("0.6.2", "0.6"));
	cr_expect(mcinit_version_under("0.6.", "0.6"));
	cr_expect(mcinit_version_under("0.6.x", "0.6")); /* anything after the dot */
	cr_expect(mcinit_version_under("main", "main"));
	cr_expect(mcinit_version_under("main.1", "main"));
	cr_expect_not(mcinit_version_under("0.60", "0.6"));
	cr_expect_not(mcinit_version_under("0.6rc1", "0.6"));
	cr_expect_not(mcinit_version_under("0", "0.6"));
	cr_expect_not(mcinit_version_under("", "0.6"));
	cr_expect_not(mcinit_version_under(" 0.6", "0.6"));
	cr_expect_not(mcinit_version_under("v0.6", "0.6"));
}

/* Megatron-LM: a release number reads as the newest of its major.minor
 * known; names and branches read as themselves. */
Test(versions, megatron_versions)
{
	static const struct {
		const char *s, *name;
	} ok[] = {
	    {"0.19.2", "r0.19"},     {"v0.19.2", "r0.19"},   {"core_v0.19.2", "r0.19"},
	    {"0.19", "r0.19"},       {"v0.19", "r0.19"},     {"core_v0.19", "r0.19"},
	    {"0.15.0", "r0.15"},     {"0.17", "r0.17"},      {"r0.17", "r0.17"},
	    {"core_r0.17", "r0.17"}, {"main", "main"},       {"vr0.16", "r0.16"},
	    {"vmain", "main"},       {"core_vmain", "main"}, {" 0.19", "r0.19"},
	    {"00.019.2", "r0.19"},
	};
	static const char *const bad[] = {
	    "0.14",        "0.14.0", "0.19.2.1", "0.19.", "0.19.x",    "0.19rc1",
	    "core_0.19.2", "core_v", "core_",    "r0.14", "",          "v",
	    "1.0",         "0.19 ",  "r0.19.2",  "Main",  "core_main",
	};
	size_t i;
	unsigned v;

	for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		cr_assert_eq(mcinit_mversion_parse(ok[i].s, &v), 0, "%s", ok[i].s);
		cr_expect_str_eq(mcinit_mversion_name(v), ok[i].name, "%s", ok[i].s);
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_expect_eq(mcinit_mversion_parse(bad[i], &v), -1, "%s", bad[i]);
}

/* Megatron-Bridge: a release and whatever follows it after a dot. */
Test(versions, bridge_releases)
{
	static const struct {
		const char *s, *name;
	} ok[] = {
	    {"0.6", "0.6"},   {"0.6.2", "0.6"},  {"v0.6.2", "0.6"},  {"v0.6", "0.6"},
	    {"0.6.x", "0.6"}, {"0.6.", "0.6"},   {"0.5", "0.5"},     {"0.5.1", "0.5"},
	    {"main", "main"}, {"vmain", "main"}, {"main.1", "main"},
	};
	static const char *const bad[] = {"9.9",  "0.60",   "0",         "0.",    "",     "v",
	                                  " 0.6", "0.6rc1", "core_v0.6", "vv0.6", "r0.6", "Main"};
	size_t i;
	unsigned v;

	for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		cr_assert_eq(mcinit_bversion_parse(ok[i].s, &v), 0, "%s", ok[i].s);
		cr_expect_str_eq(mcinit_bversion_name(v), ok[i].name, "%s", ok[i].s);
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_expect_eq(mcinit_bversion_parse(bad[i], &v), -1, "%s", bad[i]);
}
