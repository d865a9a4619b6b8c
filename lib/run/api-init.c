/* api-init.c — mcinit_initialize and its companions (mcinit.h): the phase
 * engine of init.c behind the public types. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gpu/gpu.h"
#include "run/init-impl.h"

/* The public finish: the engine's deferred phases, once. */
static int
finish_public(struct mcinit_init *I, mcinit_error_t *err)
{
	struct mcinit_err e = {0};
	mcinit_finish_fn f;

	if (!I || !I->pending) {
		mcinit_err_set(&e, MCINIT_E_USAGE, "nothing to finish (called twice, or not lazy)");
		mcinit_err_export(&e, err);
		return -1;
	}
	f = I->pending;
	I->pending = NULL;
	if (f(I, &e) != 0) {
		mcinit_err_export(&e, err);
		return -1;
	}
	return 0;
}

/* Interface 4.1's members took reserved words: the size is interface 4's
 * (nccl_blocking, its padding and 7 reserved pointers after it, on LP64). */
_Static_assert(sizeof(void *) != 8 ||
                   sizeof(struct mcinit_init_options) ==
                       offsetof(struct mcinit_init_options, nccl_blocking) + 8 * sizeof(void *),
               "mcinit_init_options changed size");

/* The engine's CRASH and EXIT faults as the public actions of
 * mcinit_init_options.on_fault (mcinit.h). */
static void
fault_public(void *arg, enum mcinit_fault_kind kind)
{
	struct mcinit_init *I = arg;

	I->pub_on_fault(I->pub_arg, kind == MCINIT_FAULT_EXIT ? MCINIT_FAULT_ACTION_EXIT
	                                                      : MCINIT_FAULT_ACTION_CRASH);
}

/* The engine's options from the public ones: one structure for every
 * caller (the program's `mcinit run` included), mapped here only.  The
 * lazy switch is the config's dist.lazy_mpu_init (mcinit_init_config);
 * what it implies is repairs.c's rule R4. */
static void
opts_of(const struct mcinit_init_options *in, struct mcinit_init_opts *o)
{
	memset(o, 0, sizeof *o);
	if (!in)
		return;
	o->allow_no_cuda = in->allow_no_cuda != 0;
	o->lazy = in->lazy_mpu_init != 0;
	o->skip_mpu = in->skip_mpu_initialization != 0;
	o->no_bind = in->no_bind != 0;
	o->bandwidth = in->bandwidth != 0;
	o->nccl_blocking = in->nccl_blocking != 0;
	o->no_warmup = (in->flags & MCINIT_INIT_NO_WARMUP) != 0;
	o->check_only = (in->flags & MCINIT_INIT_CHECK_ONLY) != 0;
	o->timeout = in->timeout;
	o->envp = in->envp;
	o->progress = in->progress;
	o->set_env = in->set_env;
	o->env.master_addr = in->master_addr;
	o->env.master_port = in->master_port;
	o->world_source = in->world_source;
	o->on_phase = in->on_phase;
	o->on_phase_arg = in->callback_arg;
	if (in->on_fault)
		o->on_fault = fault_public; /* its argument is the init, set below */
}

int
mcinit_initialize(const struct mcinit_job_desc *desc, const struct mcinit_init_options *opts,
                  struct mcinit_init **init, mcinit_finish_callback *finish, mcinit_error_t *err)
{
	struct mcinit_init_opts o;
	struct mcinit_err e = {0};
	struct mcinit_init *I;
	mcinit_finish_fn f = NULL;
	int rc;

	*finish = NULL;
	opts_of(opts, &o);
	I = mcinit_init_new(&o);
	I->own_opts = o;
	I->o = &I->own_opts; /* the engine keeps its options: make them ours */
	if (opts && opts->on_fault) {
		I->own_opts.on_fault_arg = I;
		I->pub_on_fault = opts->on_fault;
		I->pub_arg = opts->callback_arg;
	}
	*init = I;
	rc = mcinit_init_config(I, desc, &e);
	if (rc == 1)
		mcinit_err_set(&e, MCINIT_E_INVALID, "%s", I->ph[MCINIT_PH_CONFIG].detail);
	if (rc == 0 && !o.check_only)
		rc = mcinit_init_run(I, &f, &e);
	if (rc != 0) {
		mcinit_err_export(&e, err);
		return -1;
	}
	I->pending = f;
	*finish = f ? finish_public : NULL;
	return 0;
}

void
mcinit_destroy(struct mcinit_init *init)
{
	mcinit_init_free(init);
}

const struct mcinit_diags *
mcinit_init_diagnostics(const struct mcinit_init *init)
{
	return &init->d;
}

int
mcinit_init_phase_count(void)
{
	return MCINIT_PH_COUNT;
}

int
mcinit_init_phase(const struct mcinit_init *init, int i, const char **name, const char **status,
                  const char **detail, double *seconds)
{
	const struct mcinit_phase_rec *r;

	if (i < 0 || i >= MCINIT_PH_COUNT)
		return -1;
	r = &init->ph[i];
	if (name)
		*name = mcinit_phase_name(i);
	if (status)
		*status = mcinit_phase_status_name(r->status);
	if (detail)
		*detail = r->detail;
	if (seconds)
		*seconds = r->seconds;
	return 0;
}

/* The program's report (private/mcinit-tool.h): the object itself, which
 * it writes twice, at two precisions (--report's file and --format=json). */
json_t *
mcx_init_report(const struct mcinit_init *init)
{
	return mcinit_init_report(init);
}

char *
mcinit_init_report_json(const struct mcinit_init *init)
{
	json_t *j = mcinit_init_report(init);
	char *s = json_dumps(j, JSON_INDENT(2) | MCINIT_JSON_REALS);

	json_decref(j);
	return s;
}

void
mcinit_init_launcher(const struct mcinit_init *init, const char **launcher, long *rank,
                     const char **master_addr, const char **error_file)
{
	const struct mcinit_env *e = mcinit_init_env(init);

	if (launcher)
		*launcher =
		    e->contract == MCINIT_CONTRACT_NONE ? NULL : mcinit_contract_name(e->contract);
	if (rank)
		*rank = e->rank;
	if (master_addr)
		*master_addr = e->master_addr;
	if (error_file)
		*error_file = e->error_file;
}

void *
mcinit_init_nccl_comm(const struct mcinit_init *init, const char *group)
{
	size_t i;

	for (i = 0; init && group && i < init->comms.n; i++) {
		const struct mcinit_comm *c = &init->comms.v[i];

		if (c->handle && c->level == 0 && strcmp(c->name, group) == 0)
			return mcinit_nccl_handle(c->handle);
	}
	return NULL;
}
