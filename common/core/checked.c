/*
 * checked: overflow-checked element counts and byte sizes, and the
 * tensor size limit every pass applies before it allocates, plans or
 * writes anything for an operand (see checked.h for why 2^31 - 1).
 */
#include "checked.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* NNL_NO_BUILTINS: the portable code, which the unit test checks too */
#if defined(NNL_NO_BUILTINS)
#elif defined(__has_builtin)
#if __has_builtin(__builtin_mul_overflow) && \
    __has_builtin(__builtin_add_overflow) && \
    __has_builtin(__builtin_sub_overflow)
#define HAVE_OVERFLOW_BUILTINS 1
#endif
#elif defined(__GNUC__) && __GNUC__ >= 5
#define HAVE_OVERFLOW_BUILTINS 1
#endif

int
checked_add_u64(uint64_t a, uint64_t b, uint64_t *r)
{
#ifdef HAVE_OVERFLOW_BUILTINS
	return __builtin_add_overflow(a, b, r) ? -1 : 0;
#else
	*r = a + b;
	return *r < a ? -1 : 0;
#endif
}

int
checked_mul_u64(uint64_t a, uint64_t b, uint64_t *r)
{
#ifdef HAVE_OVERFLOW_BUILTINS
	return __builtin_mul_overflow(a, b, r) ? -1 : 0;
#else
	if (a && b > UINT64_MAX / a)
		return -1;
	*r = a * b;
	return 0;
#endif
}

int
checked_add_i64(int64_t a, int64_t b, int64_t *r)
{
#ifdef HAVE_OVERFLOW_BUILTINS
	return __builtin_add_overflow(a, b, r) ? -1 : 0;
#else
	if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
		return -1;
	*r = a + b;
	return 0;
#endif
}

int
checked_sub_i64(int64_t a, int64_t b, int64_t *r)
{
#ifdef HAVE_OVERFLOW_BUILTINS
	return __builtin_sub_overflow(a, b, r) ? -1 : 0;
#else
	if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b))
		return -1;
	*r = a - b;
	return 0;
#endif
}

int
checked_mul_i64(int64_t a, int64_t b, int64_t *r)
{
#ifdef HAVE_OVERFLOW_BUILTINS
	return __builtin_mul_overflow(a, b, r) ? -1 : 0;
#else
	if (a == 0 || b == 0) {
		*r = 0;
		return 0;
	}
	if ((a == -1 && b == INT64_MIN) || (b == -1 && a == INT64_MIN))
		return -1;
	if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a) :
	    (b > 0 ? a < INT64_MIN / b : a < INT64_MAX / b))
		return -1;
	*r = a * b;
	return 0;
#endif
}

#ifndef CHECKED_ARITH_ONLY	/* the unit test's second copy stops here */

int
checked_parse_size(const char *s, uint64_t *v)
{
	static const char units[] = "KMGT";
	uint64_t n = 0, mul = 1;
	const char *p = s, *u;

	if (!isdigit((unsigned char)*p))
		return -1;
	for (; isdigit((unsigned char)*p); p++)
		if (checked_mul_u64(n, 10, &n) != 0 ||
		    checked_add_u64(n, (uint64_t)(*p - '0'), &n) != 0)
			return -1;
	if (*p && (u = strchr(units, toupper((unsigned char)*p)))) {
		for (const char *q = units; q <= u; q++)
			mul *= 1024;
		p++;
	}
	if (toupper((unsigned char)*p) == 'B')
		p++;
	if (*p || checked_mul_u64(n, mul, &n) != 0 || n == 0 ||
	    n > CHECKED_MAX_LIMIT)
		return -1;
	*v = n;
	return 0;
}

static uint64_t limit;		/* 0: not set yet */

uint64_t
checked_limit(void)
{
	if (!limit) {
		const char *e = getenv("NNL_MAX_TENSOR_BYTES");

		if (!e || checked_parse_size(e, &limit) != 0)
			limit = CHECKED_DEFAULT_LIMIT;
	}
	return limit;
}

void
checked_set_limit(uint64_t bytes)
{
	limit = bytes;
}

int
checked_setup(const char *arg)
{
	const char *what = arg ? "--max-tensor-bytes" : "NNL_MAX_TENSOR_BYTES";
	const char *s = arg ? arg : getenv("NNL_MAX_TENSOR_BYTES");
	uint64_t v;

	if (!s || (!arg && !*s)) {
		limit = CHECKED_DEFAULT_LIMIT;
		return 0;
	}
	if (checked_parse_size(s, &v) != 0) {
		error("%s: \"%s\" is not a size from 1 to 2^62 bytes (an "
		    "integer, optionally followed by K, M, G or T)", what, s);
		return -1;
	}
	limit = v;
	return 0;
}

int
checked_size(const struct tdesc *t, uint64_t *numel, uint64_t *bytes)
{
	uint64_t n = 1;
	int bits = dtype_bits(t->dt);

	if (t->rank < 0 || bits <= 0)
		return -1;
	for (int i = 0; i < t->rank; i++)
		if (t->dims[i] < 0 ||
		    checked_mul_u64(n, (uint64_t)t->dims[i], &n) != 0)
			return -1;
	*numel = n;
	if (bits == 4)
		*bytes = n / 2 + (n & 1);
	else if (checked_mul_u64(n, (uint64_t)bits / 8, bytes) != 0)
		return -1;
	return 0;
}

static const char *const hint = "(--max-tensor-bytes, NNL_MAX_TENSOR_BYTES)";

char *
checked_tensor(const struct tdesc *t)
{
	uint64_t span = 1, bytes;
	int bits = dtype_bits(t->dt), over = 0, zero = 0;
	char *ts, *msg;

	if (t->rank < 0 || bits <= 0)
		return NULL;	/* untyped: nothing to size yet */
	for (int i = 0; i < t->rank; i++) {
		int64_t d = t->dims[i];

		if (d < 0 || d > CHECKED_MAXDIM) {
			ts = tdesc_str(t);
			msg = xasprintf("%s: dimension %d (%lld) is not from 0 "
			    "to %lld", ts, i, (long long)d,
			    (long long)CHECKED_MAXDIM);
			free(ts);
			return msg;
		}
		zero |= d == 0;
		if (!over && checked_mul_u64(span, d ? (uint64_t)d : 1,
		    &span) != 0)
			over = 1;
	}
	if (!over && bits == 4)
		bytes = span / 2 + (span & 1);
	else if (over || checked_mul_u64(span, (uint64_t)bits / 8,
	    &bytes) != 0)
		over = 1;
	/* an empty tensor holds nothing, but its strides are computed */
	if (!over && bytes <= (zero ? CHECKED_MAX_LIMIT : checked_limit()))
		return NULL;
	ts = tdesc_str(t);
	if (zero && over)
		msg = xasprintf("%s is empty, but its nonzero dimensions make "
		    "more than 2^64 bytes", ts);
	else if (zero)
		msg = xasprintf("%s is empty, but its nonzero dimensions make "
		    "%llu bytes, more than 2^62", ts, (unsigned long long)bytes);
	else if (over)
		msg = xasprintf("%s is more than 2^64 bytes, above the limit "
		    "of %llu bytes %s", ts, (unsigned long long)checked_limit(),
		    hint);
	else
		msg = xasprintf("%s is %llu bytes, above the limit of %llu "
		    "bytes %s", ts, (unsigned long long)bytes,
		    (unsigned long long)checked_limit(), hint);
	free(ts);
	return msg;
}

char *
checked_bytes(uint64_t n, const char *what)
{
	if (n <= checked_limit())
		return NULL;
	return xasprintf("%s %llu bytes, above the limit of %llu bytes %s",
	    what, (unsigned long long)n, (unsigned long long)checked_limit(),
	    hint);
}

static int
report(struct graph *g, struct pos p, const char *kind, const char *name,
    const char *out, char *why)
{
	struct srcloc l = graph_loc(g, p);

	if (!why)
		return 0;
	if (out)
		error_at(&l, "%s \"%s\": output \"%s\": %s", kind, name, out,
		    why);
	else
		error_at(&l, "%s \"%s\": %s", kind, name, why);
	free(why);
	return 1;
}

int
checked_graph(struct graph *g)
{
	int nerr = 0;

	for (size_t i = 0; i < g->ninputs; i++)
		nerr += report(g, g->inputs[i]->pos, "input",
		    g->inputs[i]->name, NULL,
		    checked_tensor(&g->inputs[i]->desc));
	for (size_t i = 0; i < g->nconsts; i++)
		nerr += report(g, g->consts[i]->pos, "const",
		    g->consts[i]->name, NULL,
		    checked_tensor(&g->consts[i]->desc));
	for (size_t i = 0; i < g->nnodes; i++) {
		struct node *n = g->nodes[i];

		for (int k = 0; n->types && k < n->nout; k++)
			nerr += report(g, n->pos, "node", n->id, n->out[k],
			    checked_tensor(&n->types[k]));
	}
	return nerr;
}

/* -2^63 and 2^63, both exact doubles: (int64_t)v is defined exactly
 * when I64LO <= v < I64HI (C11 6.3.1.4) */
#define I64LO (-9223372036854775808.0)
#define I64HI 9223372036854775808.0

int
checked_double_i64(double v, int64_t lo, int64_t hi, int64_t *r)
{
	int64_t x;

	if (!(v >= I64LO && v < I64HI))	/* NaN fails both */
		return -1;
	x = (int64_t)v;
	if ((double)x != v || x < lo || x > hi)
		return -1;
	*r = x;
	return 0;
}

int64_t
checked_clamp_i64(double v, int64_t lo, int64_t hi)
{
	int64_t x;

	if (!(v >= I64LO))	/* NaN too */
		return lo;
	if (!(v < I64HI))
		return hi;
	x = (int64_t)v;
	return x < lo ? lo : x > hi ? hi : x;
}

#endif /* CHECKED_ARITH_ONLY */

