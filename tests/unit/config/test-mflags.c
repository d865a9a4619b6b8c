/* Unit tests: the Megatron-LM flag table. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/mflags.h"
#include "core/util.h"

Test(mflags, versions_differ_for_lazy_mpu_init)
{
	const struct mcinit_mflag *a = mcinit_mflag_find("--lazy-mpu-init", MCINIT_MV_R016, NULL);
	const struct mcinit_mflag *b = mcinit_mflag_find("--lazy-mpu-init", MCINIT_MV_MAIN, NULL);

	cr_assert_not_null(a);
	cr_assert_not_null(b);
	cr_assert_eq(a->kind, MCINIT_MK_LEGACY_TYPE_BOOL);
	cr_assert_eq(b->kind, MCINIT_MK_STORE_TRUE);
	cr_assert(mcinit_mflag_is_legacy_bool("--lazy-mpu-init"));
	cr_assert_not(mcinit_mflag_is_legacy_bool("--seed"));
}

Test(mflags, arity)
{
	cr_assert_eq(mcinit_mflag_find("--rampup-batch-size", MCINIT_MV_MAIN, NULL)->nargs, 3);
	cr_assert_eq(mcinit_mflag_find("--cp-comm-type", MCINIT_MV_MAIN, NULL)->nargs, -1);
	cr_assert_eq(mcinit_mflag_find("--data-path", MCINIT_MV_MAIN, NULL)->nargs, -2);
	cr_assert_eq(mcinit_mflag_find("--seed", MCINIT_MV_MAIN, NULL)->nargs, 1);
}

Test(mflags, boolean_optional_negation)
{
	int neg = 0;
	const struct mcinit_mflag *m =
	    mcinit_mflag_find("--no-inference-wandb-logging", MCINIT_MV_MAIN, &neg);

	cr_assert_not_null(m);
	cr_assert_eq(neg, 1);
	cr_assert_null(mcinit_mflag_find("--no-seed", MCINIT_MV_MAIN, &neg));
}

/* argparse registers no "--no-no-X" for a BooleanOptionalAction "--X":
 * Megatron stops with "unrecognized arguments" (found by the differential). */
Test(mflags, no_double_negation)
{
	int neg = 0;

	cr_assert_not_null(mcinit_mflag_find("--no-inference-dynamic-batching-prefix-caching",
	                                     MCINIT_MV_MAIN, &neg));
	cr_assert_null(mcinit_mflag_find("--no-no-inference-dynamic-batching-prefix-caching",
	                                 MCINIT_MV_MAIN, &neg));
	cr_assert_null(mcinit_mflag_find("--no-no-rl-skip-bos-token", MCINIT_MV_MAIN, &neg));
}

/* A flag of an entry point's extra_args_provider is in its parser only; a
 * plain version mask sees every entry point's flags. */
Test(mflags, entry_point_flags)
{
	unsigned vlm = 0, gpt = mcinit_mentry_default();

	cr_assert_eq(mcinit_mentry_parse("pretrain_vlm.py", &vlm), 0);
	cr_assert_not_null(mcinit_mflag_find("--dataloader-seq-length",
	                                     MCINIT_MPARSER(MCINIT_MV_MAIN, vlm), NULL));
	cr_assert_null(mcinit_mflag_find("--dataloader-seq-length",
	                                 MCINIT_MPARSER(MCINIT_MV_MAIN, gpt), NULL));
	cr_assert_not_null(mcinit_mflag_find("--dataloader-seq-length", MCINIT_MV_MAIN, NULL));
	cr_assert_not_null(mcinit_mflag_find("--lr", MCINIT_MPARSER(MCINIT_MV_MAIN, vlm), NULL));
	cr_assert_eq(mcinit_mentry_of_script("examples/t5/pretrain_t5.py", MCINIT_MV_MAIN),
	             (unsigned)MCINIT_ME_PRETRAINT5);
	cr_assert_eq(mcinit_mentry_of_script("/w/pretrain_mamba.py", MCINIT_MV_R017),
	             (unsigned)MCINIT_ME_PRETRAINHYBRID);
	cr_assert_eq(
	    mcinit_mentry_of_script("examples/post_training/modelopt/quantize.py", MCINIT_MV_MAIN),
	    (unsigned)MCINIT_ME_MODELOPT);
	cr_assert_eq(mcinit_mentry_of_script("my_train.py", MCINIT_MV_MAIN), 0u);
	cr_assert_eq(mcinit_mentry_parse("pretrain_nope", &vlm), -1);
}

Test(mflags, version_only_flags)
{
	cr_assert_null(mcinit_mflag_find("--disable-jit-fuser", MCINIT_MV_R015, NULL));
	cr_assert_not_null(mcinit_mflag_find("--disable-jit-fuser", MCINIT_MV_R016, NULL));
	cr_assert_not_null(mcinit_mflag_find_any("--disable-jit-fuser"));
}

Test(mflags, suggest)
{
	cr_assert_str_eq(mcinit_mflag_suggest("--num-layer", MCINIT_MV_MAIN), "--num-layers");
	cr_assert_null(mcinit_mflag_suggest("--completely-different-thing-xyz", MCINIT_MV_MAIN));
}

Test(mflags, version_names)
{
	unsigned v;
	char buf[64];

	cr_assert_eq(mcinit_mversion_parse("core_r0.15", &v), 0);
	cr_assert_eq(v, MCINIT_MV_R015);
	cr_assert_eq(mcinit_mversion_parse("r0.19", &v), 0);
	cr_assert_eq(v, MCINIT_MV_R019);
	cr_assert_eq(mcinit_mversion_parse("core_r0.17", &v), 0);
	cr_assert_eq(v, MCINIT_MV_R017);
	cr_assert_eq(mcinit_mversion_parse("r0.14", &v), -1);
	cr_assert_eq(mcinit_mversion_default(), MCINIT_MV_MAIN);
	cr_assert(MCINIT_MV_R015 < MCINIT_MV_R016 && MCINIT_MV_R019 < MCINIT_MV_MAIN,
	          "bits grow with the version");
	mcinit_mversion_list(MCINIT_MV_R016 | MCINIT_MV_MAIN, buf, sizeof buf);
	cr_assert_str_eq(buf, "r0.16, main");
}

Test(mflags, lazy_mpu_init_is_store_true_from_r017)
{
	unsigned v;

	for (v = MCINIT_MV_R017; v <= MCINIT_MV_MAIN; v <<= 1)
		cr_assert_eq(mcinit_mflag_find("--lazy-mpu-init", v, NULL)->kind,
		             MCINIT_MK_STORE_TRUE, "%s", mcinit_mversion_name(v));
	cr_assert_eq(mcinit_mflag_find("--lazy-mpu-init", MCINIT_MV_R015, NULL)->kind,
	             MCINIT_MK_LEGACY_TYPE_BOOL);
}

Test(mflags, types_and_defaults)
{
	const struct mcinit_mflag *m = mcinit_mflag_find("--lr", MCINIT_MV_MAIN, NULL);

	cr_assert_eq(m->type, MCINIT_MT_FLOAT);
	cr_assert_str_eq(mcinit_mstr(m->def), "null");
	m = mcinit_mflag_find("--lr-decay-style", MCINIT_MV_MAIN, NULL);
	cr_assert_str_eq(mcinit_mstr(m->def), "\"linear\"");
	cr_assert(strstr(mcinit_mstr(m->choices), "cosine") != NULL);
	m = mcinit_mflag_find("--profile-ranks", MCINIT_MV_R015, NULL);
	cr_assert_str_eq(mcinit_mstr(m->def), "[0]");
	m = mcinit_mflag_find("--profile-ranks", MCINIT_MV_MAIN, NULL);
	cr_assert_str_eq(mcinit_mstr(m->def), "[]");
}

/* The by-dest index finds what a scan of the table in order finds: the
 * first row of that dest in the parser, for every dest and parser key. */
Test(mflags, by_dest_index_agrees_with_a_scan)
{
	unsigned n, i, k, e;
	const struct mcinit_mflag *t = mcinit_mflag_table(&n);
	unsigned keys[MCINIT_MV_COUNT + 2 + MCINIT_ME_COUNT], nkeys = 0;

	for (i = 0; i < MCINIT_MV_COUNT; i++)
		keys[nkeys++] = mcinit_mversion_at((int)i);
	keys[nkeys++] = MCINIT_MV_ALL;
	keys[nkeys++] = MCINIT_MPARSER(MCINIT_MV_MAIN, MCINIT_ME_ALL);
	for (e = 0; e < MCINIT_ME_COUNT; e++)
		keys[nkeys++] = MCINIT_MPARSER(MCINIT_MV_R015 | MCINIT_MV_MAIN, 1u << e);
	for (i = 0; i < n; i++) {
		for (k = 0; k < nkeys; k++) {
			unsigned key = keys[k], ent = key >> MCINIT_MPARSER_SHIFT;
			unsigned ver = key & ((1u << MCINIT_MPARSER_SHIFT) - 1);
			const struct mcinit_mflag *want = NULL;
			unsigned j;

			for (j = 0; j < n && want == NULL; j++)
				if ((t[j].versions & ver) != 0 &&
				    (ent == 0 || (t[j].entries & ent) != 0) &&
				    strcmp(mcinit_mstr(t[j].dest), mcinit_mstr(t[i].dest)) == 0)
					want = &t[j];
			cr_assert_eq(mcinit_mflag_by_dest(mcinit_mstr(t[i].dest), key), want,
			             "%s, key %#x", mcinit_mstr(t[i].dest), key);
		}
	}
	cr_assert_null(mcinit_mflag_by_dest("no_such_dest", MCINIT_MV_ALL));
	cr_assert_null(mcinit_mflag_by_dest("", MCINIT_MV_ALL));
	cr_assert_null(mcinit_mflag_by_dest("~", MCINIT_MV_ALL));
}

/* The flag hash finds every flag's first row in the parser. */
Test(mflags, find_agrees_with_a_scan)
{
	unsigned n, i, j, v;
	const struct mcinit_mflag *t = mcinit_mflag_table(&n);

	for (i = 0; i < n; i++) {
		for (v = 1; v <= MCINIT_MV_ALL; v <<= 1) {
			const struct mcinit_mflag *want = NULL;

			for (j = 0; j < n && want == NULL; j++)
				if ((t[j].versions & v) != 0 &&
				    strcmp(mcinit_mstr(t[j].flag), mcinit_mstr(t[i].flag)) == 0)
					want = &t[j];
			if (strncmp(mcinit_mstr(t[i].flag), "--no-", 5) != 0)
				cr_assert_eq(mcinit_mflag_find(mcinit_mstr(t[i].flag), v, NULL),
				             want, "%s %#x", mcinit_mstr(t[i].flag), v);
		}
		cr_assert_not_null(mcinit_mflag_find_any(mcinit_mstr(t[i].flag)), "%s",
		                   mcinit_mstr(t[i].flag));
	}
	cr_assert_null(mcinit_mflag_find("--no-such-flag", MCINIT_MV_ALL, NULL));
	cr_assert_null(mcinit_mflag_find("", MCINIT_MV_ALL, NULL));
	cr_assert_null(mcinit_mflag_find("--", MCINIT_MV_ALL, NULL));
}

/* A flag's did-you-mean, looked for by length, is mcinit_suggest's over the
 * parser's flags in table order: words made from flags by a few edits,
 * and others. */
Test(mflags, suggest_by_length_agrees_with_a_scan)
{
	unsigned n, i, k, seed = 4242;
	const struct mcinit_mflag *t = mcinit_mflag_table(&n);
	const char **cands = calloc(n, sizeof *cands);
	static const unsigned keys[] = {MCINIT_MV_MAIN, MCINIT_MV_R015,
	                                MCINIT_MPARSER(MCINIT_MV_MAIN, MCINIT_ME_ALL)};

	cr_assert_not_null(cands);
	for (k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		unsigned ver = keys[k] & ((1u << MCINIT_MPARSER_SHIFT) - 1),
		         ent = keys[k] >> MCINIT_MPARSER_SHIFT, nc = 0;

		for (i = 0; i < n; i++)
			if ((t[i].versions & ver) != 0 && (ent == 0 || (t[i].entries & ent) != 0))
				cands[nc++] = mcinit_mstr(t[i].flag);
		for (i = 0; i < 600; i++) {
			char w[96];
			size_t len, e;

			snprintf(w, sizeof w, "%s",
			         mcinit_mstr(t[(seed = seed * 1103515245u + 12345u) % n].flag));
			len = strlen(w);
			/* up to six edits: a letter dropped, changed or doubled */
			for (e = (seed = seed * 1103515245u + 12345u) >> 16 & 7; e > 0 && len > 2;
			     e--) {
				size_t at = ((seed = seed * 1103515245u + 12345u) >> 16) % len;

				switch ((seed >> 8) % 3) {
				case 0:
					memmove(w + at, w + at + 1, len - at);
					len--;
					break;
				case 1:
					w[at] = "aeio-_x"[(seed >> 4) % 7];
					break;
				default:
					if (len + 1 < sizeof w) {
						memmove(w + at + 1, w + at, len - at + 1);
						len++;
					}
				}
			}
			cr_assert_eq(mcinit_mflag_suggest(w, keys[k]), mcinit_suggest(w, cands, nc),
			             "'%s', key %#x", w, keys[k]);
		}
	}
	free(cands);
}
