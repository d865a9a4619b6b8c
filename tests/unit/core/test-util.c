/* Unit tests: util helpers (number formatting, NUL location, buffers). */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

Test(util, utoa_matches_printf)
{
	static const unsigned long long v[] = {
	    0, 7, 9, 10, 99, 100, 101, 999, 1000, 65535, 1048576, 4294967296ULL, ULLONG_MAX};
	char buf[32], want[32], *end = buf + sizeof buf - 1;
	size_t i;

	for (i = 0; i < sizeof v / sizeof v[0]; i++) {
		char *q = mcinit_utoa_rev(end, v[i]);

		*end = '\0';
		snprintf(want, sizeof want, "%llu", v[i]);
		cr_assert_str_eq(q, want);
	}
}

/* Every digit count and its boundaries, every number below 10^6, and the
 * powers of ten and their neighbours up to ULLONG_MAX. */
Test(util, put_u_matches_printf)
{
	char buf[32], want[32];
	unsigned long long v, p;
	int k;

	for (v = 0; v < 1000000; v++) {
		*mcinit_put_u(buf, v) = '\0';
		snprintf(want, sizeof want, "%llu", v);
		cr_assert_str_eq(buf, want);
	}
	for (p = 1, k = 0; k < 20; k++, p *= 10) {
		unsigned long long t[] = {p - 1, p, p + 1, 2 * p - 1, 9 * p + (p - 1)};
		size_t i;

		for (i = 0; i < sizeof t / sizeof t[0]; i++) {
			*mcinit_put_u(buf, t[i]) = '\0';
			snprintf(want, sizeof want, "%llu", t[i]);
			cr_assert_str_eq(buf, want);
		}
	}
	*mcinit_put_u(buf, ULLONG_MAX) = '\0';
	snprintf(want, sizeof want, "%llu", ULLONG_MAX);
	cr_assert_str_eq(buf, want);
}

Test(util, buf_add_long_signs)
{
	struct mcx_buf b = {0};

	mcx_buf_add_long(&b, -42);
	mcx_buf_addc(&b, ' ');
	mcx_buf_add_long(&b, LONG_MIN);
	mcx_buf_addc(&b, ' ');
	mcx_buf_add_long(&b, 0);
	cr_assert_str_eq(mcx_buf_cstr(&b), "-42 -9223372036854775808 0");
	mcx_buf_free(&b);
}

Test(util, find_nul_position)
{
	const char text[] = "ab\nc\xc3\xa9\0x";
	int line = 0, col = 0;

	cr_assert_eq(mcinit_find_nul(text, sizeof text - 1, &line, &col), 1);
	cr_assert_eq(line, 2);
	cr_assert_eq(col, 3);
	cr_assert_eq(mcinit_find_nul("abc", 3, &line, &col), 0);
}

Test(util, read_file_missing_is_noinput)
{
	struct mcinit_err err = {0};

	cr_assert_null(mcinit_read_file("/nonexistent/x.json", NULL, &err));
	cr_assert_eq(err.code, MCINIT_E_NOINPUT);
	cr_assert(strstr(err.msg, "/nonexistent/x.json") != NULL);
}

Test(util, utf8_sanitize)
{
	char *s = mcx_utf8_sanitize("ok \xc3\xa9 \xff bad \xed\xa0\x80 \xc0\xaf end");

	cr_assert_str_eq(s, "ok \xc3\xa9 \xef\xbf\xbd bad \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd "
	                    "\xef\xbf\xbd\xef\xbf\xbd end");
	free(s);
	s = mcx_utf8_sanitize("\xf0\x9f\x98\x80");
	cr_assert_str_eq(s, "\xf0\x9f\x98\x80");
	free(s);
}

Test(util, utf8_len_rules)
{
	cr_assert_eq(mcx_utf8_len((const unsigned char *)"a", 1), 1);
	cr_assert_eq(mcx_utf8_len((const unsigned char *)"\xc3\xa9", 2), 2);
	cr_assert_eq(mcx_utf8_len((const unsigned char *)"\xc3\xa9", 1), 0);         /* cut short */
	cr_assert_eq(mcx_utf8_len((const unsigned char *)"\xe0\x80\xaf", 3), 0);     /* overlong */
	cr_assert_eq(mcx_utf8_len((const unsigned char *)"\xed\xa0\x80", 3), 0);     /* surrogate */
	cr_assert_eq(mcx_utf8_len((const unsigned char *)"\xf4\x90\x80\x80", 4), 0); /* > 10FFFF */
	cr_assert_eq(mcx_utf8_len((const unsigned char *)"\xf0\x9f\x98\x80", 4), 4);
}

/* The plain O(la*lb) Levenshtein distance, the reference for the banded one. */
static size_t
full_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[90][90];

	for (size_t i = 0; i <= la; i++)
		for (size_t j = 0; j <= lb; j++) {
			if (i == 0 || j == 0) {
				d[i][j] = i + j;
				continue;
			}
			size_t v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

Test(util, edit_distance_matches_full_levenshtein)
{
	unsigned seed = 12345;
	char a[40], b[40];

	for (int t = 0; t < 20000; t++) {
		size_t la = (seed = seed * 1103515245u + 12345u) >> 16 & 31;
		size_t lb = (seed = seed * 1103515245u + 12345u) >> 16 & 31;
		size_t max = (seed = seed * 1103515245u + 12345u) >> 16 & 7, want, got;

		/* A three-letter alphabet makes near matches common. */
		for (size_t i = 0; i < la; i++)
			a[i] = "abc"[((seed = seed * 1103515245u + 12345u) >> 16) % 3];
		for (size_t i = 0; i < lb; i++)
			b[i] = "abc"[((seed = seed * 1103515245u + 12345u) >> 16) % 3];
		a[la] = b[lb] = '\0';
		want = full_distance(a, b);
		got = mcinit_edit_distance(a, b, max);
		if (want > max)
			cr_assert_gt(got, max, "'%s' '%s' max %zu: %zu (distance %zu)", a, b, max,
			             got, want);
		else
			cr_assert_eq(got, want, "'%s' '%s' max %zu: %zu, want %zu", a, b, max, got,
			             want);
	}
}

/* What a suggestion must be: the first candidate at the least full
 * distance within the cap (a quarter of the word's length, at least 2). */
static const char *
first_closest(const char *word, const char *const *cands, size_t n)
{
	size_t cap = strlen(word) / 4 < 2 ? 2 : strlen(word) / 4, best = cap + 1;
	const char *want = NULL;

	for (size_t i = 0; i < n; i++) {
		size_t d = full_distance(word, cands[i]);

		if (d < best) {
			best = d;
			want = cands[i];
		}
	}
	return want;
}

/* The filters before the distance never change a suggestion: the pick is
 * the first candidate at the least full distance within the cap. */
Test(util, suggest_is_the_first_closest_within_the_cap)
{
	unsigned seed = 777;
	char words[65][24];
	const char *cands[64];
	struct mcinit_suggest_key keys[64];

	for (int t = 0; t < 2000; t++) {
		size_t n = 1 + ((seed = seed * 1103515245u + 12345u) >> 16) % 64, i;
		const char *want = NULL, *got;

		for (i = 0; i <= n; i++) {
			size_t len = ((seed = seed * 1103515245u + 12345u) >> 16) % 23;

			/* a small alphabet with `-` and `_`: near matches are common */
			for (size_t k = 0; k < len; k++)
				words[i][k] =
				    "ab-_c"[((seed = seed * 1103515245u + 12345u) >> 16) % 5];
			words[i][len] = '\0';
			if (i < n)
				cands[i] = words[i];
		}
		want = first_closest(words[n], cands, n);
		got = mcinit_suggest(words[n], cands, n);
		cr_assert_eq(got, want, "'%s': %s, want %s", words[n], got ? got : "none",
		             want ? want : "none");
		for (i = 0; i < n; i++)
			mcinit_suggest_key_of(cands[i], &keys[i]);
		got = mcinit_suggest_keyed(words[n], cands, keys, n);
		cr_assert_eq(got, want, "keyed '%s': %s, want %s", words[n], got ? got : "none",
		             want ? want : "none");
	}
}

/* Words of 1 to 64 bytes take the bit-vector distance, longer ones the
 * banded one: around that length, with bytes past ASCII, a suggestion is
 * still the first candidate at the least full distance within the cap. */
Test(util, suggest_around_64_bytes_is_the_first_closest)
{
	unsigned seed = 4242;
	char words[17][90];
	const char *cands[16];

	for (int t = 0; t < 3000; t++) {
		size_t n = 1 + ((seed = seed * 1103515245u + 12345u) >> 16) % 16, i;
		size_t base = 56 + ((seed = seed * 1103515245u + 12345u) >> 16) % 14;
		const char *want = NULL, *got;

		/* the word, then candidates that are a few random edits of it */
		for (size_t k = 0; k < base; k++)
			words[n][k] = "ab_\xe9"[((seed = seed * 1103515245u + 12345u) >> 16) % 4];
		words[n][base] = '\0';
		for (i = 0; i < n; i++) {
			size_t len = base,
			       edits = ((seed = seed * 1103515245u + 12345u) >> 16) % 24;

			memcpy(words[i], words[n], base + 1);
			for (size_t e = 0; e < edits; e++) {
				size_t at =
				    ((seed = seed * 1103515245u + 12345u) >> 16) % (len + 1);
				unsigned op = ((seed = seed * 1103515245u + 12345u) >> 16) % 3;
				char c =
				    "ab_\xe9"[((seed = seed * 1103515245u + 12345u) >> 16) % 4];

				if (op == 0 && len < 88) { /* insert */
					memmove(words[i] + at + 1, words[i] + at, len - at + 1);
					words[i][at] = c;
					len++;
				} else if (op == 1 && at < len) { /* delete */
					memmove(words[i] + at, words[i] + at + 1, len - at);
					len--;
				} else if (at < len) {
					words[i][at] = c;
				}
			}
			cands[i] = words[i];
		}
		want = first_closest(words[n], cands, n);
		got = mcinit_suggest(words[n], cands, n);
		cr_assert_eq(got, want, "'%s': %s, want %s", words[n], got ? got : "none",
		             want ? want : "none");
	}
}

/* A candidate's counts stop at 255 (the word's too): the bound stays a
 * bound on long runs of one character, and the key is its length. */
Test(util, suggest_key_counts_stop_at_255)
{
	char a[301], b[301];
	struct mcinit_suggest_key k;

	memset(a, 'a', 300);
	a[300] = '\0';
	memcpy(b, a, sizeof b);
	b[299] = 'b';
	mcinit_suggest_key_of(a, &k);
	cr_assert_eq(k.len, 300);
	cr_assert_eq(k.counts['a' & 31], 255);
	cr_assert_eq(k.chars, (uint64_t)1 << ('a' & 63));
	/* 300 characters: 75 edits allowed, one needed */
	cr_assert_str_eq(mcinit_suggest(a, (const char *const[]){b}, 1), b);
}

/* ---- mcinit_dl_find: where CUDA's and NCCL's libraries are looked for ---- */

#include <dlfcn.h>
#include <unistd.h>

#include "core/dlfind.h"

/* A library no loader path has: a copy of libm under another name. */
static void
plant(const char *dir, const char *name)
{
	char *cmd = mcx_xasprintf("mkdir -p '%s' && cp \"$(find /lib /usr/lib -name "
	                          "'libm.so.6' | head -n 1)\" '%s/%s'",
	                          dir, dir, name);

	cr_assert_eq(system(cmd), 0, "%s", cmd);
	free(cmd);
}

Test(dlfind, env_var_then_python_environments_then_dir)
{
	static const char *const subs[] = {"nccl", "cu13", NULL};
	char tmp[] = "/tmp/mcinit-dlfind-XXXXXX", path[512], why[1024], *d;
	void *h;

	cr_assert(mkdtemp(tmp));
	unsetenv("MCINIT_PROBE_LIBRARY");
	unsetenv("CONDA_PREFIX");
	/* nowhere: the loader's error, and what else was searched */
	setenv("VIRTUAL_ENV", tmp, 1);
	h = mcinit_dl_find("libmcprobe.so.7", "MCINIT_PROBE_LIBRARY", subs, NULL, path, sizeof path,
	                   why, sizeof why);
	cr_expect_null(h);
	cr_expect(strstr(why, "libmcprobe.so.7") && strstr(why, "MCINIT_PROBE_LIBRARY"), "%s", why);
	/* a virtual environment's nvidia/SUB/lib */
	d = mcx_xasprintf("%s/lib/python3.12/site-packages/nvidia/cu13/lib", tmp);
	plant(d, "libmcprobe.so.7");
	h = mcinit_dl_find("libmcprobe.so.7", "MCINIT_PROBE_LIBRARY", subs, NULL, path, sizeof path,
	                   why, sizeof why);
	cr_expect_not_null(h, "%s", why);
	cr_expect(strstr(path, "site-packages/nvidia/cu13/lib/libmcprobe.so.7"), "%s", path);
	if (h)
		dlclose(h);
	free(d);
	/* the python3 on PATH: its prefix's site-packages */
	unsetenv("VIRTUAL_ENV");
	d = mcx_xasprintf("mkdir -p %s/py/bin && ln -s /bin/true %s/py/bin/python3 && "
	                  "mkdir -p %s/py/lib/python3.11/site-packages/nvidia/nccl/lib && "
	                  "cp %s/lib/python3.12/site-packages/nvidia/cu13/lib/libmcprobe.so.7 "
	                  "%s/py/lib/python3.11/site-packages/nvidia/nccl/lib/",
	                  tmp, tmp, tmp, tmp, tmp);
	cr_assert_eq(system(d), 0);
	free(d);
	{
		char *old = mcx_xstrdup(getenv("PATH") ? getenv("PATH") : "");
		char *p = mcx_xasprintf("%s/py/bin:%s", tmp, old);

		setenv("PATH", p, 1);
		h = mcinit_dl_find("libmcprobe.so.7", "MCINIT_PROBE_LIBRARY", subs, NULL, path,
		                   sizeof path, why, sizeof why);
		setenv("PATH", old, 1);
		cr_expect_not_null(h, "%s", why);
		cr_expect(strstr(path, "/py/lib/python3.11/site-packages/nvidia/nccl/lib/"), "%s",
		          path);
		if (h)
			dlclose(h);
		free(p);
		free(old);
	}
	/* the variable wins, as a folder or as a file, and only it is tried */
	d = mcx_xasprintf("%s/lib/python3.12/site-packages/nvidia/cu13/lib", tmp);
	setenv("MCINIT_PROBE_LIBRARY", d, 1);
	h = mcinit_dl_find("libmcprobe.so.7", "MCINIT_PROBE_LIBRARY", subs, NULL, path, sizeof path,
	                   why, sizeof why);
	cr_expect_not_null(h, "%s", why);
	if (h)
		dlclose(h);
	setenv("MCINIT_PROBE_LIBRARY", "/nonexistent/libmcprobe.so.7", 1);
	h = mcinit_dl_find("libmcprobe.so.7", "MCINIT_PROBE_LIBRARY", subs, d, path, sizeof path,
	                   why, sizeof why);
	cr_expect_null(h);
	cr_expect(strstr(why, "MCINIT_PROBE_LIBRARY=/nonexistent"), "%s", why);
	/* the last resort: the given folder */
	unsetenv("MCINIT_PROBE_LIBRARY");
	h = mcinit_dl_find("libmcprobe.so.7", "MCINIT_PROBE_LIBRARY", subs, d, path, sizeof path,
	                   why, sizeof why);
	cr_expect_not_null(h, "%s", why);
	if (h)
		dlclose(h);
	free(d);
	d = mcx_xasprintf("rm -rf '%s'", tmp);
	cr_expect_eq(system(d), 0);
	free(d);
}

/* ---- mcinit_dl_places: the trainer's Python's order (issue 40) ---- */

static void
touch(const char *root, const char *rel)
{
	char *cmd =
	    mcx_xasprintf("mkdir -p \"$(dirname '%s/%s')\" && : >'%s/%s'", root, rel, root, rel);

	cr_assert_eq(system(cmd), 0, "%s", cmd);
	free(cmd);
}

/* The index of the place whose file ends with tail, or -1. */
static int
at(const struct mcinit_dl_place *v, size_t n, const char *tail)
{
	size_t i, k = strlen(tail);

	for (i = 0; i < n; i++)
		if (strlen(v[i].file) >= k && strcmp(v[i].file + strlen(v[i].file) - k, tail) == 0)
			return (int)i;
	return -1;
}

Test(dlfind, places_in_the_order_python_finds_them)
{
	static const char *const subs[] = {"nccl", NULL};
	char tmp[] = "/tmp/mcinit-places-XXXXXX", *s;
	struct mcinit_dl_place v[32];
	char *old = mcx_xstrdup(getenv("PATH") ? getenv("PATH") : "");
	size_t n;

	cr_assert(mkdtemp(tmp));
	touch(tmp, "venv/lib/python3.12/site-packages/nvidia/nccl/lib/libx.so.2");
	touch(tmp, "venv/lib/python3.12/site-packages/nvidia/cu13/lib/libx.so.2"); /* not a sub */
	touch(tmp, "conda/lib/python3.11/site-packages/nvidia/nccl/lib/libx.so.2");
	touch(tmp, "conda/lib/libx.so.2");
	touch(tmp, "py/lib/python3.10/site-packages/nvidia/nccl/lib/libx.so.2");
	touch(tmp, "py/lib/python3.10/dist-packages/nvidia/nccl/lib/libx.so.2");
	touch(tmp, "py/local/lib/python3.10/dist-packages/nvidia/nccl/lib/libx.so.2");
	touch(tmp, "home/.local/lib/python3.10/site-packages/nvidia/nccl/lib/libx.so.2");
	touch(tmp, "cuda/lib64/libx.so.2");
	touch(tmp, "ld/libx.so.2");
	touch(tmp, "kit/libx.so.2");
	s = mcx_xasprintf("mkdir -p %s/py/bin && ln -s /bin/true %s/py/bin/python3", tmp, tmp);
	cr_assert_eq(system(s), 0);
	free(s);
	unsetenv("MCINIT_PROBE_LIBRARY");
#define SETP(var, fmt)                                                                             \
	do {                                                                                       \
		char *x_ = mcx_xasprintf(fmt, tmp);                                                \
		setenv(var, x_, 1);                                                                \
		free(x_);                                                                          \
	} while (0)
	SETP("VIRTUAL_ENV", "%s/venv");
	SETP("CONDA_PREFIX", "%s/conda");
	SETP("CUDA_HOME", "%s/cuda");
	SETP("LD_LIBRARY_PATH", "%s/ld");
	SETP("HOME", "%s/home");
	{
		/* the fake python3 first; the tools system() runs after it */
		char *pp = mcx_xasprintf("%s/py/bin:%s", tmp, old);

		setenv("PATH", pp, 1);
		free(pp);
	}
	s = mcx_xasprintf("%s/kit", tmp);
	n = mcinit_dl_places("libx.so.2", "MCINIT_PROBE_LIBRARY", subs, s, v, 32);
	/* the active venv, conda's wheel then its lib, the python3 on PATH (the
	 * user's site first: not a venv), CUDA_HOME, LD_LIBRARY_PATH, the
	 * loader, the toolkit */
	cr_expect_eq(at(v, n, "venv/lib/python3.12/site-packages/nvidia/nccl/lib/libx.so.2"), 0);
	cr_expect_eq(at(v, n, "cu13/lib/libx.so.2"), -1);
	cr_expect_eq(at(v, n, "conda/lib/python3.11/site-packages/nvidia/nccl/lib/libx.so.2"), 1);
	cr_expect_eq(at(v, n, "conda/lib/libx.so.2"), 2);
	cr_expect_eq(at(v, n, "home/.local/lib/python3.10/site-packages/nvidia/nccl/lib/libx.so.2"),
	             3);
	cr_expect_eq(at(v, n, "py/lib/python3.10/site-packages/nvidia/nccl/lib/libx.so.2"), 4);
	cr_expect_eq(at(v, n, "py/local/lib/python3.10/dist-packages/nvidia/nccl/lib/libx.so.2"),
	             5);
	cr_expect_eq(at(v, n, "py/lib/python3.10/dist-packages/nvidia/nccl/lib/libx.so.2"), 6);
	cr_expect_eq(at(v, n, "cuda/lib64/libx.so.2"), 7);
	cr_expect_eq(at(v, n, "ld/libx.so.2"), 8);
	cr_expect_str_eq(v[9].file, "libx.so.2");
	cr_expect_eq(at(v, n, "kit/libx.so.2"), 10);
	cr_expect_eq(n, 11);
	cr_expect(strstr(v[0].how, "VIRTUAL_ENV=") && strstr(v[0].how, "nvidia/nccl/lib"), "%s",
	          v[0].how);
	cr_expect(strstr(v[3].how, "the python3 on PATH"), "%s", v[3].how);
	cr_expect(strstr(v[7].how, "CUDA_HOME="), "%s", v[7].how);
	cr_expect(strstr(v[9].how, "dynamic loader"), "%s", v[9].how);
	/* a venv's python3 (pyvenv.cfg): its own site-packages only */
	touch(tmp, "py/pyvenv.cfg");
	unsetenv("VIRTUAL_ENV");
	unsetenv("CONDA_PREFIX");
	n = mcinit_dl_places("libx.so.2", "MCINIT_PROBE_LIBRARY", subs, NULL, v, 32);
	cr_expect_eq(at(v, n, "py/lib/python3.10/site-packages/nvidia/nccl/lib/libx.so.2"), 0);
	cr_expect_eq(at(v, n, "home/.local/lib/python3.10/site-packages/nvidia/nccl/lib/libx.so.2"),
	             -1);
	cr_expect_eq(at(v, n, "py/lib/python3.10/dist-packages/nvidia/nccl/lib/libx.so.2"), -1);
	/* the variable alone */
	SETP("MCINIT_PROBE_LIBRARY", "%s/ld");
	n = mcinit_dl_places("libx.so.2", "MCINIT_PROBE_LIBRARY", subs, NULL, v, 32);
	cr_expect_eq(n, 1);
	cr_expect_eq(at(v, n, "ld/libx.so.2"), 0);
	cr_expect(strstr(v[0].how, "MCINIT_PROBE_LIBRARY="), "%s", v[0].how);
#undef SETP
	unsetenv("MCINIT_PROBE_LIBRARY");
	unsetenv("CUDA_HOME");
	unsetenv("LD_LIBRARY_PATH");
	setenv("PATH", old, 1);
	free(old);
	free(s);
	s = mcx_xasprintf("rm -rf '%s'", tmp);
	cr_expect_eq(system(s), 0);
	free(s);
}

/* mcinit_dl_find_py opens the first that loads and names a different file
 * seen after it; a link to the same file is not another library */
Test(dlfind, find_py_names_another_copy)
{
	static const char *const subs[] = {"nccl", NULL};
	char tmp[] = "/tmp/mcinit-findpy-XXXXXX", why[2048], *d;
	struct mcinit_dl_found f;
	void *h;

	cr_assert(mkdtemp(tmp));
	unsetenv("MCINIT_PROBE_LIBRARY");
	unsetenv("CONDA_PREFIX");
	unsetenv("LD_LIBRARY_PATH");
	d = mcx_xasprintf("%s/venv/lib/python3.12/site-packages/nvidia/nccl/lib", tmp);
	plant(d, "libmcprobe.so.7");
	free(d);
	d = mcx_xasprintf("mkdir -p %s/cuda/lib64 && ln -s "
	                  "%s/venv/lib/python3.12/site-packages/nvidia/nccl/lib/libmcprobe.so.7 "
	                  "%s/cuda/lib64/libmcprobe.so.7",
	                  tmp, tmp, tmp);
	cr_assert_eq(system(d), 0);
	free(d);
	d = mcx_xasprintf("%s/venv", tmp);
	setenv("VIRTUAL_ENV", d, 1);
	free(d);
	d = mcx_xasprintf("%s/cuda", tmp);
	setenv("CUDA_HOME", d, 1);
	free(d);
	h = mcinit_dl_find_py("libmcprobe.so.7", "MCINIT_PROBE_LIBRARY", subs, NULL, &f, why,
	                      sizeof why);
	cr_assert_not_null(h, "%s", why);
	cr_expect(strstr(f.used.file, "/venv/lib/python3.12/site-packages/nvidia/nccl/lib/"), "%s",
	          f.used.file);
	cr_expect(strstr(f.used.how, "VIRTUAL_ENV="), "%s", f.used.how);
	cr_expect_str_eq(f.other.file, "", "the same file through a link: %s", f.other.file);
	dlclose(h);
	/* a real second copy */
	d = mcx_xasprintf("%s/cuda/lib64", tmp);
	{
		char *l = mcx_xasprintf("%s/libmcprobe.so.7", d);

		cr_assert_eq(unlink(l), 0);
		free(l);
	}
	plant(d, "libmcprobe.so.7");
	free(d);
	h = mcinit_dl_find_py("libmcprobe.so.7", "MCINIT_PROBE_LIBRARY", subs, NULL, &f, why,
	                      sizeof why);
	cr_assert_not_null(h, "%s", why);
	cr_expect(strstr(f.other.file, "/cuda/lib64/libmcprobe.so.7"), "%s", f.other.file);
	cr_expect(strstr(f.other.how, "CUDA_HOME="), "%s", f.other.how);
	dlclose(h);
	/* nothing loads: every place and its reason */
	unsetenv("VIRTUAL_ENV");
	unsetenv("CUDA_HOME");
	h = mcinit_dl_find_py("libmcprobe.so.7", "MCINIT_PROBE_LIBRARY", subs, NULL, &f, why,
	                      sizeof why);
	cr_expect_null(h);
	cr_expect(strstr(why, "libmcprobe.so.7 (the dynamic loader") &&
	              strstr(why, "MCINIT_PROBE_LIBRARY names the file"),
	          "%s", why);
	d = mcx_xasprintf("rm -rf '%s'", tmp);
	cr_expect_eq(system(d), 0);
	free(d);
}
