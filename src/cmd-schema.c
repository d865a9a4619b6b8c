/*
 * cmd-schema.c — `mcinit schema`: the configuration schema as JSON Schema,
 * generated from schema.def so editors and other tools can check job files
 * with the same table mcinit uses (the library writes it:
 * mcinit_config_schema).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sysexits.h>

#include "commands.h"

static const char doc[] =
    "Print the job configuration schema (JSON Schema, draft 2020-12), generated from the "
    "same table that drives the loaders.\v" MCINIT_EXIT_CODES_DOC;

const struct argp mcinit_schema_argp = {NULL, NULL, NULL, doc, NULL, NULL, NULL};

int
mcinit_cmd_schema(int argc, char **argv, int argi0)
{
	char *s;
	int rc;

	(void)argi0;
	argv[0] = "mcinit schema";
	argp_parse(&mcinit_schema_argp, argc, argv, 0, NULL, NULL);
	s = mcinit_config_schema();
	rc = s && fputs(s, stdout) >= 0 && putchar('\n') != EOF ? 0 : -1;
	free(s);
	return rc < 0 ? EX_IOERR : 0;
}
