/* svg.c — see svg.h. */
#include "svg.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Geometry, in SVG user units (pixels). */
#define MARGIN    24
#define PANEL_GAP 16
#define PANEL_PAD 10
#define HEADER_H  24 /* node label */
#define COLHDR_H  14 /* "GPU g" above each column */
#define GUTTER_W  44 /* "PP s" row labels */
#define BOX_H     44
#define BOX_GAP   6
#define NUMA_FOOT 14 /* room for the "NUMA n" label below the rows */
#define NIC_H     16
#define MAX_WIDTH 1760 /* panels wrap to stay within this */
#define MIN_WIDTH 760
#define CHAR_W    0.6 /* average glyph width per unit of font size */

/* Tableau 10: a qualitative palette whose neighbours stay distinct. */
static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
#define NCOLORS    (sizeof palette / sizeof *palette)
#define NO_TP_FILL "#d9d9d9"

struct layout {
	size_t ndraw, gdraw; /* nodes and GPU slots per node drawn */
	int bw;              /* GPU box width */
	int panel_w, width, height;
	int legend_y, content_y, note_y;
	int ntp; /* highest TP group index drawn + 1 */
	int *px, *py, *ph;
};

/* ---------------------------------------------------------------- text */

/* Length of the UTF-8 sequence at p that XML 1.0 can hold, 0 if none:
 * well-formed UTF-8 less U+FFFE and U+FFFF (EF BF BE, EF BF BF). */
static size_t
xml_char_len(const unsigned char *p, size_t avail)
{
	size_t n = mcx_utf8_len(p, avail);

	if (n == 3 && p[0] == 0xEF && p[1] == 0xBF && p[2] >= 0xBE)
		return 0;
	return n;
}

/* XML character data: escaped, and anything XML 1.0 cannot hold (control
 * characters, broken UTF-8) replaced by '?', so any caller string yields a
 * well-formed document. */
static void
esc(struct mcx_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);

	while (*p != '\0') {
		size_t n = xml_char_len(p, (size_t)(end - p));

		if (n == 0 || (*p < 0x20 && *p != '\t' && *p != '\n')) {
			mcx_buf_addc(b, '?');
			p += n ? n : 1;
			continue;
		}
		switch (*p) {
		case '&':
			mcx_buf_adds(b, "&amp;");
			break;
		case '<':
			mcx_buf_adds(b, "&lt;");
			break;
		case '>':
			mcx_buf_adds(b, "&gt;");
			break;
		case '"':
			mcx_buf_adds(b, "&quot;");
			break;
		case '\'':
			mcx_buf_adds(b, "&apos;");
			break;
		default:
			mcx_buf_add(b, p, n);
		}
		p += n;
	}
}

static int
text_w(size_t chars, int font)
{
	return (int)((double)chars * CHAR_W * font + 0.5);
}

static const char *
tp_fill(int tp)
{
	return tp < 0 ? NO_TP_FILL : palette[(size_t)tp % NCOLORS];
}

/* Dark text on light fills, white on dark ones (perceived luminance). */
static const char *
tp_ink(int tp)
{
	unsigned r, g, bl;
	const char *c = tp_fill(tp);

	if (sscanf(c, "#%02x%02x%02x", &r, &g, &bl) != 3)
		return "#111111";
	return 0.299 * r + 0.587 * g + 0.114 * bl > 0.55 * 255 ? "#111111" : "#ffffff";
}

/* ---------------------------------------------------------------- input */

static const struct mcinit_svg_slot *
slot_at(const struct mcinit_svg_input *in, size_t n, size_t g)
{
	return &in->slots[n * in->gpus_per_node + g];
}

static int
validate(const struct mcinit_svg_input *in, struct mcinit_err *err)
{
	size_t i, total;

	if (in == NULL || in->nnodes == 0 || in->gpus_per_node == 0)
		return mcinit_err_set(err, MCINIT_E_USAGE,
		                      "svg: need at least one node and one GPU");
	if (in->gpus_per_node > SIZE_MAX / in->nnodes)
		return mcinit_err_set(err, MCINIT_E_USAGE, "svg: %zu nodes x %zu GPUs is too many",
		                      in->nnodes, in->gpus_per_node);
	if (in->slots == NULL)
		return mcinit_err_set(err, MCINIT_E_USAGE, "svg: no GPU slots given");
	/* Only drawn nodes are read: a huge cluster needs no slots beyond them. */
	total = (in->nnodes <= MCINIT_SVG_MAX_NODES ? in->nnodes : MCINIT_SVG_SUMMARY_NODES) *
	        in->gpus_per_node;
	for (i = 0; i < total; i++) {
		if (in->slots[i].nranks > 0 && in->slots[i].ranks == NULL)
			return mcinit_err_set(err, MCINIT_E_USAGE,
			                      "svg: slot %zu has ranks but no array", i);
		if (in->slots[i].nnics > 0 && in->slots[i].nics == NULL)
			return mcinit_err_set(err, MCINIT_E_USAGE,
			                      "svg: slot %zu has NICs but no array", i);
	}
	return 0;
}

static int
int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	/* "no stage" (-1) sorts last */
	if ((x < 0) != (y < 0))
		return x < 0 ? 1 : -1;
	return (x > y) - (x < y);
}

/* Distinct pipeline stages on node n, sorted; at least one row (-1) for a
 * node without ranks.  Caller frees. */
static int *
node_stages(const struct mcinit_svg_input *in, const struct layout *L, size_t n, size_t *count)
{
	size_t g, r, k, cap = 4;
	int *v = mcx_xmalloc(cap * sizeof *v);

	*count = 0;
	for (g = 0; g < L->gdraw; g++) {
		const struct mcinit_svg_slot *s = slot_at(in, n, g);

		for (r = 0; r < s->nranks; r++) {
			int st = s->ranks[r].pp_stage < 0 ? -1 : s->ranks[r].pp_stage;

			for (k = 0; k < *count && v[k] != st; k++)
				;
			if (k < *count)
				continue;
			if (*count == cap) {
				cap *= 2;
				v = mcx_xrealloc(v, cap * sizeof *v);
			}
			v[(*count)++] = st;
		}
	}
	if (*count == 0)
		v[(*count)++] = -1;
	qsort(v, *count, sizeof *v, int_cmp);
	return v;
}

/* ---------------------------------------------------------------- layout */

static int
panel_height(size_t rows)
{
	return HEADER_H + COLHDR_H + (int)rows * (BOX_H + BOX_GAP) - BOX_GAP + NUMA_FOOT + 4 +
	       NIC_H + PANEL_PAD;
}

static int legend(struct mcx_buf *b, const struct layout *L, int y);

static void
layout_panels(const struct mcinit_svg_input *in, struct layout *L)
{
	int x = MARGIN, y = L->content_y, line_h = 0, prev_key = INT32_MIN;
	size_t n, per_line, on_line = 0;

	per_line = (size_t)((MAX_WIDTH - 2 * MARGIN + PANEL_GAP) / (L->panel_w + PANEL_GAP));
	if (per_line == 0)
		per_line = 1;
	for (n = 0; n < L->ndraw; n++) {
		size_t nst;
		int *st = node_stages(in, L, n, &nst), key = st[0];

		/* A new pipeline stage starts a new line, so stages read as rows. */
		if (on_line > 0 && (on_line == per_line || key != prev_key)) {
			y += line_h + PANEL_GAP;
			x = MARGIN;
			line_h = 0;
			on_line = 0;
		}
		L->px[n] = x;
		L->py[n] = y;
		L->ph[n] = panel_height(nst);
		if (L->ph[n] > line_h)
			line_h = L->ph[n];
		if (x + L->panel_w + MARGIN > L->width)
			L->width = x + L->panel_w + MARGIN;
		x += L->panel_w + PANEL_GAP;
		on_line++;
		prev_key = key;
		free(st);
	}
	L->note_y = y + line_h + 24;
	L->height = L->note_y - 8;
	if (L->ndraw < in->nnodes)
		L->height += 22;
	if (L->gdraw < in->gpus_per_node)
		L->height += 22;
}

static void
layout(const struct mcinit_svg_input *in, struct layout *L)
{
	size_t n, g, r;
	const char *title = in->title ? in->title : "mcinit topology";

	memset(L, 0, sizeof *L);
	L->ndraw = in->nnodes <= MCINIT_SVG_MAX_NODES ? in->nnodes : MCINIT_SVG_SUMMARY_NODES;
	L->gdraw =
	    in->gpus_per_node <= MCINIT_SVG_MAX_GPUS ? in->gpus_per_node : MCINIT_SVG_MAX_GPUS;
	L->bw = L->gdraw <= 8 ? 84 : L->gdraw <= 16 ? 64 : 46;
	L->panel_w = 2 * PANEL_PAD + GUTTER_W + (int)L->gdraw * (L->bw + BOX_GAP) - BOX_GAP;
	for (n = 0; n < L->ndraw; n++)
		for (g = 0; g < L->gdraw; g++)
			for (r = 0; r < slot_at(in, n, g)->nranks; r++) {
				int tp = slot_at(in, n, g)->ranks[r].tp_group;

				if (tp >= 0 && tp < INT32_MAX && tp + 1 > L->ntp)
					L->ntp = tp + 1;
			}
	L->width = MIN_WIDTH;
	if (text_w(strlen(title), 20) + 2 * MARGIN > L->width)
		L->width = text_w(strlen(title), 20) + 2 * MARGIN;
	if (L->panel_w + 2 * MARGIN > L->width)
		L->width = L->panel_w + 2 * MARGIN;
	L->legend_y = in->subtitle ? 76 : 58;
	L->px = mcx_xcalloc(L->ndraw, sizeof *L->px);
	L->py = mcx_xcalloc(L->ndraw, sizeof *L->py);
	L->ph = mcx_xcalloc(L->ndraw, sizeof *L->ph);
	/* Panels may widen the picture, and the legend wraps to the width: lay
	 * out twice so the legend's height is known for the final width. */
	L->content_y = legend(NULL, L, L->legend_y) + 14;
	layout_panels(in, L);
	L->content_y = legend(NULL, L, L->legend_y) + 14;
	layout_panels(in, L);
}

/* ---------------------------------------------------------------- drawing */

/* Draws (b != NULL) or measures the legend; returns the y below it. */
static int
legend(struct mcx_buf *b, const struct layout *L, int y)
{
	int x = MARGIN, right = L->width - MARGIN, i,
	    shown = L->ntp < (int)NCOLORS ? L->ntp : (int)NCOLORS;

	if (shown > 0) {
		if (b)
			mcx_buf_printf(b,
			               "<text class=\"lg\" x=\"%d\" y=\"%d\">Tensor-parallel "
			               "groups:</text>\n",
			               x, y + 12);
		x += text_w(24, 12) + 8;
		for (i = 0; i < shown; i++) {
			char label[48];
			int w;

			if (L->ntp > (int)NCOLORS)
				snprintf(label, sizeof label, "TP %d, %d, …", i, i + (int)NCOLORS);
			else
				snprintf(label, sizeof label, "TP %d", i);
			w = 18 + text_w(strlen(label), 12) + 14;
			if (x + w > right) {
				x = MARGIN + text_w(24, 12) + 8;
				y += 20;
			}
			if (b)
				mcx_buf_printf(b,
				               "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" "
				               "rx=\"2\" fill=\"%s\" stroke=\"#333333\"/>"
				               "<text class=\"lg\" x=\"%d\" y=\"%d\">%s</text>\n",
				               x, y + 1, palette[i], x + 18, y + 12, label);
			x += w;
		}
		y += 22;
	}
	if (b) {
		x = MARGIN;
		mcx_buf_printf(b,
		               "<rect x=\"%d\" y=\"%d\" width=\"22\" height=\"14\" class=\"numa\"/>"
		               "<text class=\"lg\" x=\"%d\" y=\"%d\">NUMA domain</text>\n",
		               x, y + 1, x + 28, y + 12);
		x += 28 + text_w(11, 12) + 18;
		mcx_buf_printf(b,
		               "<rect x=\"%d\" y=\"%d\" width=\"22\" height=\"14\" class=\"nic\"/>"
		               "<text class=\"lg\" x=\"%d\" y=\"%d\">NIC near these GPUs</text>\n",
		               x, y + 1, x + 28, y + 12);
		x += 28 + text_w(19, 12) + 18;
		mcx_buf_printf(b,
		               "<rect x=\"%d\" y=\"%d\" width=\"22\" height=\"14\" class=\"idle\"/>"
		               "<text class=\"lg\" x=\"%d\" y=\"%d\">GPU without a rank</text>\n",
		               x, y + 1, x + 28, y + 12);
		x += 28 + text_w(18, 12) + 18;
		mcx_buf_printf(b,
		               "<text class=\"lg\" x=\"%d\" y=\"%d\">Rows: pipeline stages "
		               "(PP)</text>\n",
		               x, y + 12);
	}
	return y + 18;
}

static int
col_x(const struct layout *L, size_t n, size_t g)
{
	return L->px[n] + PANEL_PAD + GUTTER_W + (int)g * (L->bw + BOX_GAP);
}

static int
row_y(const struct layout *L, size_t n, size_t row)
{
	return L->py[n] + HEADER_H + COLHDR_H + (int)row * (BOX_H + BOX_GAP);
}

static void
draw_numa(struct mcx_buf *b, const struct mcinit_svg_input *in, const struct layout *L, size_t n,
          size_t nrows)
{
	size_t g = 0, e;
	int top = row_y(L, n, 0) - COLHDR_H - 2;
	int bottom = row_y(L, n, nrows) - BOX_GAP + NUMA_FOOT;

	while (g < L->gdraw) {
		int numa = slot_at(in, n, g)->numa, x0, x1;

		for (e = g + 1; e < L->gdraw && slot_at(in, n, e)->numa == numa; e++)
			;
		if (numa >= 0) {
			x0 = col_x(L, n, g) - 3;
			x1 = col_x(L, n, e - 1) + L->bw + 3;
			mcx_buf_printf(b,
			               "<rect class=\"numa\" x=\"%d\" y=\"%d\" width=\"%d\" "
			               "height=\"%d\"/><text class=\"small\" x=\"%d\" "
			               "y=\"%d\">NUMA %d</text>\n",
			               x0, top, x1 - x0, bottom - top, x0 + 4, bottom - 3, numa);
		}
		g = e;
	}
}

static int
same_nics(const struct mcinit_svg_slot *a, const struct mcinit_svg_slot *b)
{
	size_t i;

	if (a->nnics != b->nnics)
		return 0;
	for (i = 0; i < a->nnics; i++)
		if (strcmp(a->nics[i] ? a->nics[i] : "", b->nics[i] ? b->nics[i] : "") != 0)
			return 0;
	return 1;
}

/* One marker per run of neighbouring GPUs that share the same NICs. */
static void
draw_nics(struct mcx_buf *b, const struct mcinit_svg_input *in, const struct layout *L, size_t n,
          size_t nrows)
{
	size_t g = 0, e, i;
	int y = row_y(L, n, nrows) - BOX_GAP + NUMA_FOOT + 4;

	while (g < L->gdraw) {
		const struct mcinit_svg_slot *s = slot_at(in, n, g);
		struct mcx_buf names = {0};
		int x0, w;
		size_t maxc;

		for (e = g + 1; e < L->gdraw && same_nics(s, slot_at(in, n, e)); e++)
			;
		if (s->nnics > 0) {
			for (i = 0; i < s->nnics; i++)
				mcx_buf_printf(&names, "%s%s", i ? ", " : "",
				               s->nics[i] ? s->nics[i] : "?");
			x0 = col_x(L, n, g) + 2;
			w = col_x(L, n, e - 1) + L->bw - 2 - x0;
			maxc = (size_t)(w / (CHAR_W * 10));
			if (names.len > maxc && maxc > 2) {
				names.len = maxc - 2;
				mcx_buf_adds(&names, "…");
			}
			mcx_buf_printf(b,
			               "<rect class=\"nic\" x=\"%d\" y=\"%d\" width=\"%d\" "
			               "height=\"%d\"/><text class=\"nict\" x=\"%d\" y=\"%d\">",
			               x0, y, w, NIC_H, x0 + w / 2, y + 12);
			esc(b, mcx_buf_cstr(&names));
			mcx_buf_adds(b, "</text>\n");
		}
		mcx_buf_free(&names);
		g = e;
	}
}

static void
rank_label(struct mcx_buf *lab, const struct mcinit_svg_rank *const *rs, size_t k, int bw)
{
	size_t i;

	for (i = 0; i < k; i++)
		mcx_buf_printf(lab, "%sr%ld", i ? ", " : "", rs[i]->rank);
	if (k > 1 && text_w(lab->len, 12) > bw - 6) {
		lab->len = 0;
		mcx_buf_printf(lab, "r%ld +%zu", rs[0]->rank, k - 1);
	}
}

/* A slot's name: its label, else "GPU g". */
static void
slot_name(struct mcx_buf *b, const struct mcinit_svg_slot *s, size_t g)
{
	if (s->label != NULL)
		esc(b, s->label);
	else
		mcx_buf_printf(b, "GPU %zu", g);
}

static void
draw_box(struct mcx_buf *b, const struct mcinit_svg_input *in, const struct layout *L, size_t n,
         size_t g, size_t row, const struct mcinit_svg_rank *const *rs, size_t k)
{
	const struct mcinit_svg_slot *s = slot_at(in, n, g);
	int x = col_x(L, n, g), y = row_y(L, n, row), font;
	struct mcx_buf lab = {0};
	size_t i;

	rank_label(&lab, rs, k, L->bw);
	font = 12;
	while (font > 7 && text_w(lab.len, font) > L->bw - 4)
		font--;
	mcx_buf_adds(b, "<g><title>");
	for (i = 0; i < k; i++) {
		mcx_buf_printf(b, "%srank %ld: node %zu, ", i ? "; " : "", rs[i]->rank, n);
		slot_name(b, s, g);
		if (rs[i]->tp_group >= 0)
			mcx_buf_printf(b, ", TP group %d", rs[i]->tp_group);
		if (rs[i]->pp_stage >= 0)
			mcx_buf_printf(b, ", PP stage %d", rs[i]->pp_stage);
	}
	if (s->numa >= 0)
		mcx_buf_printf(b, ", NUMA %d", s->numa);
	mcx_buf_printf(b,
	               "</title><rect class=\"gpu\" x=\"%d\" y=\"%d\" width=\"%d\" "
	               "height=\"%d\" fill=\"%s\"/>"
	               "<text class=\"rk\" x=\"%d\" y=\"%d\" fill=\"%s\" font-size=\"%d\">",
	               x, y, L->bw, BOX_H, tp_fill(rs[0]->tp_group), x + L->bw / 2, y + 20,
	               tp_ink(rs[0]->tp_group), font);
	esc(b, mcx_buf_cstr(&lab));
	mcx_buf_adds(b, "</text>");
	if (rs[0]->tp_group >= 0)
		mcx_buf_printf(b, "<text class=\"tp\" x=\"%d\" y=\"%d\" fill=\"%s\">TP %d</text>",
		               x + L->bw / 2, y + 35, tp_ink(rs[0]->tp_group), rs[0]->tp_group);
	mcx_buf_adds(b, "</g>\n");
	mcx_buf_free(&lab);
}

static void
draw_cells(struct mcx_buf *b, const struct mcinit_svg_input *in, const struct layout *L, size_t n,
           const int *stages, size_t nrows)
{
	size_t g, row, r;

	for (g = 0; g < L->gdraw; g++) {
		const struct mcinit_svg_slot *s = slot_at(in, n, g);
		const struct mcinit_svg_rank **rs;

		mcx_buf_printf(b, "<text class=\"col\" x=\"%d\" y=\"%d\">",
		               col_x(L, n, g) + L->bw / 2, row_y(L, n, 0) - 4);
		slot_name(b, s, g);
		mcx_buf_adds(b, "</text>\n");
		if (s->nranks == 0) {
			mcx_buf_printf(b,
			               "<rect class=\"idle\" x=\"%d\" y=\"%d\" width=\"%d\" "
			               "height=\"%d\"/><text class=\"tp\" x=\"%d\" y=\"%d\" "
			               "fill=\"#777777\">idle</text>\n",
			               col_x(L, n, g), row_y(L, n, 0), L->bw, BOX_H,
			               col_x(L, n, g) + L->bw / 2, row_y(L, n, 0) + 26);
			continue;
		}
		rs = mcx_xcalloc(s->nranks, sizeof *rs);
		for (row = 0; row < nrows; row++) {
			size_t k = 0;

			for (r = 0; r < s->nranks; r++) {
				int st = s->ranks[r].pp_stage < 0 ? -1 : s->ranks[r].pp_stage;

				if (st == stages[row])
					rs[k++] = &s->ranks[r];
			}
			if (k > 0)
				draw_box(b, in, L, n, g, row, rs, k);
		}
		free(rs);
	}
}

static void
draw_panel(struct mcx_buf *b, const struct mcinit_svg_input *in, const struct layout *L, size_t n)
{
	size_t nrows, row, g, r;
	int *stages = node_stages(in, L, n, &nrows);
	long lo = -1, hi = -1;

	for (g = 0; g < L->gdraw; g++)
		for (r = 0; r < slot_at(in, n, g)->nranks; r++) {
			long rk = slot_at(in, n, g)->ranks[r].rank;

			if (lo < 0 || rk < lo)
				lo = rk;
			if (rk > hi)
				hi = rk;
		}
	mcx_buf_printf(b,
	               "<g class=\"node\"><rect class=\"panel\" x=\"%d\" y=\"%d\" width=\"%d\" "
	               "height=\"%d\"/>\n<text class=\"node\" x=\"%d\" y=\"%d\">node %zu</text>",
	               L->px[n], L->py[n], L->panel_w, L->ph[n], L->px[n] + PANEL_PAD,
	               L->py[n] + 17, n);
	if (lo >= 0)
		mcx_buf_printf(b,
		               "<text class=\"small\" x=\"%d\" y=\"%d\" "
		               "text-anchor=\"end\">ranks %ld–%ld</text>",
		               L->px[n] + L->panel_w - PANEL_PAD, L->py[n] + 16, lo, hi);
	mcx_buf_addc(b, '\n');
	draw_numa(b, in, L, n, nrows);
	for (row = 0; row < nrows; row++) {
		mcx_buf_printf(b, "<text class=\"pp\" x=\"%d\" y=\"%d\">", L->px[n] + PANEL_PAD,
		               row_y(L, n, row) + BOX_H / 2 + 4);
		if (stages[row] >= 0)
			mcx_buf_printf(b, "PP %d</text>\n", stages[row]);
		else
			mcx_buf_adds(b, "–</text>\n");
	}
	draw_cells(b, in, L, n, stages, nrows);
	draw_nics(b, in, L, n, nrows);
	mcx_buf_adds(b, "</g>\n");
	free(stages);
}

static void
draw_head(struct mcx_buf *b, const struct mcinit_svg_input *in, const struct layout *L)
{
	const char *title = in->title ? in->title : "mcinit topology";

	mcx_buf_printf(b,
	               "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
	               "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
	               "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"
	               "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
	               "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
	               "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n<title>",
	               L->width, L->height, L->width, L->height);
	esc(b, title);
	mcx_buf_printf(b,
	               "</title>\n<desc>%zu node%s x %zu GPUs: GPU boxes show ranks, coloured "
	               "by tensor-parallel group; rows are pipeline stages.</desc>\n",
	               in->nnodes, in->nnodes == 1 ? "" : "s", in->gpus_per_node);
	mcx_buf_adds(b,
	             "<style type=\"text/css\"><![CDATA[\n"

	             ".title{font-size:20px;font-weight:bold}\n"
	             ".sub{font-size:13px;fill:#555555}\n"
	             ".lg{font-size:12px}\n"
	             "text.node{font-size:13px;font-weight:bold}\n"
	             ".small{font-size:10px;fill:#555555}\n"
	             ".col{font-size:9px;fill:#666666;text-anchor:middle}\n"
	             ".pp{font-size:11px;font-weight:bold;fill:#444444}\n"
	             ".rk{font-weight:bold;text-anchor:middle}\n"
	             ".tp{font-size:10px;text-anchor:middle}\n"
	             ".nict{font-size:10px;fill:#ffffff;text-anchor:middle}\n"
	             ".note{font-size:13px;font-style:italic;fill:#444444}\n"
	             "rect.panel{fill:#f6f6f4;stroke:#9a9a9a;stroke-width:1}\n"
	             "rect.gpu{stroke:#333333;stroke-width:1}\n"
	             "rect.numa{fill:none;stroke:#5a6f8a;stroke-width:1.2;stroke-dasharray:5,3}\n"
	             "rect.nic{fill:#2f3b4c;stroke:none}\n"
	             "rect.idle{fill:#ffffff;stroke:#aaaaaa;stroke-dasharray:3,3}\n"
	             "]]></style>\n");
	mcx_buf_printf(b, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
	               L->width, L->height);
	mcx_buf_printf(b, "<text class=\"title\" x=\"%d\" y=\"%d\">", MARGIN, 34);
	esc(b, title);
	mcx_buf_adds(b, "</text>\n");
	if (in->subtitle != NULL) {
		mcx_buf_printf(b, "<text class=\"sub\" x=\"%d\" y=\"%d\">", MARGIN, 56);
		esc(b, in->subtitle);
		mcx_buf_adds(b, "</text>\n");
	}
}

int
mcinit_svg_render(const struct mcinit_svg_input *in, struct mcx_buf *out, struct mcinit_err *err)
{
	struct layout L;
	size_t n;

	if (validate(in, err) < 0)
		return -1;
	layout(in, &L);
	draw_head(out, in, &L);
	legend(out, &L, L.legend_y);
	for (n = 0; n < L.ndraw; n++)
		draw_panel(out, in, &L, n);
	if (L.ndraw < in->nnodes)
		mcx_buf_printf(out,
		               "<text class=\"note\" x=\"%d\" y=\"%d\">… %zu more nodes (nodes "
		               "%zu–%zu) not drawn: showing %zu of %zu.</text>\n",
		               MARGIN, L.note_y, in->nnodes - L.ndraw, L.ndraw, in->nnodes - 1,
		               L.ndraw, in->nnodes);
	if (L.gdraw < in->gpus_per_node)
		mcx_buf_printf(out,
		               "<text class=\"note\" x=\"%d\" y=\"%d\">Only GPUs 0–%zu of %zu "
		               "per node are drawn.</text>\n",
		               MARGIN, L.note_y + (L.ndraw < in->nnodes ? 20 : 0), L.gdraw - 1,
		               in->gpus_per_node);
	mcx_buf_adds(out, "</svg>\n");
	free(L.px);
	free(L.py);
	free(L.ph);
	return 0;
}
