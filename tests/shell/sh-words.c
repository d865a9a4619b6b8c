/* sh-words.c — what mcinit reads from a launch script, for the real-bash
 * oracle (tests/shell/oracle.sh): the chosen command's words, NUL-separated,
 * a word known only at run time prefixed with \001; with -e, the job's
 * environment instead (NAME=VALUE, or NAME alone when unset, one a line);
 * with -l, the launcher's facts and the notes (and warnings), placed in
 * their file; with -c, how many launches
 * are judged one by one; -n K: launch K of those (1 = the first); -a ARGS:
 * the script's arguments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shell/shell.h"

int
main(int argc, char **argv)
{
	struct mcinit_err err = {0};
	struct mcinit_shscan sc;
	const char *mode = "", *args = NULL;
	size_t len, i;
	char *text;
	int a = 1, launch = 0;

	for (; a + 1 < argc && argv[a][0] == '-'; a++)
		if (strcmp(argv[a], "-a") == 0 && a + 2 < argc)
			args = argv[++a];
		else if (strcmp(argv[a], "-n") == 0 && a + 2 < argc)
			launch = atoi(argv[++a]);
		else
			mode = argv[a];
	if (a != argc - 1) {
		fprintf(stderr, "usage: sh-words [-e|-l|-c] [-n K] [-a ARGS] SCRIPT\n");
		return 64;
	}
	text = mcinit_read_file(argv[a], &len, &err);
	if (text == NULL || mcinit_shscan_parse_file(text, len, argv[a], args, &sc, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		free(text);
		return 65;
	}
	if (launch > 0 && (size_t)launch <= sc.nlaunches) { /* that launch alone */
		struct mcinit_shscan one = sc.launches[launch - 1];

		sc.launches[launch - 1] = (struct mcinit_shscan){0};
		mcinit_shscan_destroy(&sc);
		sc = one;
	}
	if (strcmp(mode, "-c") == 0) {
		printf("%zu\n", sc.nlaunches);
	} else if (strcmp(mode, "-e") == 0) {
		for (i = 0; i < sc.nenv; i++)
			if (sc.env[i].remote)
				continue; /* not in the launcher's own environment */
			else if (sc.env[i].value)
				printf("%s=%s\n", sc.env[i].name, sc.env[i].value);
			else
				printf("%s\n", sc.env[i].name);
	} else if (strcmp(mode, "-l") == 0) {
		printf("launcher=%s world_size=%lld nnodes=%lld nproc_per_node=%lld source=%s "
		       "master=%s:%lld\n",
		       sc.launch.launcher ? sc.launch.launcher : "-", sc.launch.world_size,
		       sc.launch.nnodes, sc.launch.nproc_per_node,
		       sc.launch.world_size_source ? sc.launch.world_size_source : "-",
		       sc.launch.master_addr ? sc.launch.master_addr : "-", sc.launch.master_port);
		for (i = 0; i < sc.nnotes; i++) /* FILE:LINE:COL in another file */
			printf("%s %s%s%d:%d %s\n", sc.notes[i].warn ? "warning" : "note",
			       sc.notes[i].file ? sc.files[sc.notes[i].file - 1] : "",
			       sc.notes[i].file ? ":" : "", sc.notes[i].line, sc.notes[i].col,
			       sc.notes[i].msg);
	} else {
		/* the flags' opaque marks; words before the script are checked
		 * for `$` instead (launcher options are rarely run-time values) */
		size_t first = sc.argc >= sc.nwords ? sc.argc - sc.nwords : 0;

		for (i = 0; i < sc.argc; i++) {
			int op = i >= first ? sc.words[i - first].opaque
			                    : strchr(sc.argv[i], '$') != NULL ||
			                          strchr(sc.argv[i], '`') != NULL;

			if (op)
				putchar('\001');
			fwrite(sc.argv[i], 1, strlen(sc.argv[i]) + 1, stdout);
		}
	}
	mcinit_shscan_destroy(&sc);
	free(text);
	return 0;
}
