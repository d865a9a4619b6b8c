/* Unit tests: the Megatron-LM flag table. */
#include <criterion/criterion.h>
#include <string.h>

#include "mflags.h"

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
	cr_assert_str_eq(m->def, "null");
	m = mcinit_mflag_find("--lr-decay-style", MCINIT_MV_MAIN, NULL);
	cr_assert_str_eq(m->def, "\"linear\"");
	cr_assert(strstr(m->choices, "cosine") != NULL);
	m = mcinit_mflag_find("--profile-ranks", MCINIT_MV_R015, NULL);
	cr_assert_str_eq(m->def, "[0]");
	m = mcinit_mflag_find("--profile-ranks", MCINIT_MV_MAIN, NULL);
	cr_assert_str_eq(m->def, "[]");
}
