/*
 * plan-memory: lays every intermediate operand out in one static arena
 * (liveness over the graph's order, in-place reuse for elementwise ops)
 * and records the plan for the emitters.  --report prints the arena
 * against its lower bound; the reference's memory checks apply: W003
 * above 256 MB of static memory, E009 above the model's memory_limit.
 */
#define _DEFAULT_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "graph.h"
#include "escape.h"
#include "footprint.h"
#include "kernel.h"
#include "memplan.h"
#include "shape.h"
#include "threads.h"
#include "util.h"

NNL_NORETURN static void
usage(void)
{
	fprintf(stderr, "usage: nnl-plan-memory [-rv] [-a align] "
	    "[-l limit] [-n] [-o file]\n"
	    "                       [--threads n] [--max-tensor-bytes size] "
	    "[file]\n");
	exit(2);
}

/* The workspace a node's kernel needs; -1 after an error. */
static int64_t
kscratch(struct graph *g, struct node *n)
{
	struct kcall k;
	int64_t s;

	if (kernel_prepare(g, n, &k) != 0)
		return -1;
	s = (int64_t)k.scratch;
	kcall_free(&k);
	return s;
}

/* The NNL config block, when the graph came from an .nnl model. */
static const cJSON *
config(const struct graph *g, const char *key)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(g->extra, "nnl");

	return cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(n, "config"), key);
}

static const char *
human(uint64_t b, char *buf, size_t len)
{
	if (b >= 1024 * 1024)
		snprintf(buf, len, "%.2f MB", (double)b / (1024 * 1024));
	else
		snprintf(buf, len, "%.1f KB", (double)b / 1024);
	return buf;
}

/* nnl-plan-memory's long options, each with its short name. */
static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "align", required_argument, NULL, 'a' },
	{ "memory-limit", required_argument, NULL, 'l' },
	{ "no-inplace", no_argument, NULL, 'n' },
	{ "report", no_argument, NULL, 'r' },
	{ "threads", required_argument, NULL, 'T' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "max-tensor-bytes", required_argument, NULL,
	    CHECKED_OPTION },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* The config's align, else 64, into o->align: 0, or -1 when it is not
 * a power of two. */
static int
configalign(struct graph *g, struct memplan_opts *o)
{
	const cJSON *cf = config(g, "align");

	o->align = 64;
	if (cJSON_IsNumber(cf)) {
		int64_t w = 0;
		unsigned a;

		checked_double_i64(cf->valuedouble, 1, INT64_C(1) << 31,
		    &w);
		a = (unsigned)w;	/* 0: NaN, 1e300, 2.5 */
		if (a == 0 || (a & (a - 1))) {
			error("%s: config align %g is not a power of "
			    "two", g->src, cf->valuedouble);
			return -1;
		}
		o->align = a;
	}
	return 0;
}

/* The config's memory_limit, when it has one, into *limit: 0, or -1
 * when it is not a size. */
static int
configlimit(struct graph *g, int64_t *limit)
{
	const cJSON *cf;

	if (cJSON_IsString(cf = config(g, "memory_limit")) &&
	    (*limit = footprint_parsesize(cf->valuestring)) < 0) {
		error("%s: config memory_limit \"%s\": expected a size such "
		    "as \"128MB\" (units KB, MB, GB)", g->src,
		    escape_tty_name(cf->valuestring));
		return -1;
	}
	return 0;
}

/* The static memory (weights and arena) against limit (E009, when not
 * -1) and against 256 MB (W003, a warning). */
static int
checklimit(const struct memplan_stats *st, int64_t limit)
{
	uint64_t total = st->arena + st->weights;
	char b1[32], b2[32];

	if (limit >= 0 && total > (uint64_t)limit) {
		error("E009: static memory %s (weights %s + arena %s) exceeds "
		    "memory_limit %s", human(total, b1, sizeof b1),
		    human(st->weights, b2, sizeof b2),
		    human(st->arena, (char[32]){ 0 }, 32),
		    human((uint64_t)limit, (char[32]){ 0 }, 32));
		return -1;
	}
	if (total > 256ull * 1024 * 1024)
		warn("W003: static memory %s exceeds 256 MB (set memory_limit "
		    "to make this an error)", human(total, b1, sizeof b1));
	return 0;
}

int
main(int argc, char *argv[])
{
	struct memplan_opts o = { 0, 1, 0, kscratch };
	struct memplan_stats st;
	const char *out = NULL, *limitarg = NULL;
	struct graph *g;
	int c, report = 0, threads = 0;
	int64_t limit = -1;
	const char *maxbytes = NULL;

	setprogname(argv[0]);
	while ((c = getopt_long(argc, argv, "o:a:l:nrvh", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'a':
			o.align = (unsigned)strtoul(optarg, NULL, 10);
			if (!o.align || (o.align & (o.align - 1)))
				usage();
			break;
		case 'l': limitarg = optarg; break;
		case 'n': o.inplace = 0; break;
		case 'r': report = 1; break;
		case 'v': o.verbose = 1; break;
		case 'T':
			if ((threads = threads_parse(optarg)) < 0)
				usage();
			break;
		case CHECKED_OPTION: maxbytes = optarg; break;
		default: usage();
		}
	}
	if (checked_setup(maxbytes) != 0)
		exit(2);
	if (argc - optind > 1)
		usage();
	if (limitarg && (limit = footprint_parsesize(limitarg)) < 0)
		usage();
	g = graph_load(optind < argc ? argv[optind] : "-");
	if (!g)
		return 1;
	/* the kernels' workspace is sized by the recorded types */
	if (shape_recheck(g) != 0) {
		graph_free(g);
		return 1;
	}
	if ((!o.align && configalign(g, &o) != 0) ||
	    (!limitarg && configlimit(g, &limit) != 0)) {
		graph_free(g);
		return 1;
	}
	/* --threads, else the config's: each kernel's workspace for that
	 * many threads, recorded for nnl-emit-c */
	if (!threads && (threads = threads_of_graph(g, 0)) < 0) {
		graph_free(g);
		return 1;
	}
	kernel_threads = threads;
	if (memplan(g, &o, &st) != 0) {
		graph_free(g);
		return 1;
	}
	if (threads > 1)
		cJSON_AddNumberToObject(cJSON_GetObjectItemCaseSensitive(
		    g->extra, "memory"), "threads", threads);
	if (checklimit(&st, limit) != 0) {
		graph_free(g);
		return 1;
	}
	if (report)
		fprintf(stderr, "arena: %llu bytes, lower bound: %llu bytes, "
		    "weights: %llu bytes\n", (unsigned long long)st.arena,
		    (unsigned long long)st.lower,
		    (unsigned long long)st.weights);
	if (o.verbose)
		fprintf(stderr, "%s: %d outputs written over their input\n",
		    getprogname_nnl(), st.inplace);
	if (graph_save(g, out) != 0) {
		graph_free(g);
		return 1;
	}
	graph_free(g);
	return close_stdout();
}
