/* test-svg.c — the topology picture: every output must parse as XML (with
 * libxml2) with an <svg> root in the SVG namespace, and its content is
 * checked with XPath: GPU boxes per rank cell, pipeline-stage rows, TP
 * colours, NUMA outlines, NIC markers, escaping, and the summary for large
 * clusters. */
#include <criterion/criterion.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <stdlib.h>
#include <string.h>

#include "report/svg.h"

#define SVG_NS "http://www.w3.org/2000/svg"

/* ---- building inputs --------------------------------------------------- */

struct shape {
	size_t nnodes, gpus;
	long tp, pp;
	size_t per_slot; /* ranks per GPU (oversubscription when > 1) */
};

struct built {
	struct mcinit_svg_input in;
	struct mcinit_svg_slot *slots;
	struct mcinit_svg_rank *ranks;
};

static const char *const nic_names[4] = {"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"};

/* Block placement as torchrun does it: rank r on node r / (gpus*per_slot);
 * Megatron's default order makes TP groups consecutive and PP the slowest
 * dimension.  NUMA 0 holds the first half of the GPUs; one NIC per GPU
 * pair. */
static struct built
build(struct shape s)
{
	struct built b;
	size_t nslots = s.nnodes * s.gpus, world = nslots * s.per_slot, r;

	memset(&b, 0, sizeof b);
	b.slots = mcx_xcalloc(nslots, sizeof *b.slots);
	b.ranks = mcx_xcalloc(world, sizeof *b.ranks);
	for (r = 0; r < world; r++) {
		b.ranks[r].rank = (long)r;
		b.ranks[r].tp_group = (int)((long)r / s.tp);
		b.ranks[r].pp_stage = (int)((long)r / ((long)world / s.pp));
	}
	for (r = 0; r < nslots; r++) {
		size_t g = r % s.gpus;

		b.slots[r].ranks = &b.ranks[r * s.per_slot];
		b.slots[r].nranks = s.per_slot;
		b.slots[r].numa = g < s.gpus / 2 ? 0 : 1;
		b.slots[r].nics = &nic_names[(g / 2) % 4];
		b.slots[r].nnics = 1;
	}
	b.in.title = "test picture";
	b.in.subtitle = "subtitle";
	b.in.nnodes = s.nnodes;
	b.in.gpus_per_node = s.gpus;
	b.in.slots = b.slots;
	return b;
}

static void
unbuild(struct built *b)
{
	free(b->slots);
	free(b->ranks);
}

/* ---- parsing and querying ---------------------------------------------- */

struct doc {
	xmlDocPtr doc;
	xmlXPathContextPtr xp;
	char *text;
};

static struct doc
render_ok(const struct mcinit_svg_input *in)
{
	struct mcx_buf b = {0};
	struct mcinit_err err = {0};
	struct doc d;
	xmlNodePtr root;

	cr_assert_eq(mcinit_svg_render(in, &b, &err), 0, "%s", err.msg);
	mcx_buf_cstr(&b);
	d.doc = xmlReadMemory(b.data, (int)b.len, "mem.svg", NULL,
	                      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	cr_assert_not_null(d.doc, "not well-formed XML:\n%.2000s", b.data);
	root = xmlDocGetRootElement(d.doc);
	cr_assert_not_null(root);
	cr_assert_str_eq((const char *)root->name, "svg");
	cr_assert_not_null(root->ns);
	cr_assert_str_eq((const char *)root->ns->href, SVG_NS);
	d.xp = xmlXPathNewContext(d.doc);
	xmlXPathRegisterNs(d.xp, (const xmlChar *)"s", (const xmlChar *)SVG_NS);
	d.text = b.data;
	return d;
}

static void
doc_free(struct doc *d)
{
	xmlXPathFreeContext(d->xp);
	xmlFreeDoc(d->doc);
	free(d->text);
}

static double
xnum(struct doc *d, const char *expr)
{
	xmlXPathObjectPtr o = xmlXPathEvalExpression((const xmlChar *)expr, d->xp);
	double v;

	cr_assert_not_null(o, "xpath %s", expr);
	v = xmlXPathCastToNumber(o);
	xmlXPathFreeObject(o);
	return v;
}

/* String value of an XPath expression; caller frees. */
static char *
xstr(struct doc *d, const char *expr)
{
	xmlXPathObjectPtr o = xmlXPathEvalExpression((const xmlChar *)expr, d->xp);
	xmlChar *s;
	char *r;

	cr_assert_not_null(o, "xpath %s", expr);
	s = xmlXPathCastToString(o);
	r = mcx_xstrdup((const char *)s);
	xmlFree(s);
	xmlXPathFreeObject(o);
	return r;
}

static void
assert_xstr(struct doc *d, const char *expr, const char *want)
{
	char *got = xstr(d, expr);

	cr_assert_str_eq(got, want, "%s", expr);
	free(got);
}

#define COUNT(d, sel) ((int)xnum((d), "count(" sel ")"))

/* ---- shapes ------------------------------------------------------------ */

Test(svg, several_shapes_are_well_formed_and_sized)
{
	static const struct shape shapes[] = {
	    {1, 1, 1, 1, 1},  {1, 8, 2, 4, 1},  {4, 8, 8, 2, 1},   {2, 4, 4, 1, 1},
	    {32, 8, 8, 4, 1}, {3, 16, 8, 1, 1}, {2, 8, 4, 2, 2},   {5, 2, 2, 5, 1},
	    {33, 8, 8, 1, 1}, {2, 40, 8, 1, 1}, {16, 4, 4, 16, 1},
	};
	size_t i;

	for (i = 0; i < sizeof shapes / sizeof *shapes; i++) {
		struct built b = build(shapes[i]);
		struct doc d = render_ok(&b.in);
		double w = xnum(&d, "number(/s:svg/@width)"),
		       h = xnum(&d, "number(/s:svg/@height)");
		size_t drawn =
		    b.in.nnodes <= MCINIT_SVG_MAX_NODES ? b.in.nnodes : MCINIT_SVG_SUMMARY_NODES;

		cr_assert(w >= 300 && w <= 1800, "shape %zu width %g", i, w);
		cr_assert(h >= 150 && h <= 4000, "shape %zu height %g", i, h);
		assert_xstr(&d, "string(/s:svg/@version)", "1.1");
		cr_assert_eq(xnum(&d, "count(/s:svg/s:title)"), 1);
		cr_assert_eq(COUNT(&d, "//s:text[@class='node']"), (int)drawn, "shape %zu", i);
		/* every panel lies inside the canvas */
		cr_assert_eq(COUNT(&d, "//s:rect[@class='panel'][@x + @width > /s:svg/@width]"), 0);
		cr_assert_eq(COUNT(&d, "//s:rect[@class='panel'][@y + @height > /s:svg/@height]"),
		             0, "shape %zu", i);
		doc_free(&d);
		unbuild(&b);
	}
}

Test(svg, one_box_per_rank_with_labels)
{
	struct built b = build((struct shape){4, 8, 8, 2, 1});
	struct doc d = render_ok(&b.in);

	cr_assert_eq(COUNT(&d, "//s:rect[@class='gpu']"), 32);
	cr_assert_eq(COUNT(&d, "//s:text[@class='rk']"), 32);
	assert_xstr(&d, "string((//s:text[@class='rk'])[1])", "r0");
	assert_xstr(&d, "string((//s:text[@class='rk'])[32])", "r31");
	assert_xstr(&d, "string((//s:text[@class='tp'])[9])", "TP 1");
	assert_xstr(&d, "string((//s:g[s:rect[@class='gpu']])[6]/s:title)",
	            "rank 5: node 0, GPU 5, TP group 0, PP stage 0, NUMA 1");
	assert_xstr(&d, "string((//s:text[@class='node'])[4])", "node 3");
	cr_assert_eq(COUNT(&d, "//s:text[@class='small'][.='ranks 24–31']"), 1);
	doc_free(&d);
	unbuild(&b);
}

Test(svg, pipeline_stages_are_rows)
{
	/* One node, TP=2, PP=4: four stage rows, each holding two GPUs. */
	struct built b = build((struct shape){1, 8, 2, 4, 1});
	struct doc d = render_ok(&b.in);
	double y0 = xnum(&d, "number((//s:rect[@class='gpu'])[1]/@y)");
	double y2 = xnum(&d, "number((//s:rect[@class='gpu'])[3]/@y)");
	double y7 = xnum(&d, "number((//s:rect[@class='gpu'])[8]/@y)");
	double x0 = xnum(&d, "number((//s:rect[@class='gpu'])[1]/@x)");
	double x1 = xnum(&d, "number((//s:rect[@class='gpu'])[2]/@x)");

	cr_assert_eq(COUNT(&d, "//s:text[@class='pp']"), 4);
	assert_xstr(&d, "string((//s:text[@class='pp'])[1])", "PP 0");
	assert_xstr(&d, "string((//s:text[@class='pp'])[4])", "PP 3");
	cr_assert(y2 > y0, "stage 1 below stage 0");
	cr_assert(y7 > y2, "stage 3 below stage 1");
	cr_assert(x1 > x0, "GPUs of one stage side by side");
	cr_assert_eq(xnum(&d, "number((//s:rect[@class='gpu'])[2]/@y)"), y0);
	doc_free(&d);
	unbuild(&b);
}

Test(svg, nodes_of_one_stage_share_a_line)
{
	/* 4 nodes, PP=2: nodes 0-1 are stage 0, nodes 2-3 stage 1; a new
	 * stage starts a new line of panels. */
	struct built b = build((struct shape){4, 4, 4, 2, 1});
	struct doc d = render_ok(&b.in);
	double y[4];
	int i;

	for (i = 0; i < 4; i++) {
		char expr[96];

		snprintf(expr, sizeof expr, "number((//s:rect[@class='panel'])[%d]/@y)", i + 1);
		y[i] = xnum(&d, expr);
	}
	cr_assert_eq(y[0], y[1]);
	cr_assert(y[2] > y[1]);
	cr_assert_eq(y[2], y[3]);
	doc_free(&d);
	unbuild(&b);
}

Test(svg, colours_follow_tp_groups)
{
	struct built b = build((struct shape){2, 8, 1, 1, 1}); /* TP=1: 16 groups */
	struct doc d;
	char *c0, *c1, *c10;

	b.ranks[15].tp_group = -1;
	d = render_ok(&b.in);
	c0 = xstr(&d, "string((//s:rect[@class='gpu'])[1]/@fill)");
	c1 = xstr(&d, "string((//s:rect[@class='gpu'])[2]/@fill)");
	c10 = xstr(&d, "string((//s:rect[@class='gpu'])[11]/@fill)");
	cr_assert_str_neq(c0, c1, "neighbouring groups differ");
	cr_assert_str_eq(c0, c10, "palette of 10 repeats");
	assert_xstr(&d, "string((//s:rect[@class='gpu'])[16]/@fill)", "#d9d9d9");
	cr_assert_eq(COUNT(&d, "//s:text[starts-with(., 'TP 0, 10')]"), 1, "legend says so");
	free(c0);
	free(c1);
	free(c10);
	doc_free(&d);
	unbuild(&b);
}

Test(svg, numa_regions_and_nics)
{
	struct built b = build((struct shape){2, 8, 8, 1, 1});
	struct doc d = render_ok(&b.in);
	double n0x = xnum(&d, "number((//s:g[@class='node'])[1]/s:rect[@class='numa'][1]/@x)");
	double n1x = xnum(&d, "number((//s:g[@class='node'])[1]/s:rect[@class='numa'][2]/@x)");
	double g4x = xnum(&d, "number((//s:rect[@class='gpu'])[5]/@x)");

	/* two NUMA runs per node; the second starts at GPU 4 */
	cr_assert_eq(COUNT(&d, "//s:g[@class='node']/s:rect[@class='numa']"), 4);
	cr_assert(n1x > n0x && n1x < g4x && g4x - n1x < 8, "NUMA 1 outlines GPUs 4-7");
	cr_assert_eq(COUNT(&d, "//s:text[@class='small'][.='NUMA 1']"), 2);
	/* GPU pairs share a NIC: 4 markers per node */
	cr_assert_eq(COUNT(&d, "//s:rect[@class='nic']"), 8 + 1 /* legend */);
	cr_assert_eq(COUNT(&d, "//s:text[@class='nict'][.='mlx5_3']"), 2);
	doc_free(&d);
	unbuild(&b);
}

Test(svg, oversubscribed_and_idle_gpus)
{
	struct built b = build((struct shape){1, 4, 2, 1, 2}); /* 2 ranks per GPU */
	struct doc d;

	b.slots[3].nranks = 0; /* GPU 3 idle */
	d = render_ok(&b.in);
	cr_assert_eq(COUNT(&d, "//s:rect[@class='gpu']"), 3);
	assert_xstr(&d, "string((//s:text[@class='rk'])[1])", "r0, r1");
	cr_assert_eq(COUNT(&d, "//s:g[@class='node']/s:rect[@class='idle']"), 1);
	doc_free(&d);
	unbuild(&b);
}

Test(svg, large_clusters_are_summarised)
{
	struct built b = build((struct shape){100, 8, 8, 4, 1});
	struct doc d = render_ok(&b.in);

	cr_assert_eq(COUNT(&d, "//s:rect[@class='panel']"), MCINIT_SVG_SUMMARY_NODES);
	cr_assert_eq(COUNT(&d, "//s:text[@class='note'][contains(., '92 more nodes')]"), 1);
	cr_assert_lt(strlen(d.text), 200000, "summary stays small");
	doc_free(&d);
	unbuild(&b);

	b = build((struct shape){1, 40, 8, 1, 1});
	d = render_ok(&b.in);
	cr_assert_eq(COUNT(&d, "//s:rect[@class='gpu']"), MCINIT_SVG_MAX_GPUS);
	cr_assert_eq(COUNT(&d, "//s:text[@class='note'][contains(., 'GPUs 0–31 of 40')]"), 1);
	doc_free(&d);
	unbuild(&b);
}

Test(svg, slot_labels_replace_gpu_numbers)
{
	struct built b = build((struct shape){2, 4, 2, 1, 1});
	struct doc d;

	b.slots[3].label = "no GPU";
	b.slots[7].label = "<x&y>";
	d = render_ok(&b.in);
	assert_xstr(&d, "string((//s:text[@class='col'])[3])", "GPU 2");
	assert_xstr(&d, "string((//s:text[@class='col'])[4])", "no GPU");
	assert_xstr(&d, "string((//s:text[@class='col'])[8])", "<x&y>");
	assert_xstr(&d, "string((//s:g[s:rect[@class='gpu']])[4]/s:title)",
	            "rank 3: node 0, no GPU, TP group 1, PP stage 0, NUMA 1");
	cr_assert_eq(COUNT(&d, "//s:text[@class='col'][starts-with(., 'GPU ')]"), 6);
	doc_free(&d);
	unbuild(&b);
}

/* Only the drawn nodes' slots are read: a million-rank picture needs just
 * those (ASan/valgrind catch a read past the short array). */
Test(svg, huge_cluster_reads_only_drawn_slots)
{
	struct built b = build((struct shape){MCINIT_SVG_SUMMARY_NODES, 8, 8, 4, 1});
	struct mcinit_svg_slot *few = mcx_xcalloc(MCINIT_SVG_SUMMARY_NODES * 8, sizeof *few);
	struct doc d;

	memcpy(few, b.slots, MCINIT_SVG_SUMMARY_NODES * 8 * sizeof *few);
	b.in.slots = few;
	b.in.nnodes = 131072;
	d = render_ok(&b.in);
	cr_assert_eq(COUNT(&d, "//s:rect[@class='panel']"), MCINIT_SVG_SUMMARY_NODES);
	cr_assert_eq(COUNT(&d, "//s:text[@class='note'][contains(., '131064 more nodes')]"), 1);
	doc_free(&d);
	free(few);
	unbuild(&b);
}

Test(svg, text_is_escaped)
{
	struct built b = build((struct shape){1, 2, 2, 1, 1});
	static const char *const evil_nic[1] = {"<nic&\"1\">"};
	struct doc d;

	b.in.title = "a<b>&c \"q\" 'x' \x01 bad\xff utf8 é";
	b.in.subtitle = "]]> <!-- -->";
	b.slots[0].nics = evil_nic;
	b.slots[1].nics = evil_nic;
	d = render_ok(&b.in);
	assert_xstr(&d, "string(/s:svg/s:title)", "a<b>&c \"q\" 'x' ? bad? utf8 é");
	assert_xstr(&d, "string(//s:text[@class='sub'])", "]]> <!-- -->");
	assert_xstr(&d, "string(//s:text[@class='nict'])", "<nic&\"1\">");
	doc_free(&d);
	unbuild(&b);
}

Test(svg, defaults_without_tp_pp_or_numa)
{
	struct built b = build((struct shape){1, 2, 1, 1, 1});
	struct doc d;
	size_t i;

	for (i = 0; i < 2; i++) {
		b.ranks[i].tp_group = -1;
		b.ranks[i].pp_stage = -1;
		b.slots[i].numa = -1;
		b.slots[i].nnics = 0;
	}
	b.in.title = NULL;
	b.in.subtitle = NULL;
	d = render_ok(&b.in);
	assert_xstr(&d, "string(/s:svg/s:title)", "mcinit topology");
	cr_assert_eq(COUNT(&d, "//s:g[@class='node']/s:rect[@class='numa']"), 0);
	cr_assert_eq(COUNT(&d, "//s:g[@class='node']/s:rect[@class='nic']"), 0);
	cr_assert_eq(COUNT(&d, "//s:text[@class='tp']"), 0);
	assert_xstr(&d, "string(//s:text[@class='pp'])", "–");
	doc_free(&d);
	unbuild(&b);
}

Test(svg, bad_input_is_rejected_without_output)
{
	struct built b = build((struct shape){1, 2, 1, 1, 1});
	struct mcx_buf out = {0};
	struct mcinit_err err = {0};
	struct mcinit_svg_input in = b.in;

	in.nnodes = 0;
	cr_assert_eq(mcinit_svg_render(&in, &out, &err), -1);
	cr_assert_eq(err.code, MCINIT_E_USAGE);
	in = b.in;
	in.slots = NULL;
	cr_assert_eq(mcinit_svg_render(&in, &out, &err), -1);
	b.slots[1].ranks = NULL;
	cr_assert_eq(mcinit_svg_render(&b.in, &out, &err), -1);
	cr_assert(strstr(err.msg, "slot 1") != NULL, "%s", err.msg);
	cr_assert_eq(mcinit_svg_render(NULL, &out, &err), -1);
	cr_assert_eq(out.len, 0, "nothing written on error");
	mcx_buf_free(&out);
	unbuild(&b);
}
