/*
 * test_uses: the reader index and the item-by-item name table against
 * counts made by hand, through the changes a rewriting pass makes:
 * a node's reads changed in place, nodes taken out, a node renamed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "graph.h"
#include "uses.h"

/* x -> a = relu(x) -> b = add(a, a) -> c = add(b, x); outputs c, b */
static struct graph *
small(void)
{
	struct graph *g = graph_new();
	int64_t d[1] = { 4 };
	struct node *n;

	graph_add_input(g, "x", DT_FLOAT32, 1, d);
	n = graph_add_node(g, "a", "relu");
	node_add_input(n, "x");
	node_add_output(n, "a");
	n = graph_add_node(g, "b", "add");
	node_add_input(n, "a");
	node_add_input(n, "a");
	node_add_output(n, "b");
	n = graph_add_node(g, "c", "add");
	node_add_input(n, "b");
	node_add_input(n, "x");
	node_add_output(n, "c");
	graph_add_output(g, "c", "c");
	graph_add_output(g, "b2", "b");
	graph_index(g);
	return g;
}

TEST(counts_reads_and_outputs)
{
	struct graph *g = small();
	struct uses u;

	uses_build(&u, g);
	CHECK(uses_count(&u, "x") == 2);
	CHECK(uses_count(&u, "a") == 2);	/* read twice by b */
	CHECK(uses_count(&u, "b") == 2);	/* c, and an output */
	CHECK(uses_count(&u, "c") == 1);
	CHECK(uses_count(&u, "nothing") == 0);
	CHECK(uses_get(&u, "b")->nout == 1);
	uses_free(&u);
	graph_free(g);
}

/* c's input b changed in place to a: drop undoes what add did. */
TEST(follows_changes_in_place)
{
	struct graph *g = small();
	struct node *c = g->nodes[2];
	struct uses u;

	uses_build(&u, g);
	free(c->in[0]);
	c->in[0] = xstrdup("a");
	uses_add(&u, c);		/* re-adding drops the old reads */
	CHECK(uses_count(&u, "a") == 3);
	CHECK(uses_count(&u, "b") == 1);
	CHECK(uses_get(&u, "a")->rd[2] == c ||
	    uses_get(&u, "a")->rd[0] == c || uses_get(&u, "a")->rd[1] == c);
	uses_drop(&u, c);
	CHECK(uses_count(&u, "a") == 2);
	CHECK(uses_count(&u, "x") == 1);
	uses_output(&u, "b", -1);
	CHECK(uses_count(&u, "b") == 0);
	uses_free(&u);
	graph_free(g);
}

/* Many nodes; every other one's outputs taken out of the name table
 * and some renamed: every lookup still finds what the table holds. */
TEST(name_table_removal_keeps_the_rest)
{
	struct graph *g = graph_new();
	enum { N = 3000 };
	char name[32];
	int bad = 0;

	for (int i = 0; i < N; i++) {
		struct node *n;

		snprintf(name, sizeof name, "v%d", i);
		n = graph_add_node(g, name, "relu");
		node_add_input(n, "x");
		node_add_output(n, name);
	}
	graph_index(g);
	for (int i = 0; i < N; i += 2)
		graph_unindex_node(g, g->nodes[i]);
	for (int i = 1; i < N; i += 6) {
		struct node *n = g->nodes[i];

		graph_unindex_node(g, n);
		free(n->out[0]);
		snprintf(name, sizeof name, "w%d", i);
		n->out[0] = xstrdup(name);
		graph_index_node(g, n);
	}
	for (int i = 0; i < N; i++) {
		struct operand *o;

		snprintf(name, sizeof name, "v%d", i);
		o = graph_find(g, name);
		if (i % 2 == 0 || i % 6 == 1)
			bad += o != NULL;
		else
			bad += !o || o->producer != g->nodes[i];
		snprintf(name, sizeof name, "w%d", i);
		o = graph_find(g, name);
		bad += i % 6 == 1 ? !o || o->producer != g->nodes[i] :
		    o != NULL;
	}
	CHECK(bad == 0);
	CHECK(g->tabn == N / 2);
	graph_free(g);
}

int
main(void)
{
	RUN(counts_reads_and_outputs);
	RUN(follows_changes_in_place);
	RUN(name_table_removal_keeps_the_rest);
	return DONE();
}
