/* yaml-dump.c — prints the JSON tree mcinit reads from a YAML file, for the
 * OmegaConf oracle test (oracle.sh).  Exit 0, 1 when an error-severity note
 * was found (Bridge's loader would refuse the file too), 65 when the file
 * does not parse.  Notes go to stderr as LINE:COL: CODE: message. */
#include <stdio.h>
#include <stdlib.h>

#include "input/yamltree.h"

int
main(int argc, char **argv)
{
	struct mcinit_err err = {0};
	struct mcinit_yaml y;
	size_t len, i;
	char *text;
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: yaml-dump FILE.yaml\n");
		return 64;
	}
	text = mcinit_read_file(argv[1], &len, &err);
	if (text == NULL) {
		fprintf(stderr, "%s\n", err.msg);
		return 66;
	}
	if (mcinit_yaml_parse(text, len, NULL, NULL, &y, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		free(text);
		return 65;
	}
	for (i = 0; i < y.nnotes; i++) {
		fprintf(stderr, "%d:%d: %s: %s\n", y.notes[i].line, y.notes[i].col, y.notes[i].code,
		        y.notes[i].msg);
		if (y.notes[i].sev == MCINIT_ERROR)
			rc = 1;
	}
	json_dumpf(y.root, stdout,
	           JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
	putchar('\n');
	mcinit_yaml_destroy(&y);
	free(text);
	return rc;
}
