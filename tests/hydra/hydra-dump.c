/*
 * hydra-dump.c — prints mcinit's parse of Hydra override words in the
 * canonical form of tests/oracle/bridge/hydra_words.py judge, so that the
 * two can be compared line by line (tests/hydra/words.sh).
 *
 *   hydra-dump FILE     FILE: one JSON string a line (the words)
 *
 * Each line out: {"word": W, "type": T, "key": K, "package": P|null,
 * "value": V} or {"word": W, "error": "HydraException"}, with Python's
 * json.dumps(ensure_ascii=False) spelling.  With -v an error also carries
 * mcinit's column and reason on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/hydra.h"

static void
put_str(struct mcx_buf *b, const char *s, size_t n)
{
	mcx_buf_addc(b, '"');
	for (size_t k = 0; k < n; k++) {
		unsigned char c = (unsigned char)s[k];

		switch (c) {
		case '"':
			mcx_buf_adds(b, "\\\"");
			break;
		case '\\':
			mcx_buf_adds(b, "\\\\");
			break;
		case '\n':
			mcx_buf_adds(b, "\\n");
			break;
		case '\r':
			mcx_buf_adds(b, "\\r");
			break;
		case '\t':
			mcx_buf_adds(b, "\\t");
			break;
		case '\b':
			mcx_buf_adds(b, "\\b");
			break;
		case '\f':
			mcx_buf_adds(b, "\\f");
			break;
		default:
			if (c < 0x20)
				mcx_buf_printf(b, "\\u%04x", c);
			else
				mcx_buf_addc(b, (char)c);
		}
	}
	mcx_buf_addc(b, '"');
}

static const char *
sweep_class(const struct mcinit_hy_value *v)
{
	switch (v->sweep) {
	case MCINIT_HY_CHOICE:
		return "ChoiceSweep";
	case MCINIT_HY_RANGE:
		return "RangeSweep";
	case MCINIT_HY_INTERVAL:
		return "IntervalSweep";
	default:
		return NULL; /* a Glob is not a Sweep */
	}
}

/* A dict key as Python's str() writes it. */
static void
put_key(struct mcx_buf *b, const struct mcinit_hy_value *k)
{
	char f[40];

	switch (k->type) {
	case MCINIT_HY_NULL:
		put_str(b, "None", 4);
		break;
	case MCINIT_HY_BOOL:
		put_str(b, k->b ? "True" : "False", k->b ? 4 : 5);
		break;
	case MCINIT_HY_INT:
		put_str(b, k->text, strlen(k->text));
		break;
	case MCINIT_HY_FLOAT:
		mcinit_hy_float_repr(k->f, f, sizeof f);
		put_str(b, f, strlen(f));
		break;
	default:
		put_str(b, k->text, k->len);
	}
}

static void
put_value(struct mcx_buf *b, const struct mcinit_hy_value *v)
{
	char f[40];

	switch (v->type) {
	case MCINIT_HY_NULL:
		mcx_buf_adds(b, "null");
		break;
	case MCINIT_HY_BOOL:
		mcx_buf_adds(b, v->b ? "{\"bool\": true}" : "{\"bool\": false}");
		break;
	case MCINIT_HY_INT:
		mcx_buf_printf(b, "{\"int\": \"%s\"}", v->text);
		break;
	case MCINIT_HY_FLOAT:
		mcinit_hy_float_repr(v->f, f, sizeof f);
		mcx_buf_printf(b, "{\"float\": \"%s\"}", f);
		break;
	case MCINIT_HY_STR:
		mcx_buf_adds(b, "{\"str\": ");
		put_str(b, v->text, v->len);
		mcx_buf_addc(b, '}');
		break;
	case MCINIT_HY_LIST:
		mcx_buf_addc(b, '[');
		for (size_t k = 0; k < v->n; k++) {
			if (k)
				mcx_buf_adds(b, ", ");
			put_value(b, &v->items[k]);
		}
		mcx_buf_addc(b, ']');
		break;
	case MCINIT_HY_DICT:
		mcx_buf_adds(b, "{\"dict\": [");
		for (size_t k = 0; k < v->n; k++) {
			if (k)
				mcx_buf_adds(b, ", ");
			mcx_buf_addc(b, '[');
			put_key(b, &v->keys[k]);
			mcx_buf_adds(b, ", ");
			put_value(b, &v->items[k]);
			mcx_buf_addc(b, ']');
		}
		mcx_buf_adds(b, "]}");
		break;
	case MCINIT_HY_SWEEP:
		if (sweep_class(v))
			mcx_buf_printf(b, "{\"sweep\": \"%s\"}", sweep_class(v));
		else
			mcx_buf_adds(b, "{\"other\": \"Glob\"}");
		break;
	}
}

/* A top-level value: a sweep is named by Hydra's ValueType. */
static void
put_top(struct mcx_buf *b, const struct mcinit_hy_value *v)
{
	static const char *names[] = {"CHOICE_SWEEP", "RANGE_SWEEP", "INTERVAL_SWEEP",
	                              "GLOB_CHOICE_SWEEP"};

	if (v->type != MCINIT_HY_SWEEP) {
		put_value(b, v);
		return;
	}
	mcx_buf_printf(b, "{\"sweep\": \"%s%s\"}",
	               v->sweep == MCINIT_HY_CHOICE && v->simple ? "SIMPLE_" : "", names[v->sweep]);
}

static void
put_utf8(struct mcx_buf *b, unsigned long c)
{
	if (c < 0x80) {
		mcx_buf_addc(b, (char)c);
	} else if (c < 0x800) {
		mcx_buf_addc(b, (char)(0xC0 | (c >> 6)));
		mcx_buf_addc(b, (char)(0x80 | (c & 0x3F)));
	} else if (c < 0x10000) {
		mcx_buf_addc(b, (char)(0xE0 | (c >> 12)));
		mcx_buf_addc(b, (char)(0x80 | ((c >> 6) & 0x3F)));
		mcx_buf_addc(b, (char)(0x80 | (c & 0x3F)));
	} else {
		mcx_buf_addc(b, (char)(0xF0 | (c >> 18)));
		mcx_buf_addc(b, (char)(0x80 | ((c >> 12) & 0x3F)));
		mcx_buf_addc(b, (char)(0x80 | ((c >> 6) & 0x3F)));
		mcx_buf_addc(b, (char)(0x80 | (c & 0x3F)));
	}
}

/* A JSON string literal (the whole line) into w; 0, or -1 when it is not one. */
static int
json_str(const char *s, struct mcx_buf *w)
{
	if (*s++ != '"')
		return -1;
	while (*s && *s != '"') {
		if (*s != '\\') {
			mcx_buf_addc(w, *s++);
			continue;
		}
		s++;
		switch (*s) {
		case 'n':
			mcx_buf_addc(w, '\n');
			break;
		case 't':
			mcx_buf_addc(w, '\t');
			break;
		case 'r':
			mcx_buf_addc(w, '\r');
			break;
		case 'b':
			mcx_buf_addc(w, '\b');
			break;
		case 'f':
			mcx_buf_addc(w, '\f');
			break;
		case 'u': {
			unsigned long c = strtoul((char[5]){s[1], s[2], s[3], s[4], 0}, NULL, 16);

			s += 4;
			if (c >= 0xD800 && c < 0xDC00 && s[1] == '\\' && s[2] == 'u') {
				unsigned long lo =
				    strtoul((char[5]){s[3], s[4], s[5], s[6], 0}, NULL, 16);

				c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
				s += 6;
			}
			put_utf8(w, c);
			break;
		}
		case '\0':
			return -1;
		default:
			mcx_buf_addc(w, *s);
		}
		s++;
	}
	return *s == '"' ? 0 : -1;
}

int
main(int argc, char **argv)
{
	static const char *kinds[] = {"change", "add", "force_add", "delete"};
	int verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
	FILE *in;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (argc != 2 + verbose) {
		fprintf(stderr, "usage: hydra-dump [-v] FILE\n");
		return 2;
	}
	in = strcmp(argv[1 + verbose], "-") == 0 ? stdin : fopen(argv[1 + verbose], "r");
	if (in == NULL) {
		perror(argv[1 + verbose]);
		return 2;
	}
	while ((n = getline(&line, &cap, in)) > 0) {
		struct mcx_buf w = {0}, out = {0};
		struct mcinit_hy_override o;
		struct mcinit_hy_error e;

		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		if (json_str(line, &w) < 0) {
			fprintf(stderr, "hydra-dump: not a JSON string: %s\n", line);
			return 2;
		}
		mcx_buf_adds(&out, "{\"word\": ");
		put_str(&out, w.data ? w.data : "", w.len);
		if (mcinit_hydra_parse(w.data ? w.data : "", w.len, &o, &e) < 0) {
			mcx_buf_adds(&out, ", \"error\": \"HydraException\"}");
			if (verbose)
				fprintf(stderr, "%s: col %d: %s: %s\n", line, e.col, e.what, e.msg);
		} else {
			mcx_buf_printf(&out, ", \"type\": \"%s\", \"key\": ", kinds[o.kind]);
			put_str(&out, o.key, strlen(o.key));
			mcx_buf_adds(&out, ", \"package\": ");
			if (o.package)
				put_str(&out, o.package, strlen(o.package));
			else
				mcx_buf_adds(&out, "null");
			if (o.has_value) {
				mcx_buf_adds(&out, ", \"value\": ");
				put_top(&out, &o.value);
			}
			mcx_buf_addc(&out, '}');
			mcinit_hydra_free(&o);
		}
		puts(mcx_buf_cstr(&out));
		mcx_buf_free(&w);
		mcx_buf_free(&out);
	}
	free(line);
	if (in != stdin)
		fclose(in);
	return 0;
}
