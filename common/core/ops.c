/*
 * ops: parses the rows of ops.def (and ops_nnl.def) into struct opdesc on first use.  The
 * strings are the table's source of truth; nothing else lists ops.
 */
#include "ops.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static const struct {
	const char *name, *operands, *params, *options;
	int nout;
} rows[] = {
#define OP(id, name, operands, params, options, nout, rule) \
	{ name, operands, params, options, nout },
#include "ops.def"
#include "ops_nnl.def"
#undef OP
};

static struct opdesc descs[OP_COUNT];
static int ready;

/* Split s on spaces into a NULL-terminated array. */
static char **
words(const char *s, int *n)
{
	char **v = NULL;
	size_t cap = 0;
	int k = 0;

	for (;;) {
		const char *e;

		while (*s == ' ')
			s++;
		if (!*s)
			break;
		for (e = s; *e && *e != ' '; e++)
			if (*e == '(')	/* enum(a|b) has no spaces */
				while (*e && *e != ')')
					e++;
		GROW(v, cap, (size_t)k + 2);
		v[k++] = xstrndup(s, (size_t)(e - s));
		s = e;
	}
	GROW(v, cap, (size_t)k + 1);
	v[k] = NULL;
	if (n)
		*n = k;
	return v;
}

static enum argtype
parsetype(char *t, int *seq, char ***enumvals)
{
	size_t n = strlen(t);

	*seq = 0;
	if (n > 2 && strcmp(t + n - 2, "[]") == 0) {
		*seq = 1;
		t[n - 2] = '\0';
	}
	if (strncmp(t, "enum(", 5) == 0) {
		char *s = xstrdup(t + 5), *p;
		int k;

		s[strlen(s) - 1] = '\0';
		for (p = s; *p; p++)
			if (*p == '|')
				*p = ' ';
		*enumvals = words(s, &k);
		free(s);
		return AT_ENUM;
	}
	if (!strcmp(t, "u32")) return AT_U32;
	if (!strcmp(t, "i32")) return AT_I32;
	if (!strcmp(t, "f64")) return AT_F64;
	if (!strcmp(t, "bool")) return AT_BOOL;
	if (!strcmp(t, "number")) return AT_NUMBER;
	if (!strcmp(t, "dtype")) return AT_DTYPE;
	if (!strcmp(t, "str")) return AT_STR;
	if (!strcmp(t, "operand")) return AT_OPERAND;
	BUG("ops.def: unknown type");
}

static struct argdesc *
parseargs(const char *s, int *n)
{
	char **w = words(s, n);
	struct argdesc *a = xcalloc((size_t)*n + 1, sizeof *a);

	for (int i = 0; i < *n; i++) {
		char *colon = strchr(w[i], ':'), *eq, *bar;

		if (!colon)
			BUG("ops.def: argument without a type");
		*colon = '\0';
		a[i].name = xstrdup(w[i]);
		eq = strchr(colon + 1, '=');
		if (eq) {
			*eq = '\0';
			a[i].def = xstrdup(eq + 1);
		}
		bar = strchr(colon + 1, '|');
		if (bar && strncmp(colon + 1, "enum(", 5) != 0) {
			*bar = '\0';
			a[i].hasalt = 1;
			a[i].alt = parsetype(bar + 1, &a[i].altseq,
			    &a[i].enumvals);
		}
		a[i].type = parsetype(colon + 1, &a[i].seq, &a[i].enumvals);
		free(w[i]);
	}
	free(w);
	return a;
}

static void
init(void)
{
	if (ready)
		return;
	for (int i = 0; i < OP_COUNT; i++) {
		struct opdesc *d = &descs[i];
		size_t len;

		d->id = (enum op)i;
		d->name = rows[i].name;
		d->operands = words(rows[i].operands, &d->nOperands);
		if (d->nOperands == 1 &&
		    (len = strlen(d->operands[0])) > 3 &&
		    strcmp(d->operands[0] + len - 3, "...") == 0) {
			d->variadic = 1;
			d->operands[0][len - 3] = '\0';
		}
		d->params = parseargs(rows[i].params, &d->nparams);
		d->options = parseargs(rows[i].options, &d->noptions);
		d->nout = rows[i].nout;
		d->nnl = i >= OP_WEBNN_COUNT;
	}
	ready = 1;
}

const struct opdesc *
op_get(enum op id)
{
	init();
	return id >= 0 && id < OP_COUNT ? &descs[id] : NULL;
}

const struct opdesc *
op_lookup(const char *name)
{
	init();
	for (int i = 0; i < OP_COUNT; i++)
		if (strcmp(descs[i].name, name) == 0)
			return &descs[i];
	return NULL;
}

int
editdistance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int *row = xmalloc((lb + 1) * sizeof *row), d;

	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int prev = row[0];

		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int cur = row[j];
			int ca = a[i - 1], cb = b[j - 1];
			int cost = ca == cb ? 0 :
			    ((ca | 32) == (cb | 32) ? 0 : 1);
			int best = prev + cost;

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	d = row[lb];
	free(row);
	return d;
}

const char *
op_suggest(const char *name)
{
	const char *best = NULL;
	int bestd = 1 << 30;

	init();
	for (int i = 0; i < OP_COUNT; i++) {
		int d = editdistance(name, descs[i].name);

		if (d < bestd) {
			bestd = d;
			best = descs[i].name;
		}
	}
	/* Only a plausible neighbour is worth suggesting. */
	return bestd <= 1 + (int)strlen(name) / 3 ? best : NULL;
}

const struct argdesc *
op_arg(const struct opdesc *d, const char *name)
{
	for (int i = 0; i < d->nparams; i++)
		if (strcmp(d->params[i].name, name) == 0)
			return &d->params[i];
	for (int i = 0; i < d->noptions; i++)
		if (strcmp(d->options[i].name, name) == 0)
			return &d->options[i];
	return NULL;
}

int
op_isoperandarg(const struct opdesc *d, const char *name)
{
	const struct argdesc *a = op_arg(d, name);

	return a && a->type == AT_OPERAND;
}

static const char *
tname(enum argtype t)
{
	static const char *n[] = { "u32", "i32", "f64", "bool", "number",
	    "dtype", "str", "operand", "enum" };
	return n[t];
}

const char *
argtype_name(const struct argdesc *a, char *buf, int len)
{
	snprintf(buf, (size_t)len, "%s%s%s%s%s", tname(a->type),
	    a->seq ? "[]" : "", a->hasalt ? " or " : "",
	    a->hasalt ? tname(a->alt) : "",
	    a->hasalt && a->altseq ? "[]" : "");
	return buf;
}
