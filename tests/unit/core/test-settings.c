/* Unit tests: the settings reader (mcinit.toml, pyproject.toml's [tool.mcinit]). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/settings.h"
#include "core/util.h"

static int
parse(const char *text, const char *table, struct mcinit_settings *s, struct mcinit_err *e)
{
	memset(s, 0, sizeof *s);
	memset(e, 0, sizeof *e);
	return mcinit_settings_parse("f.toml", text, strlen(text), table, s, e);
}

Test(settings, mcinit_toml_every_key)
{
	struct mcinit_settings s;
	struct mcinit_err e;
	const char *t = "# repo settings\n"
	                "world-size = 1_024\n"
	                "nnodes = 2 # two\n"
	                "nproc_per_node = 8\n"
	                "megatron-version = \"r0.15\"\n"
	                "bridge_version = '0.2'\n"
	                "entry-point = \"pretrain_gpt\"\n"
	                "werror = true\n"
	                "overrides = [\n  \"model.a=1\", # first\n  'train.b=x y',\n]\n";

	cr_assert_eq(parse(t, NULL, &s, &e), 1, "%s", e.msg);
	cr_assert_eq(s.world_size, 1024);
	cr_assert_eq(s.nnodes, 2);
	cr_assert_eq(s.nproc_per_node, 8);
	cr_assert_str_eq(s.megatron_version, "r0.15");
	cr_assert_str_eq(s.bridge_version, "0.2");
	cr_assert_str_eq(s.entry_point, "pretrain_gpt");
	cr_assert_eq(s.werror, 1);
	cr_assert_eq(s.noverrides, 2);
	cr_assert_str_eq(s.overrides[1], "train.b=x y");
	mcinit_settings_free(&s);
}

Test(settings, pyproject_reads_only_its_table)
{
	struct mcinit_settings s;
	struct mcinit_err e;
	const char *t =
	    "[project]\nname = \"x\"\ndescription = \"\"\"\n[tool.mcinit]\nworld-size = 3\n"
	    "\"\"\"\ndeps = [\"a\", [1, {b = 2}],\n  'c]']\n"
	    "[tool.mcinit]\nworld-size = 16\n[tool.other]\nworld-size = 'not ours'\n"
	    "[[tool.arr]]\nz = 1\n";

	cr_assert_eq(parse(t, "tool.mcinit", &s, &e), 1, "%s", e.msg);
	cr_assert_eq(s.world_size, 16);
	mcinit_settings_free(&s);
	cr_assert_eq(parse("[project]\nname = \"x\"\n", "tool.mcinit", &s, &e), 0);
	mcinit_settings_free(&s);
}

Test(settings, errors_have_their_place)
{
	struct mcinit_settings s;
	struct mcinit_err e;

	cr_assert_eq(parse("world-size = 8\nwrold-size = 8\n", NULL, &s, &e), -1);
	cr_assert_eq(e.line, 2);
	cr_assert_eq(e.col, 1);
	cr_assert(strstr(e.msg, "unknown key 'wrold-size'"), "%s", e.msg);
	mcinit_settings_free(&s);
	cr_assert_eq(parse("world-size = 0\n", NULL, &s, &e), -1);
	cr_assert_eq(e.col, 14);
	mcinit_settings_free(&s);
	cr_assert_eq(parse("world-size = 8\nworld_size = 4\n", NULL, &s, &e), -1);
	cr_assert(strstr(e.msg, "twice"));
	mcinit_settings_free(&s);
	cr_assert_eq(parse("megatron-version = \"r0.15\n", NULL, &s, &e), -1);
	cr_assert(strstr(e.msg, "unterminated"));
	mcinit_settings_free(&s);
	cr_assert_eq(parse("overrides = [\"no equals\"]\n", NULL, &s, &e), -1);
	mcinit_settings_free(&s);
	cr_assert_eq(parse("[tool.mcinit]\n", NULL, &s, &e), -1);
	mcinit_settings_free(&s);
	cr_assert_eq(parse("werror = true false\n", NULL, &s, &e), -1);
	cr_assert(strstr(e.msg, "end of the line"));
	mcinit_settings_free(&s);
}

/* Brackets nested deeper than the limit are refused, not recursed into;
 * one bracket within it is read. */
Test(settings, nesting_limit)
{
	struct mcinit_settings s;
	struct mcinit_err e;
	char t[256];
	int n = 0;

	n += snprintf(t + n, sizeof t - n, "[x]\nv = ");
	for (int i = 0; i < MCINIT_SETTINGS_NEST + 1; i++)
		t[n++] = '[';
	t[n] = '\0';
	cr_assert_eq(parse(t, "tool.mcinit", &s, &e), -1);
	cr_assert(strstr(e.msg, "nested too deeply"), "%s", e.msg);
	mcinit_settings_free(&s);
	cr_assert_eq(parse("[x]\nv = [[[1]]]\n", "tool.mcinit", &s, &e), 0);
	mcinit_settings_free(&s);
	cr_assert_eq(parse("[x]\nv = [[1]\n", "tool.mcinit", &s, &e), -1);
	mcinit_settings_free(&s);
}

/* The nearest file upward wins; mcinit.toml before pyproject.toml in one
 * directory; a pyproject.toml without the table is passed over. */
Test(settings, nearest_upward)
{
	char root[] = "/tmp/mcinit-settings-XXXXXX";
	char p[512];
	struct mcinit_settings s;
	struct mcinit_err e = {0};
	FILE *f;

	cr_assert(mkdtemp(root));
	snprintf(p, sizeof p, "%s/a", root);
	mkdir(p, 0700);
	snprintf(p, sizeof p, "%s/a/b", root);
	mkdir(p, 0700);
	snprintf(p, sizeof p, "%s/mcinit.toml", root);
	f = fopen(p, "w");
	fputs("world-size = 4\n", f);
	fclose(f);
	snprintf(p, sizeof p, "%s/a/pyproject.toml", root);
	f = fopen(p, "w");
	fputs("[project]\nname = 'n'\n", f);
	fclose(f);
	snprintf(p, sizeof p, "%s/a/b/job.yaml", root);
	cr_assert_eq(mcinit_settings_find(p, &s, &e), 1, "%s", e.msg);
	cr_assert_eq(s.world_size, 4);
	cr_assert(strstr(s.file, "/mcinit.toml"));
	mcinit_settings_free(&s);
	snprintf(p, sizeof p, "%s/a/pyproject.toml", root);
	f = fopen(p, "w");
	fputs("[tool.mcinit]\nworld-size = 2\n", f);
	fclose(f);
	snprintf(p, sizeof p, "%s/a/b/job.yaml", root);
	cr_assert_eq(mcinit_settings_find(p, &s, &e), 1);
	cr_assert_eq(s.world_size, 2);
	mcinit_settings_free(&s);
	snprintf(p, sizeof p, "rm -rf '%s'", root);
	cr_assert_eq(system(p), 0);
}
