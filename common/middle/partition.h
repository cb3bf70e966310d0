/*
 * partition: nodes between a WebNN context and the CPU, by a support
 * profile (partition.c).
 */
#ifndef NNL_PARTITION_H
#define NNL_PARTITION_H

#include "graph.h"

struct partition_opts {
	const cJSON *profile;		/* in the shape of opSupportLimits() */
	const char *profile_name;	/* recorded in the graph */
	int verbose;			/* each CPU node and why, on stderr */
};

/*
 * Mark every node of a typed graph with "placement": {"device": "cpu"
 * or "webnn", "partition": k, "reason" for the CPU}, and the graph with
 * "partitions": {"profile", "webnnPartitions", "cpuNodes"}.  0 or -1.
 */
int graph_partition(struct graph *g, const struct partition_opts *o);

#endif
