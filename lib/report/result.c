/*
 * result.c — validate's JSON result (the tool header's mcx_job_* and
 * mcx_diags_to_json): what `mcinit validate --format=json` and `mcinit
 * topology` say of a job, as jansson objects the program puts together and
 * prints, so that nothing is written to text and parsed back.
 */
#include <jansson.h>

#include "topo-out.h"

#include "config/config.h" /* mcinit_config_script_memo */
#include "core/diag.h"

json_t *
mcx_diags_to_json(const struct mcinit_diags *d)
{
	return mcinit_diags_to_json(d);
}

json_t *
mcx_job_derived_to_json(const struct mcinit_job *job)
{
	return mcinit_derived_to_json(&job->dv);
}

bool
mcx_job_lint_only(const struct mcinit_job *job)
{
	return job->lint_only;
}

json_t *
mcx_job_result_json(const struct mcinit_job *job, const struct mcinit_diags *d, bool valid,
                    bool config)
{
	json_t *out = json_object();

	json_object_set_new(out, "valid", json_boolean(valid));
	json_object_set_new(out, "diagnostics", mcinit_diags_to_json(d));
	json_object_set_new(out, "derived",
	                    job->lint_only ? json_null() : mcinit_derived_to_json(&job->dv));
	if (config && !job->lint_only)
		json_object_set_new(out, "config", mcinit_job_resolved_json(job));
	return out;
}

/* The tool header's name for config's script memo (validate holds a launch
 * script's interpretation across the jobs it makes of it). */
void
mcx_script_memo(bool hold)
{
	mcinit_config_script_memo(hold);
}
