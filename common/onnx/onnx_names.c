/*
 * onnx_names: every name of an ONNX model is a string nnl can hold: no
 * NUL byte, valid UTF-8.  protobuf-c hands strings over as C strings,
 * so a NUL inside one would cut the name silently; the check reads the
 * protobuf's own bytes instead, along the fields that hold names
 * (graph name, node inputs, outputs, name, op_type and domain,
 * initializer and value names), and names the node at fault.
 */
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "onnx_imp.h"

enum msg { M_MODEL, M_GRAPH, M_NODE, M_VALUE, M_TENSOR, M_NONE };

/* Where a string field of a message leads: a string, or a message. */
static const struct field {
	enum msg in;
	unsigned num;
	enum msg to;		/* M_NONE: a string */
	const char *what;
} fields[] = {
	{ M_MODEL, 7, M_GRAPH, "graph" },
	{ M_GRAPH, 1, M_NODE, "node" },
	{ M_GRAPH, 2, M_NONE, "the graph's name" },
	{ M_GRAPH, 5, M_TENSOR, "initializer" },
	{ M_GRAPH, 11, M_VALUE, "graph input" },
	{ M_GRAPH, 12, M_VALUE, "graph output" },
	{ M_GRAPH, 13, M_VALUE, "value_info" },
	{ M_NODE, 1, M_NONE, "input" },
	{ M_NODE, 2, M_NONE, "output" },
	{ M_NODE, 3, M_NONE, "name" },
	{ M_NODE, 4, M_NONE, "op_type" },
	{ M_NODE, 7, M_NONE, "domain" },
	{ M_VALUE, 1, M_NONE, "name" },
	{ M_TENSOR, 8, M_NONE, "name" },
};

struct ck {
	const char *path;
	const Onnx__GraphProto *gp;
	const char *where;	/* "node", "initializer", ... */
	size_t idx;		/* its index among its kind */
};

static int
varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	*v = 0;
	for (int s = 0; s < 64 && *p < end; s += 7) {
		unsigned char c = *(*p)++;

		*v |= (uint64_t)(c & 0x7f) << s;
		if (!(c & 0x80))
			return 0;
	}
	return -1;
}

/* "node 3 (Relu \"name\")", with the model's strings terminal-safe. */
static void
report(const struct ck *c, const char *field, size_t k, const char *why)
{
	struct buf b = { 0 };
	/* where is NULL for the graph's own fields (its name) */
	const Onnx__NodeProto *n = c->where && strcmp(c->where,
	    "node") == 0 && c->idx < c->gp->n_node ? c->gp->node[c->idx] :
	    NULL;

	if (n) {
		buf_printf(&b, "node %zu (", c->idx);
		escape_tty(&b, n->op_type ? n->op_type : "?");
		if (n->name && *n->name) {
			buf_puts(&b, " \"");
			escape_tty(&b, n->name);
			buf_puts(&b, "\"");
		}
		buf_puts(&b, ")");
	} else if (c->where) {
		buf_printf(&b, "%s %zu", c->where, c->idx);
	}
	if (strcmp(field, "input") == 0 || strcmp(field, "output") == 0)
		error("%s: %s: its %s %zu %s", c->path, b.s ? b.s : "graph",
		    field, k, why);
	else
		error("%s: %s%s%s %s", c->path, b.s ? b.s : "", b.s ? ": its " :
		    "", field, why);
	free(b.s);
}

static int
scan(struct ck *c, enum msg m, const unsigned char *p,
    const unsigned char *end)
{
	size_t count[16] = { 0 };

	while (p < end) {
		uint64_t key, len;
		const struct field *f = NULL;

		if (varint(&p, end, &key) != 0)
			return 0;	/* protobuf-c read it: not ours */
		switch (key & 7) {
		case 0: if (varint(&p, end, &len) != 0) return 0; continue;
		case 1: case 5:
			if (end - p < ((key & 7) == 1 ? 8 : 4))
				return 0;
			p += (key & 7) == 1 ? 8 : 4;
			continue;
		case 2: break;
		default: return 0;
		}
		if (varint(&p, end, &len) != 0 || len > (uint64_t)(end - p))
			return 0;
		for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
			if (fields[i].in == m && fields[i].num == key >> 3)
				f = &fields[i];
		if (f && f->to == M_NONE) {
			size_t k = count[f - fields]++, n = (size_t)len;
			unsigned long cp;

			for (size_t i = 0; i < n; ) {
				size_t l;

				cp = 1;
				l = escape_utf8len((const char *)p + i, n - i,
				    &cp);

				if (l == 0 || cp == 0) {
					report(c, f->what, k, cp == 0 && l ?
					    "holds a NUL byte" :
					    "is not valid UTF-8");
					return -1;
				}
				i += l;
			}
		} else if (f) {
			struct ck sub = *c;

			if (f->to != M_GRAPH) {
				sub.where = f->what;
				sub.idx = count[f - fields]++;
			}
			if (scan(&sub, f->to, p, p + len) != 0)
				return -1;
		}
		p += len;
	}
	return 0;
}

int
onnx_names_check(const char *path, const unsigned char *bytes, size_t len,
    const Onnx__GraphProto *gp)
{
	struct ck c = { path, gp, NULL, 0 };

	return scan(&c, M_MODEL, bytes, bytes + len);
}
