/*
 * opts: a node's options and positional parameters read by name, with
 * the op table's defaults, and errors that name the node.  The shape
 * rules and the host kernels both read options through these, so they
 * sit below both (they were in shape.c).
 */
#include "opts.h"
#include "escape.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
int
shape_err(struct shapectx *c, const char *fmt, ...)
{
	struct srcloc l = graph_loc(c->g, c->n->pos);
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	error_at(&l, "node \"%s\": %s", escape_tty_name(c->n->id), msg);
	free(msg);
	c->bad = 1;
	return -1;
}


/* The member and its table entry; NULL when absent or null. */
static const cJSON *
member(struct shapectx *c, const char *name, const struct argdesc **a)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->n->options,
	    name);

	*a = op_arg(c->d, name);
	if (!*a)
		BUG("rule asks for an option its op does not have");
	return cJSON_IsNull(v) ? NULL : v;
}

static int
badtype(struct shapectx *c, const char *name, const char *want)
{
	return shape_err(c, "option \"%s\": expected %s", name, want);
}

int
opt_present(struct shapectx *c, const char *name)
{
	const struct argdesc *a;

	return member(c, name, &a) != NULL;
}

static int
getnum(struct shapectx *c, const char *name, double *v, double lo,
    double hi, int integral, const char *want)
{
	const struct argdesc *a;
	const cJSON *m = member(c, name, &a);

	if (!m) {
		if (a->def)
			*v = strcmp(a->def, "true") == 0 ? 1 :
			    strcmp(a->def, "false") == 0 ? 0 :
			    strtod(a->def, NULL);
		return 0;
	}
	if (!cJSON_IsNumber(m) || m->valuedouble < lo || m->valuedouble > hi ||
	    (integral && m->valuedouble != floor(m->valuedouble)))
		return badtype(c, name, want);
	*v = m->valuedouble;
	return 1;
}

int
opt_u32(struct shapectx *c, const char *name, uint32_t *v)
{
	double d = *v;
	int r = getnum(c, name, &d, 0, 4294967295.0, 1,
	    "an integer from 0 to 4294967295");

	if (r >= 0)
		*v = (uint32_t)d;
	return r;
}

int
opt_i32(struct shapectx *c, const char *name, int32_t *v)
{
	double d = *v;
	int r = getnum(c, name, &d, -2147483648.0, 2147483647.0, 1,
	    "a 32-bit integer");

	if (r >= 0)
		*v = (int32_t)d;
	return r;
}

int
opt_f64(struct shapectx *c, const char *name, double *v)
{
	return getnum(c, name, v, -HUGE_VAL, HUGE_VAL, 0, "a number");
}

int
opt_bool(struct shapectx *c, const char *name, int *v)
{
	const struct argdesc *a;
	const cJSON *m = member(c, name, &a);

	if (!m) {
		if (a->def)
			*v = strcmp(a->def, "true") == 0;
		return 0;
	}
	if (!cJSON_IsBool(m))
		return badtype(c, name, "true or false");
	*v = cJSON_IsTrue(m);
	return 1;
}

int
opt_str(struct shapectx *c, const char *name, const char **v)
{
	const struct argdesc *a;
	const cJSON *m = member(c, name, &a);

	if (!m) {
		if (a->def)
			*v = a->def;
		return 0;
	}
	if (!cJSON_IsString(m))
		return badtype(c, name, "a string");
	if (a->type == AT_ENUM) {
		char **e;

		for (e = a->enumvals; *e; e++)
			if (strcmp(*e, m->valuestring) == 0)
				break;
		if (!*e)
			return shape_err(c, "option \"%s\": \"%s\" is not a "
			    "valid value", name,
			    escape_tty_name(m->valuestring));
	}
	*v = m->valuestring;
	return 1;
}

int
opt_dtype(struct shapectx *c, const char *name, enum dtype *v)
{
	const char *s = NULL;
	int r = opt_str(c, name, &s);

	if (r < 0 || !s)
		return r;
	*v = dtype_from_name(s);
	if (*v == DT_NONE)
		return shape_err(c, "option \"%s\": unknown data type \"%s\"",
		    name, escape_tty_name(s));
	return r;
}

static int
getnums(struct shapectx *c, const char *name, double *v, int max, int *n,
    int u32)
{
	const struct argdesc *a;
	const cJSON *m = member(c, name, &a), *it;
	const char *want = u32 ? "an array of integers from 0 to 4294967295" :
	    "an array of numbers";

	*n = 0;
	if (!m)
		return 0;
	if (u32 && cJSON_IsNumber(m) && a->hasalt) {
		if (m->valuedouble < 0 || m->valuedouble > 4294967295.0 ||
		    m->valuedouble != floor(m->valuedouble))
			return badtype(c, name, want);
		v[0] = m->valuedouble;
		*n = 1;
		return 1;
	}
	if (!cJSON_IsArray(m))
		return badtype(c, name, want);
	cJSON_ArrayForEach(it, m) {
		if (!cJSON_IsNumber(it) || (u32 && (it->valuedouble < 0 ||
		    it->valuedouble > 4294967295.0 ||
		    it->valuedouble != floor(it->valuedouble))))
			return badtype(c, name, want);
		if (*n >= max)
			return shape_err(c, "option \"%s\": more than %d "
			    "values", name, max);
		v[(*n)++] = it->valuedouble;
	}
	return 1;
}

int
opt_u32s(struct shapectx *c, const char *name, uint32_t *v, int max, int *n)
{
	double *d = xmalloc((size_t)(max > 0 ? max : 1) * sizeof *d);
	int r = getnums(c, name, d, max, n, 1);

	for (int i = 0; r > 0 && i < *n; i++)
		v[i] = (uint32_t)d[i];
	free(d);
	return r;
}

int
opt_f64s(struct shapectx *c, const char *name, double *v, int max, int *n)
{
	return getnums(c, name, v, max, n, 0);
}

const struct tdesc *
opt_operand(struct shapectx *c, const char *name)
{
	const struct argdesc *a;
	const cJSON *m = member(c, name, &a);
	struct operand *o;

	if (!m || !cJSON_IsString(m))
		return NULL;
	o = graph_find(c->g, m->valuestring);
	return o ? operand_type(o) : NULL;
}

