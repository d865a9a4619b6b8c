/* util.c — see util.h. */
#include "core/util.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void
err_vset(struct mcinit_err *err, int code, const char *source, int line, int col, const char *fmt,
         va_list ap)
{
	int n = 0;

	err->code = code;
	snprintf(err->source, sizeof err->source, "%s", source ? source : "");
	err->line = line;
	err->col = line > 0 ? col : 0;
	err->argi = -1;
	if (err->source[0] != '\0')
		n = snprintf(err->msg, sizeof err->msg, "%s:", err->source);
	if (line > 0)
		n += snprintf(err->msg + n, sizeof err->msg - (size_t)n, "%d:", line);
	if (line > 0 && col > 0)
		n += snprintf(err->msg + n, sizeof err->msg - (size_t)n, "%d:", col);
	if (n > 0)
		n += snprintf(err->msg + n, sizeof err->msg - (size_t)n, " ");
	if ((size_t)n >= sizeof err->msg)
		n = (int)sizeof err->msg - 1;
	err->text_off = (size_t)n;
	vsnprintf(err->msg + n, sizeof err->msg - (size_t)n, fmt, ap);
}

int
mcinit_err_set(struct mcinit_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	err_vset(err, code, NULL, 0, 0, fmt, ap);
	va_end(ap);
	return -1;
}

int
mcinit_err_at(struct mcinit_err *err, int code, const char *source, int line, int col,
              const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	err_vset(err, code, source, line, col, fmt, ap);
	va_end(ap);
	return -1;
}

void
mcinit_err_locate(struct mcinit_err *err, const char *source)
{
	char text[sizeof err->msg];

	if (err == NULL || err->source[0] != '\0')
		return;
	snprintf(text, sizeof text, "%s", err->msg + err->text_off);
	mcinit_err_at(err, err->code, source, err->line, err->col, "%s", text);
}

static mcinit_alloc_failure_fn alloc_failure;

int
mcinit_out_copy(void *out, void *full, size_t n, size_t min)
{
	size_t cap;

	memcpy(&cap, out, sizeof cap);
	if (cap < min)
		return -1;
	if (cap > n)
		cap = n;
	memcpy(full, &cap, sizeof cap); /* what the caller finds filled */
	memcpy(out, full, cap);
	return 0;
}

const char *
mcinit_env_get(const char *const *envp, const char *name)
{
	size_t n = strlen(name);

	if (!envp)
		return getenv(name);
	for (; *envp; envp++)
		if (strncmp(*envp, name, n) == 0 && (*envp)[n] == '=')
			return *envp + n + 1;
	return NULL;
}

void
mcinit_set_alloc_failure(mcinit_alloc_failure_fn fn)
{
	alloc_failure = fn;
}

/* No caller checks for NULL (see util.h), so this must not return: the
 * program's handler decides how to end (the mcinit binary prints and sets
 * its status); without one, SIGABRT, which a debugger or core dump
 * shows at the allocation. */
void
mcinit_oom(size_t n)
{
	if (alloc_failure != NULL)
		alloc_failure(n);
	raise(SIGABRT);
	raise(SIGKILL);          /* SIGABRT was blocked or ignored */
	__builtin_unreachable(); /* SIGKILL cannot be */
}

void *
mcx_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		mcinit_oom(n);
	return p;
}

void *
mcx_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		mcinit_oom(n * size);
	return p;
}

void *
mcx_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL)
		mcinit_oom(n);
	return q;
}

char *
mcx_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(mcx_xmalloc(n), s, n);
}

char *
mcx_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = mcx_xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

char *
mcx_xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		mcinit_oom(strlen(fmt));
	return s;
}

void
mcx_buf_reserve(struct mcx_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;

	if (need <= b->cap)
		return;
	if (b->cap * 2 > need)
		need = b->cap * 2;
	if (need < 256)
		need = 256;
	b->data = mcx_xrealloc(b->data, need);
	b->cap = need;
}

void
mcx_buf_add(struct mcx_buf *b, const void *p, size_t n)
{
	mcx_buf_reserve(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void
mcx_buf_adds(struct mcx_buf *b, const char *s)
{
	mcx_buf_add(b, s, strlen(s));
}

void
mcx_buf_addc(struct mcx_buf *b, char c)
{
	mcx_buf_reserve(b, 1);
	b->data[b->len++] = c;
}

void
mcx_buf_printf(struct mcx_buf *b, const char *fmt, ...)
{
	va_list ap;
	char probe[1];
	int n;

	va_start(ap, fmt);
	n = vsnprintf(probe, sizeof probe, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	mcx_buf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void
mcx_buf_add_long(struct mcx_buf *b, long v)
{
	char tmp[24], *end = tmp + sizeof tmp, *q;

	q = mcinit_utoa_rev(end, v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v);
	if (v < 0)
		*--q = '-';
	mcx_buf_add(b, q, (size_t)(end - q));
}

int
mcinit_find_nul(const char *text, size_t len, int *line, int *col)
{
	const char *z = memchr(text, '\0', len), *p;

	if (z == NULL)
		return 0;
	*line = 1;
	*col = 1;
	for (p = text; p < z; p++) {
		if (*p == '\n') {
			(*line)++;
			*col = 1;
		} else if (((unsigned char)*p & 0xC0) != 0x80) {
			(*col)++;
		}
	}
	return 1;
}

const char *
mcx_buf_cstr(struct mcx_buf *b)
{
	mcx_buf_reserve(b, 0);
	b->data[b->len] = '\0';
	return b->data;
}

void
mcx_buf_free(struct mcx_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

size_t
mcx_utf8_len(const unsigned char *p, size_t avail)
{
	/* The second byte's range is what rules out overlongs (E0, F0),
	 * surrogates (ED) and code points past U+10FFFF (F4). */
	unsigned char lo = 0x80, hi = 0xBF;
	size_t n, k;

	if (avail == 0)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xC2 && p[0] <= 0xDF)
		n = 2;
	else if (p[0] >= 0xE0 && p[0] <= 0xEF)
		n = 3;
	else if (p[0] >= 0xF0 && p[0] <= 0xF4)
		n = 4;
	else
		return 0;
	if (p[0] == 0xE0)
		lo = 0xA0;
	else if (p[0] == 0xED)
		hi = 0x9F;
	else if (p[0] == 0xF0)
		lo = 0x90;
	else if (p[0] == 0xF4)
		hi = 0x8F;
	if (avail < n || p[1] < lo || p[1] > hi)
		return 0;
	for (k = 2; k < n; k++)
		if ((p[k] & 0xC0) != 0x80)
			return 0;
	return n;
}

char *
mcx_utf8_sanitize(const char *s)
{
	struct mcx_buf b = {0};
	const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);

	while (*p) {
		size_t n = mcx_utf8_len(p, (size_t)(end - p));

		if (n == 0) {
			mcx_buf_adds(&b, "\xEF\xBF\xBD");
			n = 1;
		} else {
			mcx_buf_add(&b, p, n);
		}
		p += n;
	}
	mcx_buf_cstr(&b);
	return b.data;
}

size_t
mcinit_edit_distance(const char *a, const char *b, size_t max)
{
	size_t la = strlen(a), lb = strlen(b), inf = max + 1, i, j, *row, res, small[128];

	if ((la > lb ? la - lb : lb - la) > max)
		return inf;
	if (lb == 0)
		return la;
	/* Suggestions compare one word with every flag name: no allocation for
	 * names of ordinary length. */
	row = lb < sizeof small / sizeof small[0] ? small : mcx_xmalloc((lb + 1) * sizeof *row);
	for (j = 0; j <= lb; j++)
		row[j] = j <= max ? j : inf;
	/* Ukkonen's band: a cell further than max from the diagonal is already
	 * over the cap, so each row computes only its 2*max+1 cells. */
	for (i = 1; i <= la; i++) {
		size_t lo = i > max ? i - max : 1, hi = i + max < lb ? i + max : lb;
		size_t diag = row[lo - 1], left = lo == 1 ? (i <= max ? i : inf) : inf, best = inf;

		row[0] = i <= max ? i : inf;
		for (j = lo; j <= hi; j++) {
			size_t up = row[j], v = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < v)
				v = up + 1;
			if (left + 1 < v)
				v = left + 1;
			if (v > inf)
				v = inf;
			row[j] = left = v;
			diag = up;
			if (v < best)
				best = v;
		}
		if (best > max) {
			res = inf;
			goto out;
		}
	}
	res = row[lb];
out:
	if (row != small)
		free(row);
	return res;
}

void
mcinit_suggest_key_of(const char *s, struct mcinit_suggest_key *k)
{
	const char *p;

	k->chars = 0;
	memset(k->counts, 0, sizeof k->counts);
	for (p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;

		k->chars |= (uint64_t)1 << (c & 63);
		if (k->counts[c & 31] < 255)
			k->counts[c & 31]++;
	}
	k->len = (size_t)(p - s);
}

/* Half the L1 distance of the character counts of two words: each edit
 * changes two counts by one at most, so it is the distance or less (32
 * buckets, counts stopping at 255: both only lower it).  For the
 * candidates that pass mcinit_suggestion_may; cheaper than the distance,
 * and sharper than the sets. */
static size_t
count_bound(const unsigned char *a, const unsigned char *b)
{
	unsigned l1 = 0;

#ifdef __SSE2__
	/* asked of every candidate that passes the sets: psadbw is the L1
	 * distance of 8 bytes in one instruction (SSE2 is every x86-64's) */
	for (int i = 0; i < 32; i += 16) {
		__m128i d = _mm_sad_epu8(_mm_loadu_si128((const __m128i *)(a + i)),
		                         _mm_loadu_si128((const __m128i *)(b + i)));

		l1 += (unsigned)_mm_cvtsi128_si32(d) +
		      (unsigned)_mm_cvtsi128_si32(_mm_srli_si128(d, 8));
	}
#else
	for (int i = 0; i < 32; i++)
		l1 += a[i] > b[i] ? (unsigned)(a[i] - b[i]) : (unsigned)(b[i] - a[i]);
#endif
	return (l1 + 1) / 2;
}

void
mcinit_suggestion_init(struct mcinit_suggestion *s, const char *word)
{
	s->word = word;
	s->pick = NULL;
	mcinit_suggest_key_of(word, &s->key);
	if (s->key.len >= 1 && s->key.len <= 64) {
		memset(s->peq, 0, sizeof s->peq);
		for (size_t i = 0; i < s->key.len; i++)
			s->peq[(unsigned char)word[i]] |= (uint64_t)1 << i;
	}
	/* Allow roughly one edit per four characters, at least two: catches
	 * dropped/doubled letters in long snake_case names without proposing
	 * unrelated short words. */
	s->best = (s->key.len / 4 < 2 ? 2 : s->key.len / 4) + 1;
	s->order = SIZE_MAX;
}

/* The edit distance of the suggestion's word (m bytes, 1 to 64: its
 * positions are the bits of a word) and b (n bytes), or max + 1 when it is
 * over max: Myers' bit-vector algorithm in Hyyro's form for Levenshtein
 * distance.  Pv/Mv hold the +1/-1 vertical differences of the current
 * column of the distance matrix, and the score is its last cell; one column
 * is a dozen operations without a branch, where the band of the dynamic
 * programme is 2 max + 1 cells with three comparisons each. */
static size_t
bit_distance(const uint64_t *peq, size_t m, const char *b, size_t n, size_t max)
{
	uint64_t pv = ~(uint64_t)0, mv = 0, high = (uint64_t)1 << (m - 1);
	size_t score = m, j;

	for (j = 0; j < n; j++) {
		uint64_t eq = peq[(unsigned char)b[j]], xv = eq | mv;
		uint64_t xh = (((eq & pv) + pv) ^ pv) | eq;
		uint64_t ph = mv | ~(xh | pv), mh = pv & xh;

		score += (ph & high) != 0;
		score -= (mh & high) != 0;
		/* the first row of the matrix is 0, 1, 2, ...: a +1 comes in */
		ph = ph << 1 | 1;
		mh <<= 1;
		pv = mh | ~(xv | ph);
		mv = ph & xv;
		/* each byte left lowers the distance by one at most */
		if (score > max + (n - j - 1))
			return max + 1;
	}
	return score > max ? max + 1 : score;
}

/* Only a closer candidate matters (or one as close and earlier), so each
 * comparison may give up as soon as it cannot beat the pick. */
void
mcinit_suggestion_try(struct mcinit_suggestion *s, const char *cand,
                      const struct mcinit_suggest_key *k, size_t order)
{
	long room = mcinit_suggestion_room(s, order);
	size_t d;

	if (!mcinit_suggestion_may(s, k, order) ||
	    (long)count_bound(s->key.counts, k->counts) > room)
		return;
	d = s->key.len >= 1 && s->key.len <= 64
	        ? bit_distance(s->peq, s->key.len, cand, k->len, (size_t)room)
	        : mcinit_edit_distance(s->word, cand, (size_t)room);
	if ((long)d <= room) {
		s->best = d;
		s->order = order;
		s->pick = cand;
	}
}

const char *
mcinit_suggest(const char *word, const char *const *cands, size_t n)
{
	struct mcinit_suggestion s;
	struct mcinit_suggest_key k;
	size_t i;

	mcinit_suggestion_init(&s, word);
	for (i = 0; i < n && s.best > 0; i++) {
		mcinit_suggest_key_of(cands[i], &k);
		mcinit_suggestion_try(&s, cands[i], &k, i);
	}
	return s.pick;
}

const char *
mcinit_suggest_keyed(const char *word, const char *const *cands,
                     const struct mcinit_suggest_key *keys, size_t n)
{
	struct mcinit_suggestion s;
	size_t i;

	mcinit_suggestion_init(&s, word);
	for (i = 0; i < n && s.best > 0; i++)
		if (mcinit_suggestion_may(&s, &keys[i], i))
			mcinit_suggestion_try(&s, cands[i], &keys[i], i);
	return s.pick;
}

/* What a file that is not a regular one is, for the message. */
static const char *
file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO (named pipe)";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

char *
mcinit_read_file(const char *path, size_t *len, struct mcinit_err *err)
{
	/* O_NONBLOCK: open() of a FIFO with no writer, or of some devices,
	 * blocks; nothing but a regular file is read, so the open must return
	 * for fstat to refuse the others.  O_NOCTTY: a terminal named as an
	 * input must not become the controlling one. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), flags;
	struct mcx_buf b = {0};
	struct stat st;
	ssize_t n;

	if (fd < 0) {
		mcinit_err_at(err, MCINIT_E_NOINPUT, path, 0, 0, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0) {
		mcinit_err_at(err, MCINIT_E_NOINPUT, path, 0, 0, "%s", strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		mcinit_err_at(err, MCINIT_E_NOINPUT, path, 0, 0,
		              "%s, not a regular file: mcinit reads its inputs from regular files "
		              "only (a pipe or a device could block it or never end)",
		              file_kind(st.st_mode));
		goto fail;
	}
	if ((unsigned long long)st.st_size > MCINIT_MAX_INPUT)
		goto too_large;
	/* A regular file does not block; blocking mode again all the same, so
	 * that a read is never cut short by EAGAIN (some file systems). */
	flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		(void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	/* The file may grow while it is read: stop at the bound all the same. */
	mcx_buf_reserve(&b, (size_t)st.st_size + 1);
	for (;;) {
		if (b.cap - b.len <= 1) /* one byte is the NUL's */
			mcx_buf_reserve(&b, 65536);
		n = read(fd, b.data + b.len, b.cap - b.len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		b.len += (size_t)n;
		if (b.len > MCINIT_MAX_INPUT)
			goto too_large;
	}
	if (n < 0) {
		mcinit_err_at(err, MCINIT_E_NOINPUT, path, 0, 0, "read error: %s", strerror(errno));
		goto fail;
	}
	close(fd);
	mcx_buf_cstr(&b);
	if (len)
		*len = b.len;
	return b.data;
too_large:
	mcinit_err_at(err, MCINIT_E_PARSE, path, 0, 0,
	              "larger than the %d MiB mcinit reads as one input (a job description "
	              "is a few kilobytes): not read",
	              MCINIT_MAX_INPUT >> 20);
fail:
	close(fd);
	mcx_buf_free(&b);
	return NULL;
}

size_t
mcinit_lower_bound_str(const void *base, size_t n, size_t size, size_t off, const char *key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *s;

		memcpy(&s, (const char *)base + mid * size + off, sizeof s);
		if (strcmp(s, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

long
mcinit_hash_find(const unsigned short *slots, size_t nslots, const void *base, size_t size,
                 size_t off, const char *key)
{
	size_t mask = nslots - 1, h = mcinit_fnv1a(MCINIT_FNV1A_INIT, key) & mask;

	for (; slots[h] != MCINIT_HASH_EMPTY; h = (h + 1) & mask) {
		const char *s;

		memcpy(&s, (const char *)base + slots[h] * size + off, sizeof s);
		if (strcmp(s, key) == 0)
			return slots[h];
	}
	return -1;
}

long
mcinit_hash_find_blob(const unsigned short *slots, size_t nslots, const void *base, size_t size,
                      size_t off, const char *blob, const char *key)
{
	size_t mask = nslots - 1, h = mcinit_fnv1a(MCINIT_FNV1A_INIT, key) & mask;

	for (; slots[h] != MCINIT_HASH_EMPTY; h = (h + 1) & mask) {
		uint32_t o;

		memcpy(&o, (const char *)base + slots[h] * size + off, sizeof o);
		if (strcmp(blob + o, key) == 0)
			return slots[h];
	}
	return -1;
}
