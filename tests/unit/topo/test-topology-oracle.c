/* test-topology-oracle.c — every communicator of Megatron-Core's own
 * initialize_model_parallel, in creation order, per release: the golden
 * files tests/oracle/topology-oracle.py wrote from each release's
 * parallel_state.py (tests/oracle/golden/RELEASE.txt) against
 * mcinit_topo_iter_next, group by group; and the configurations Megatron
 * rejects must be rejected by mcinit_topo_init. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "topo/topology.h"
#include "mcinit.h"

static long
field(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	cr_assert(p != NULL, "no %s in %s", key, line);
	p += strlen(key);
	return *p == '-' ? 0 : strtol(p, NULL, 10);
}

static void
parse_config(const char *line, const char *release, struct mcinit_topo_sizes *s)
{
	const char *h = strstr(line, " hcp=");

	memset(s, 0, sizeof *s);
	s->world = field(line, " world=");
	s->tp = field(line, " tp=");
	s->pp = field(line, " pp=");
	s->cp = field(line, " cp=");
	s->ep = field(line, " ep=");
	s->etp = field(line, " etp=");
	if (s->etp == 0)
		s->etp = s->tp;
	s->dist_opt_instances = field(line, " ndoi=");
	s->gtp = field(line, " gtp=");
	s->egtp = field(line, " egtp=");
	s->tp_pp_dp_mapping = (int)field(line, " mapping=");
	s->all_gather_group = (int)field(line, " ag=");
	s->features = mcinit_topo_features(release);
	cr_assert(h != NULL);
	for (h += 5; *h != '-' && *h != ' ';) {
		char *end;

		s->hcp[s->nhcp++] = strtol(h, &end, 10);
		h = *end == ',' ? end + 1 : end;
	}
}

/* "key: m m m" of group g of family f, as the oracle writes it. */
static char *
group_line(const struct mcinit_topo *t, int f, long g)
{
	const struct mcinit_topo_fam *fm = &t->fam[f];
	long *v = malloc((size_t)fm->size * sizeof *v), i;
	size_t cap = 64 + (size_t)fm->size * 12, n;
	char *out = malloc(cap);

	cr_assert_eq(mcinit_topo_fam_group(t, f, g, v), 0);
	n = (size_t)snprintf(out, cap, "%s:", mcinit_group_kind_name(fm->kind));
	for (i = 0; i < fm->size; i++)
		n += (size_t)snprintf(out + n, cap - n, " %ld", v[i]);
	free(v);
	return out;
}

/* Every family: mcinit_topo_fam_groups agrees with mcinit_topo_fam_group and
 * mcinit_topo_fam_group_of finds every member where it is (the NCCL split
 * color and key `run` uses); a rank in no group is only possible for embd. */
static void
check_group_of(const struct mcinit_topo *t, const char *cfg)
{
	struct mcinit_groups all;
	struct mcinit_err err = {0};
	long g, i, color, key, in, *one;
	int f;

	for (f = 0; f < t->nfam; f++) {
		const struct mcinit_topo_fam *fm = &t->fam[f];

		cr_assert_eq(mcinit_topo_fam_groups(t, f, &all, &err), 0, "%s", err.msg);
		one = malloc((size_t)fm->size * sizeof *one);
		in = 0;
		for (g = 0; g < fm->ngroups; g++) {
			cr_assert_eq(mcinit_topo_fam_group(t, f, g, one), 0);
			for (i = 0; i < fm->size; i++) {
				cr_assert_eq(one[i], all.members[g * fm->size + i],
				             "%s %s[%d] group %ld member %ld", cfg,
				             mcinit_group_kind_name(fm->kind), fm->level, g, i);
				cr_assert_eq(mcinit_topo_fam_group_of(t, f, one[i], &color, &key),
				             0);
				cr_assert(color == g && key == i,
				          "%s %s[%d] rank %ld: (%ld,%ld) not (%ld,%ld)", cfg,
				          mcinit_group_kind_name(fm->kind), fm->level, one[i],
				          color, key, g, i);
			}
			in += fm->size;
		}
		for (i = 0; i < t->s.world && in < t->s.world; i++)
			if (mcinit_topo_fam_group_of(t, f, i, &color, &key) == 1)
				in++;
		cr_assert(in == t->s.world || fm->kind == MCINIT_GROUP_INTRA_DIST_OPT_INSTANCE,
		          "%s %s: %ld of %ld ranks placed", cfg, mcinit_group_kind_name(fm->kind),
		          in, t->s.world);
		free(one);
		mcinit_groups_destroy(&all);
	}
}

/* The public cursor (include/mcinit.h) walks the same order as the
 * library's iterator, and its groups are the same. */
static void
check_public_cursor(const struct mcinit_topo *t, const char *cfg)
{
	static struct mcinit_topology pub; /* large (the node, the loader): not on the stack */
	struct mcinit_group_cursor c = {{0}};
	struct mcinit_topo_iter it;
	long g, index, *a, *b;
	int f, kind, level;

	pub.t = *t;
	a = malloc((size_t)t->s.world * sizeof *a);
	b = malloc((size_t)t->s.world * sizeof *b);
	mcinit_topo_iter_init(&it, t);
	while (mcinit_topo_iter_next(&it, &f, &g)) {
		cr_assert(mcinit_topology_next_group(&pub, &c, &kind, &level, &index), "%s", cfg);
		cr_assert(kind == (int)t->fam[f].kind && level == t->fam[f].level && index == g,
		          "%s: cursor at %s[%d] %ld, iterator at %s[%d] %ld", cfg,
		          mcinit_group_name(kind), level, index, mcinit_group_name(t->fam[f].kind),
		          t->fam[f].level, g);
		cr_assert_eq(mcinit_topology_level_group(&pub, kind, level, index, a), 0);
		mcinit_topo_fam_group(t, f, g, b);
		cr_assert_eq(memcmp(a, b, (size_t)t->fam[f].size * sizeof *a), 0, "%s", cfg);
	}
	cr_assert(!mcinit_topology_next_group(&pub, &c, &kind, &level, &index), "%s", cfg);
	free(a);
	free(b);
}

/* Compares one configuration's block; returns the groups compared. */
static long
check_block(FILE *in, const char *cfg, const char *release, char **line, size_t *cap)
{
	struct mcinit_topo_sizes s;
	struct mcinit_topo t;
	struct mcinit_topo_iter it;
	struct mcinit_err err = {0};
	int ok, f;
	long g, n = 0;
	ssize_t len;

	parse_config(cfg, release, &s);
	ok = mcinit_topo_init(&t, &s, &err) == 0;
	len = getline(line, cap, in);
	if (len > 0 && strncmp(*line, "error:", 6) == 0) {
		cr_expect(!ok, "%s %s: Megatron fails (%s) but mcinit accepts", release, cfg,
		          *line);
		return getline(line, cap, in) > 0 ? 0 : -1;
	}
	cr_assert(ok, "%s %s: %s", release, cfg, err.msg);
	mcinit_topo_iter_init(&it, &t);
	while (len > 0 && (*line)[0] != '#') {
		char *want = *line, *got;

		want[strcspn(want, "\n")] = '\0';
		cr_assert(mcinit_topo_iter_next(&it, &f, &g), "%s %s: group %ld missing: %s",
		          release, cfg, n, want);
		got = group_line(&t, f, g);
		cr_assert_str_eq(got, want, "%s %s: group %ld: mcinit %s, Megatron %s", release,
		                 cfg, n, got, want);
		free(got);
		n++;
		len = getline(line, cap, in);
	}
	cr_assert(!mcinit_topo_iter_next(&it, &f, &g), "%s %s: mcinit creates more than %ld groups",
	          release, cfg, n);
	check_group_of(&t, cfg);
	check_public_cursor(&t, cfg);
	return len > 0 ? n : -1;
}

static void
check_release(const char *release)
{
	const char *srcdir = getenv("srcdir");
	char path[4096], *line = NULL, *cfg = NULL;
	size_t cap = 0;
	long configs = 0;
	FILE *in;

	snprintf(path, sizeof path, "%s/tests/oracle/golden/%s.txt", srcdir ? srcdir : ".",
	         release);
	in = fopen(path, "r");
	cr_assert(in != NULL, "cannot open %s", path);
	if (getline(&line, &cap, in) <= 0)
		cr_assert_fail("%s is empty", path);
	if (getline(&line, &cap, in) <= 0)
		cr_assert_fail("%s has no configuration", path);
	for (;;) {
		cr_assert(strncmp(line, "# config ", 9) == 0, "%s: %s", path, line);
		free(cfg);
		cfg = strdup(line);
		cfg[strcspn(cfg, "\n")] = '\0';
		configs++;
		if (check_block(in, cfg, release, &line, &cap) < 0)
			break;
	}
	cr_expect_gt(configs, 40, "%s: only %ld configurations", path, configs);
	free(cfg);
	free(line);
	fclose(in);
}

Test(oracle, r015)
{
	check_release("r0.15");
}
Test(oracle, r016)
{
	check_release("r0.16");
}
Test(oracle, r017)
{
	check_release("r0.17");
}
Test(oracle, r018)
{
	check_release("r0.18");
}
Test(oracle, r019)
{
	check_release("r0.19");
}
Test(oracle, main)
{
	check_release("main");
}
