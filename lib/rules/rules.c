/*
 * rules.c — the table of the cross-field rules of rules.md, in the order they
 * run, and mcinit_check, which runs the repairs (repairs.c), the derived
 * values (derive.c) and then the table.  Each rule is a function with its
 * row beside it in the file of its family: rules-sizes.c, rules-pipeline.c,
 * rules-sequence.c, rules-features.c, rules-training.c, rules-launch.c, and
 * Megatron-LM's and Megatron-Bridge's own checks in rules-mcheck.c and
 * rules-bcheck.c; rules-kit.c has what they share (rules-table.h).  See rules.h for the order of
 * work and the conventions, rules-impl.h for how the files share the work.
 *
 * Every rule reproduces a check that Megatron-LM, Megatron-Core or
 * Megatron-Bridge makes somewhere between argument parsing and the first
 * training step (validate_args, the micro-batch calculator, the config
 * dataclasses' __post_init__, initialize_model_parallel, the RNG setup), or a
 * silent failure they do not check.  Messages carry the values involved and
 * hints compute a fix where one can be computed.
 */
#include "rules/rules-table.h"

#include <string.h>

const struct mcinit_rule *const mcinit_rules[] = {
    &mcinit_rule_mc010, &mcinit_rule_mc011, &mcinit_rule_mc012, &mcinit_rule_mc013,
    &mcinit_rule_mc014, &mcinit_rule_mc015, &mcinit_rule_mc016, &mcinit_rule_mc017,
    &mcinit_rule_mc018, &mcinit_rule_mc019, &mcinit_rule_mc020, &mcinit_rule_mc021,
    &mcinit_rule_mc022, &mcinit_rule_mc023, &mcinit_rule_mc024, &mcinit_rule_mc025,
    &mcinit_rule_mc026, &mcinit_rule_mc027, &mcinit_rule_mc028, &mcinit_rule_mc029,
    &mcinit_rule_mc030, &mcinit_rule_mc031, &mcinit_rule_mc032, &mcinit_rule_mc033,
    &mcinit_rule_mc034, &mcinit_rule_mc035, &mcinit_rule_mc036, &mcinit_rule_mc037,
    &mcinit_rule_mc038, &mcinit_rule_mc039, &mcinit_rule_mc040, &mcinit_rule_mc041,
    &mcinit_rule_mc042, &mcinit_rule_mc043, &mcinit_rule_mc044, &mcinit_rule_mc045,
    &mcinit_rule_mc046, &mcinit_rule_mc047, &mcinit_rule_mc048, &mcinit_rule_mc049,
    &mcinit_rule_mc050, &mcinit_rule_mc051, &mcinit_rule_mc060, &mcinit_rule_mc061,
    &mcinit_rule_mc062, &mcinit_rule_mc063, &mcinit_rule_mc200, &mcinit_rule_mc201,
    &mcinit_rule_mc202, &mcinit_rule_mc203, &mcinit_rule_mc204, &mcinit_rule_mc205,
    &mcinit_rule_mc206, &mcinit_rule_mc250, &mcinit_rule_mc251, &mcinit_rule_mc252,
    &mcinit_rule_mc253, &mcinit_rule_mc254, &mcinit_rule_mc255, &mcinit_rule_mc256,
    &mcinit_rule_mc300, &mcinit_rule_mc301, &mcinit_rule_mc350, &mcinit_rule_mc351,
};
const size_t mcinit_nrules = sizeof mcinit_rules / sizeof mcinit_rules[0];

const struct mcinit_rule *
mcinit_rule_find(const char *code)
{
	size_t i;

	for (i = 0; i < mcinit_nrules; i++)
		if (strcmp(mcinit_rules[i]->code, code) == 0)
			return mcinit_rules[i];
	return NULL;
}

int
mcinit_check(struct mcinit_config *c, const struct mcinit_check_opts *o, struct mcinit_derived *dv,
             struct mcinit_diags *d, struct mcinit_err *err)
{
	struct mcinit_rule_ctx x = {c, dv, d, o, NULL, 0};
	size_t i;

	(void)err;
	memset(dv, 0, sizeof *dv);
	mcinit_rules_repair(&x);
	mcinit_rules_derive_sizes(&x);
	mcinit_rules_repair_p2p(&x);
	mcinit_rules_derive_rest(&x);
	mcinit_rules_memory(&x);
	mcinit_rules_memory_params(&x);
	mcinit_rules_memory_act(&x);
	mcinit_rules_memory_peak(&x);
	for (i = 0; i < mcinit_nrules; i++) {
		x.rule = mcinit_rules[i];
		/* A rule whose inputs were rejected would only repeat that error. */
		if (any_invalid(c, x.rule->reads))
			continue;
		x.rule->check(&x);
	}
	return 0;
}
