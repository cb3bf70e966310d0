/* threads: the thread count of generated code (threads.h). */
#include "threads.h"

#include <math.h>
#include <stdlib.h>

#include "util.h"

int kernel_threads = 1;

int
threads_parse(const char *s)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	v = strtol(s, &end, 10);
	return *end || v < 1 || v > THREADS_MAX ? -1 : (int)v;
}

static int
count(const struct graph *g, const cJSON *v, const char *what)
{
	if (!v)
		return 1;
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 1) ||
	    v->valuedouble > THREADS_MAX ||
	    v->valuedouble != floor(v->valuedouble)) {
		error("%s: %s threads: expected an integer from 1 to %d",
		    g->src, what, THREADS_MAX);
		return -1;
	}
	return (int)v->valuedouble;
}

int
threads_of_graph(const struct graph *g, int plan)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(g->extra, "memory");
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(g->extra, "nnl");
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(n, "config"), "threads");

	if (plan && cJSON_IsObject(m))
		return count(g, cJSON_GetObjectItemCaseSensitive(m, "threads"),
		    "memory plan");
	return count(g, c, "config");
}
