/*
 * constdata: the bytes of a constant operand, whatever its init: read
 * from the graph's weights file, filled from a scalar, or inline.
 */
#include "constdata.h"
#include "escape.h"

#include <stdlib.h>
#include <string.h>

#include "rt/rt.h"
#include "weights.h"

static void
fill(void *dst, enum dtype dt, uint64_t n, double v)
{
	for (uint64_t i = 0; i < n; i++)
		switch (dt) {
		case DT_FLOAT32: ((float *)dst)[i] = (float)v; break;
		case DT_FLOAT16:
			((nnl_f16 *)dst)[i] = nnl_f32_to_f16((float)v); break;
		case DT_INT32: ((int32_t *)dst)[i] = (int32_t)v; break;
		case DT_UINT32: ((uint32_t *)dst)[i] = (uint32_t)v; break;
		case DT_INT64: ((int64_t *)dst)[i] = (int64_t)v; break;
		case DT_UINT64: ((uint64_t *)dst)[i] = (uint64_t)v; break;
		case DT_INT8: ((int8_t *)dst)[i] = (int8_t)v; break;
		case DT_UINT8: ((uint8_t *)dst)[i] = (uint8_t)v; break;
		case DT_FLOAT64: ((double *)dst)[i] = v; break;
		case DT_INT16: ((int16_t *)dst)[i] = (int16_t)v; break;
		case DT_UINT16: ((uint16_t *)dst)[i] = (uint16_t)v; break;
		case DT_BFLOAT16:
			((uint16_t *)dst)[i] = nnl_f32_to_bf16((float)v);
			break;
		default: break;
		}
}

/*
 * The graph's weights, opened once and kept with the graph while it
 * names the same files: a pass that reads many constants reads the
 * manifest and the file once, not once per constant.
 */
static struct weights *
openweights(struct graph *g)
{
	struct weights *w = g->wcache;

	if (w && strcmp(w->path, g->weights_file) == 0 &&
	    strcmp(w->manifest_path, g->manifest_file) == 0)
		return w;
	const_forget(g);
	w = xcalloc(1, sizeof *w);
	if (weights_open(w, g->weights_file, g->manifest_file) != 0) {
		free(w);
		return NULL;
	}
	g->wcache_free = const_forget;
	return g->wcache = w;
}

void
const_forget(struct graph *g)
{
	if (g->wcache)
		weights_close(g->wcache);
	free(g->wcache);
	g->wcache = NULL;
}

static void *
fromweights(struct graph *g, struct operand *c, uint64_t nbytes)
{
	struct weights *w;
	struct wtensor *t;
	void *p;

	if (!g->weights_file) {
		error("const \"%s\": weights \"%s\" but the graph names "
		    "no weights file", escape_tty_name(c->name),
		    escape_tty_name(c->ref));
		return NULL;
	}
	if (!(w = openweights(g)))
		return NULL;
	t = manifest_find(&w->m, c->ref);
	if (!t || t->length != nbytes) {
		error("const \"%s\": weights \"%s\" missing or of the "
		    "wrong size in %s", escape_tty_name(c->name),
		    escape_tty_name(c->ref), g->manifest_file);
		return NULL;
	}
	p = xmalloc(nbytes + 1);
	memcpy(p, weights_bytes(w, t), nbytes);
	return p;
}

void *
const_bytes(struct graph *g, struct operand *c, uint64_t *nbytes)
{
	uint64_t n = tdesc_numel(&c->desc);
	void *p;

	*nbytes = dtype_bytes(c->desc.dt, n);
	if (c->init == INIT_BYTES) {
		p = xmalloc(c->nbytes + 1);
		memcpy(p, c->bytes, c->nbytes);
		return p;
	}
	if (c->init == INIT_SCALAR) {
		if (dtype_bits(c->desc.dt) == 4) {
			error("const \"%s\": 4-bit scalar constants are not "
			    "supported", escape_tty_name(c->name));
			return NULL;
		}
		p = xmalloc(*nbytes + 1);
		fill(p, c->desc.dt, n, c->value);
		return p;
	}
	return fromweights(g, c, *nbytes);
}
