/*
 * test_memplan: the arena plan on 1,000 random DAGs.  An independent
 * checker recomputes every operand's live range from the node order and
 * verifies that no two operands live at the same step share bytes,
 * except an elementwise output over the input that dies at that step,
 * or a reshape/identity aliasing its input; and that the arena stays
 * within 1.10 times the lower bound.  The DAGs go through
 * graph_reorder first, as in the pipeline (reorder | plan-memory), so
 * no node is left that no output needs.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "graph.h"
#include "memplan.h"
#include "order.h"

static unsigned long rng = 12345;

static unsigned
rnd(unsigned n)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)(rng >> 33) % n;
}

struct slot {
	const char *name;
	int64_t len;
	size_t def, last;
	uint64_t off, size;
	int node;		/* producer index */
	int alias_of;		/* slot it aliases (reshape), or -1 */
};

static struct graph *
randomdag(int nn)
{
	struct graph *g = graph_new();
	int64_t len = 1 + rnd(4096);
	char name[32], **names = xcalloc((size_t)nn + 1, sizeof *names);
	int64_t *lens = xcalloc((size_t)nn + 1, sizeof *lens);
	int nops = 0;

	graph_add_input(g, "x", DT_FLOAT32, 1, &len);
	for (int i = 0; i < nn; i++) {
		unsigned kind = rnd(4);
		struct node *n;
		int a = i ? (int)rnd((unsigned)i) : -1;
		const char *src = a >= 0 ? names[a] : "x";
		int64_t l = a >= 0 ? lens[a] : len;

		snprintf(name, sizeof name, "n%d", i);
		if (kind == 0) {
			n = graph_add_node(g, name, "relu");
			node_add_input(n, src);
		} else if (kind == 1) {
			int b = -1;

			for (int t = 0; t < 8 && i; t++) {
				int c = (int)rnd((unsigned)i);

				if (lens[c] == l) {
					b = c;
					break;
				}
			}
			n = graph_add_node(g, name, b >= 0 ? "add" : "sigmoid");
			node_add_input(n, src);
			if (b >= 0)
				node_add_input(n, names[b]);
		} else if (kind == 2) {
			n = graph_add_node(g, name, "reshape");
			node_add_input(n, src);
		} else {
			int k = 1 + (int)rnd(3);

			n = graph_add_node(g, name, "concat");
			l = 0;
			for (int j = 0; j < k; j++) {
				int c = i ? (int)rnd((unsigned)i) : -1;

				node_add_input(n, c >= 0 ? names[c] : "x");
				l += c >= 0 ? lens[c] : len;
			}
			if (rnd(2))
				l = 1 + rnd(8192);	/* any new size */
		}
		node_add_output(n, name);
		node_set_type(n, 0, DT_FLOAT32, 1, &l);
		names[i] = n->id;
		lens[i] = l;
		nops++;
	}
	graph_add_output(g, "out", names[nn - 1]);
	for (int i = 0; i < nn / 5; i++) {
		const char *r = names[rnd((unsigned)nn)];

		snprintf(name, sizeof name, "o%d", i);
		graph_add_output(g, name, r);
	}
	graph_index(g);
	free(names);
	free(lens);
	return g;
}

static int
isew(const char *op)
{
	return !strcmp(op, "relu") || !strcmp(op, "add") ||
	    !strcmp(op, "sigmoid");
}

/* Does node i read slot name? */
static int
reads(struct node *n, const char *name)
{
	for (int k = 0; k < n->nin; k++)
		if (!strcmp(n->in[k], name))
			return 1;
	return 0;
}

/* Are slots a and b the same bytes by an aliasing chain (each alias
 * at its input's offset)? */
static int
sameclass(struct slot *s, int a, int b)
{
	while (s[a].alias_of >= 0 && s[s[a].alias_of].off == s[a].off)
		a = s[a].alias_of;
	while (s[b].alias_of >= 0 && s[s[b].alias_of].off == s[b].off)
		b = s[b].alias_of;
	return a == b;
}

static int
checkplan(struct graph *g, const struct memplan_stats *st, unsigned align)
{
	int nn = (int)g->nnodes, bad = 0;
	struct slot *s = xcalloc((size_t)nn + 1, sizeof *s);
	uint64_t most = 0;

	for (int i = 0; i < nn; i++) {
		struct node *n = g->nodes[i];
		cJSON *a = cJSON_GetObjectItemCaseSensitive(n->extra, "arena");

		s[i].name = n->out[0];
		s[i].def = s[i].last = (size_t)i;
		s[i].size = memplan_bytes(&n->types[0]);
		s[i].off = (uint64_t)cJSON_GetArrayItem(a, 0)->valuedouble;
		s[i].node = i;
		s[i].alias_of = -1;
		if (s[i].off % align)
			bad = 1;
		if (!strcmp(n->opname, "reshape"))
			for (int j = 0; j < i; j++)
				if (!strcmp(s[j].name, n->in[0]))
					s[i].alias_of = j;
	}
	for (int i = 0; i < nn; i++)
		for (int j = i + 1; j < nn; j++)
			if (reads(g->nodes[j], s[i].name))
				s[i].last = (size_t)j;
	for (size_t k = 0; k < g->noutputs; k++)
		for (int i = 0; i < nn; i++)
			if (!strcmp(g->outputs[k].ref, s[i].name))
				s[i].last = (size_t)nn;
	for (int i = 0; i < nn; i++)
		for (int j = i + 1; j < nn; j++) {
			struct slot *a = &s[i], *b = &s[j];
			int time = a->def <= b->last && b->def <= a->last;
			int space = a->size && b->size &&
			    a->off < b->off + b->size &&
			    b->off < a->off + a->size;
			int inplace = isew(g->nodes[j]->opname) &&
			    reads(g->nodes[j], a->name) &&
			    a->last == (size_t)j && a->off == b->off;

			if (time && space && !inplace && !sameclass(s, i, j)) {
				fprintf(stderr, "overlap: %s [%zu,%zu] @%llu+"
				    "%llu and %s [%zu,%zu] @%llu+%llu\n",
				    a->name, a->def, a->last,
				    (unsigned long long)a->off,
				    (unsigned long long)a->size, b->name,
				    b->def, b->last,
				    (unsigned long long)b->off,
				    (unsigned long long)b->size);
				bad = 1;
			}
			if (a->off + a->size > st->arena)
				bad = 1;
		}
	/* The lower bound can be no more than all live bytes at a step. */
	for (int t = 0; t <= nn; t++) {
		uint64_t live = 0;

		for (int i = 0; i < nn; i++)
			if (s[i].def <= (size_t)t && (size_t)t <= s[i].last)
				live += (s[i].size + align - 1) / align * align;
		if (live > most)
			most = live;
	}
	if (st->lower > most)
		bad = 1;
	free(s);
	return bad;
}

TEST(random_dags_never_overlap_and_stay_near_the_bound)
{
	int failures = 0, over = 0;
	double worst = 1;

	for (int t = 0; t < 1000; t++) {
		struct graph *g = randomdag(2 + (int)rnd(60));
		struct memplan_opts o = { 64, 1, 0, NULL };
		struct memplan_stats st;
		double ratio;

		/* as the pipeline gives it: nodes no output needs dropped */
		CHECK(graph_reorder(g, 0) == 0);
		if (memplan(g, &o, &st) != 0 || checkplan(g, &st, 64)) {
			failures++;
		} else {
			ratio = st.lower ? (double)st.arena / st.lower : 1;
			if (ratio > worst)
				worst = ratio;
			if (ratio > 1.10)
				over++;
		}
		graph_free(g);
	}
	printf("# 1000 DAGs: worst arena/lower bound %.4f, %d above 1.10\n",
	    worst, over);
	CHECK(failures == 0);
	CHECK(over == 0);
}

/* Workspace for some nodes, to plan and verify with. */
static int64_t
somescratch(struct graph *g, struct node *n)
{
	(void)g;
	return n->op == OP_CONCAT ? 100 + (int64_t)(n->index % 7) * 64 : 0;
}

TEST(every_plan_of_random_dags_passes_verification)
{
	int failures = 0;

	for (int t = 0; t < 1000; t++) {
		struct graph *g = randomdag(2 + (int)rnd(60));
		unsigned align = 1u << rnd(8);
		struct memplan_opts o = { align, (int)rnd(2), 0,
		    rnd(2) ? somescratch : NULL };
		struct memplan_stats st;

		CHECK(graph_reorder(g, 0) == 0);
		if (memplan(g, &o, &st) != 0 ||
		    memplan_verify(g, o.scratch) != 0) {
			fprintf(stderr, "DAG %d: align %u inplace %d\n", t,
			    align, o.inplace);
			failures++;
		}
		graph_free(g);
	}
	CHECK(failures == 0);
}

/*
 * Move one operand of a planned DAG to another aligned place inside
 * the arena: memplan_verify refuses it exactly when the independent
 * checker above finds an overlap.
 */
TEST(verification_agrees_with_an_independent_checker_on_edited_plans)
{
	int disagree = 0, refused = 0, accepted = 0;
	int err = dup(2), null = open("/dev/null", O_WRONLY);

	/* the refusals are expected: keep their messages off the log */
	fflush(stderr);
	dup2(null, 2);

	for (int t = 0; t < 1000; t++) {
		struct graph *g = randomdag(2 + (int)rnd(40));
		struct memplan_opts o = { 64, 1, 0, NULL };
		struct memplan_stats st;
		struct node *n;
		cJSON *a;
		uint64_t size, room;
		int bad, vbad;

		CHECK(graph_reorder(g, 0) == 0);
		CHECK(memplan(g, &o, &st) == 0);
		n = g->nodes[rnd((unsigned)g->nnodes)];
		a = cJSON_GetObjectItemCaseSensitive(n->extra, "arena");
		size = memplan_bytes(&n->types[0]);
		room = (st.arena - size) / 64;
		cJSON_ReplaceItemInArray(a, 0, cJSON_CreateNumber((double)
		    (rnd((unsigned)room + 1) * 64)));
		bad = checkplan(g, &st, 64);
		vbad = memplan_verify(g, NULL) != 0;
		if (bad != vbad) {
			dprintf(err, "DAG %d, node %s: checker %d, "
			    "verify %d\n", t, n->id, bad, vbad);
			disagree++;
		}
		refused += vbad;
		accepted += !vbad;
		graph_free(g);
	}
	fflush(stderr);
	dup2(err, 2);
	close(err);
	close(null);
	printf("# 1000 edited plans: %d refused, %d accepted\n", refused,
	    accepted);
	CHECK(disagree == 0);
	CHECK(refused > 100 && accepted > 100);
}

TEST(chain_of_relus_reuses_one_buffer)
{
	struct graph *g = graph_new();
	int64_t len = 1000;
	struct memplan_opts o = { 64, 1, 0, NULL };
	struct memplan_stats st;
	const char *prev = "x";
	char name[8];

	graph_add_input(g, "x", DT_FLOAT32, 1, &len);
	for (int i = 0; i < 10; i++) {
		struct node *n;

		snprintf(name, sizeof name, "r%d", i);
		n = graph_add_node(g, name, i ? "relu" : "sigmoid");
		node_add_input(n, prev);
		node_add_output(n, name);
		node_set_type(n, 0, DT_FLOAT32, 1, &len);
		prev = n->id;
	}
	graph_add_output(g, "y", prev);
	graph_index(g);
	CHECK(memplan(g, &o, &st) == 0);
	/* 4000 bytes rounded up to 64: one buffer for the whole chain */
	CHECK(st.arena == 4032);
	CHECK(st.lower == 4032);
	CHECK(st.inplace == 9);
	graph_free(g);
}

int
main(void)
{
	RUN(chain_of_relus_reuses_one_buffer);
	RUN(random_dags_never_overlap_and_stay_near_the_bound);
	RUN(every_plan_of_random_dags_passes_verification);
	RUN(verification_agrees_with_an_independent_checker_on_edited_plans);
	return DONE();
}
