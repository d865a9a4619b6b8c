/*
 * rules-table.h — PRIVATE to the files that hold rules (rules-*.c of this
 * module): the macros a rule's table row is written with, the helpers of
 * rules-kit.c, and every row, which rules.c lists in the order they run.
 * Like rules-impl.h, which it includes, no other module includes it.
 *
 * A rule is a function and, beside it, its row:
 *
 *     static void mc014(struct mcinit_rule_ctx *x) { ... }
 *     const struct mcinit_rule mcinit_rule_mc014 = {"MC014", ..., mc014};
 *
 * and a line in rules.c's table (mcinit_rules[]): its place there is the
 * order in which it runs and is documented.
 */
#ifndef MCINIT_RULES_TABLE_H
#define MCINIT_RULES_TABLE_H

#include "rules/rules-impl.h"

/* The fields a rule reads: a finding about one that was refused would only
 * repeat that error, so the rule does not run (mcinit_check). */
#define READS(...)                                                                                 \
	(const enum mcinit_field[])                                                                \
	{                                                                                          \
		__VA_ARGS__, MCINIT_F_COUNT                                                        \
	}

/* Field groups many rows read. */
#define TP  F(tensor_model_parallel_size)
#define PP  F(pipeline_model_parallel_size)
#define CP  F(context_parallel_size)
#define EP  F(expert_model_parallel_size)
#define ETP F(expert_tensor_parallel_size)
#define NL  F(num_layers)
#define ACC F(account_for_embedding_in_pipeline_split), F(account_for_loss_in_pipeline_split)
#define VPPIN                                                                                      \
	F(num_layers_per_virtual_pipeline_stage), F(num_virtual_stages_per_pipeline_rank),         \
	    F(pipeline_model_parallel_layout)
#define UNEVEN F(num_layers_in_first_pipeline_stage), F(num_layers_in_last_pipeline_stage)

/* The current rule's finding, with the rule's severity. */
struct mcinit_diag *mcinit_rule_report(struct mcinit_rule_ctx *x, enum mcinit_field at,
                                       const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The current rule's finding with another severity (a rule that is a
 * warning in one case and an error in another). */
struct mcinit_diag *mcinit_rule_report_sev(struct mcinit_rule_ctx *x, enum mcinit_severity sev,
                                           enum mcinit_field at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A finding of a check only Megatron-LM's validate_args makes: an error for
 * Megatron-LM's flags, a warning saying so for a Megatron-Bridge config. */
struct mcinit_diag *mcinit_rule_report_lm(struct mcinit_rule_ctx *x, enum mcinit_field at,
                                          const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A finding at an explicit place (NULL: none) rather than at a field. */
struct mcinit_diag *mcinit_rule_report_loc(struct mcinit_rule_ctx *x, const struct mcinit_loc *loc,
                                           const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The field the user most plausibly has to edit: the first of `cands` that
 * was written somewhere, else the first. */
enum mcinit_field mcinit_rule_written_in(struct mcinit_rule_ctx *x, const enum mcinit_field *cands,
                                         size_t n);
#define mcinit_rule_written(x, ...)                                                                \
	mcinit_rule_written_in(x, (const enum mcinit_field[]){__VA_ARGS__},                        \
	                       sizeof((const enum mcinit_field[]){__VA_ARGS__}) /                  \
	                           sizeof(enum mcinit_field))
/* Hints: the valid values next to `near` among k*step - off (k >= 1), and
 * the divisors of n next to `near` (that also divide `fit` when fit > 0),
 * as "96 or 112" in b. */
const char *mcinit_rule_near_values(struct mcx_buf *b, long long near, long long step,
                                    long long off);
const char *mcinit_rule_near_divisors_fit(struct mcx_buf *b, long long n, long long near,
                                          long long fit);
const char *mcinit_rule_near_divisors(struct mcx_buf *b, long long n, long long near);
/* An environment variable as the job will see it (a launch script's export,
 * the process environment, then env_vars as Python's str() writes them);
 * *from_config says whether env_vars gave it. */
bool mcinit_rule_job_env(const struct mcinit_rule_ctx *x, const char *name, char *buf, size_t len,
                         bool *from_config);

/* The rows, each beside its function in a rules-*.c file. */
extern const struct mcinit_rule mcinit_rule_mc010;
extern const struct mcinit_rule mcinit_rule_mc011;
extern const struct mcinit_rule mcinit_rule_mc012;
extern const struct mcinit_rule mcinit_rule_mc013;
extern const struct mcinit_rule mcinit_rule_mc014;
extern const struct mcinit_rule mcinit_rule_mc015;
extern const struct mcinit_rule mcinit_rule_mc016;
extern const struct mcinit_rule mcinit_rule_mc017;
extern const struct mcinit_rule mcinit_rule_mc018;
extern const struct mcinit_rule mcinit_rule_mc019;
extern const struct mcinit_rule mcinit_rule_mc020;
extern const struct mcinit_rule mcinit_rule_mc021;
extern const struct mcinit_rule mcinit_rule_mc022;
extern const struct mcinit_rule mcinit_rule_mc023;
extern const struct mcinit_rule mcinit_rule_mc024;
extern const struct mcinit_rule mcinit_rule_mc025;
extern const struct mcinit_rule mcinit_rule_mc026;
extern const struct mcinit_rule mcinit_rule_mc027;
extern const struct mcinit_rule mcinit_rule_mc028;
extern const struct mcinit_rule mcinit_rule_mc029;
extern const struct mcinit_rule mcinit_rule_mc030;
extern const struct mcinit_rule mcinit_rule_mc031;
extern const struct mcinit_rule mcinit_rule_mc032;
extern const struct mcinit_rule mcinit_rule_mc033;
extern const struct mcinit_rule mcinit_rule_mc034;
extern const struct mcinit_rule mcinit_rule_mc035;
extern const struct mcinit_rule mcinit_rule_mc036;
extern const struct mcinit_rule mcinit_rule_mc037;
extern const struct mcinit_rule mcinit_rule_mc038;
extern const struct mcinit_rule mcinit_rule_mc039;
extern const struct mcinit_rule mcinit_rule_mc040;
extern const struct mcinit_rule mcinit_rule_mc041;
extern const struct mcinit_rule mcinit_rule_mc042;
extern const struct mcinit_rule mcinit_rule_mc043;
extern const struct mcinit_rule mcinit_rule_mc044;
extern const struct mcinit_rule mcinit_rule_mc045;
extern const struct mcinit_rule mcinit_rule_mc046;
extern const struct mcinit_rule mcinit_rule_mc047;
extern const struct mcinit_rule mcinit_rule_mc048;
extern const struct mcinit_rule mcinit_rule_mc049;
extern const struct mcinit_rule mcinit_rule_mc050;
extern const struct mcinit_rule mcinit_rule_mc051;
extern const struct mcinit_rule mcinit_rule_mc060;
extern const struct mcinit_rule mcinit_rule_mc061;
extern const struct mcinit_rule mcinit_rule_mc062;
extern const struct mcinit_rule mcinit_rule_mc063;
extern const struct mcinit_rule mcinit_rule_mc200;
extern const struct mcinit_rule mcinit_rule_mc201;
extern const struct mcinit_rule mcinit_rule_mc202;
extern const struct mcinit_rule mcinit_rule_mc203;
extern const struct mcinit_rule mcinit_rule_mc204;
extern const struct mcinit_rule mcinit_rule_mc205;
extern const struct mcinit_rule mcinit_rule_mc206;
extern const struct mcinit_rule mcinit_rule_mc250;
extern const struct mcinit_rule mcinit_rule_mc251;
extern const struct mcinit_rule mcinit_rule_mc252;
extern const struct mcinit_rule mcinit_rule_mc253;
extern const struct mcinit_rule mcinit_rule_mc254;
extern const struct mcinit_rule mcinit_rule_mc255;
extern const struct mcinit_rule mcinit_rule_mc256;
extern const struct mcinit_rule mcinit_rule_mc300;
extern const struct mcinit_rule mcinit_rule_mc301;
extern const struct mcinit_rule mcinit_rule_mc350;
extern const struct mcinit_rule mcinit_rule_mc351;

#endif
