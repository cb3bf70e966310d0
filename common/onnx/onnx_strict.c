/*
 * onnx_strict: what the importer checks of a node before its converter
 * runs.  Its operand counts against the schema of its version
 * (onnx_arity.h), and what it asks for against what the importer
 * implements (onnx_attrs.def): an operator with no converter or from
 * another domain, a version outside those implemented, or an attribute
 * no converter reads is refused, never ignored.  Of the other domains,
 * only ai.onnx.preview.training's optimizers are converted (version 1,
 * onnx_train.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "onnx_imp.h"

static const struct arity {
	const char *op;
	int since, minin, maxin, minout, maxout;
} arities[] = {
#define ARITY(op, v, a, b, c, d) { op, v, a, b, c, d },
#include "onnx_arity.h"
#undef ARITY
};

static const struct impl {
	const char *op;
	int first, last;
	const char *attrs;
} impls[] = {
#define ATTRS(op, first, last, attrs) { op, first, last, attrs },
#include "onnx_attrs.def"
#undef ATTRS
};

static const struct {
	const char *name;
	onnx_handler *fn;
} handlers[] = {
#define ONNX(name, handler) { name, handler },
#include "onnx_ops.def"
#undef ONNX
};

onnx_handler *
onnx_handler_of(const char *op)
{
	for (size_t i = 0; i < sizeof handlers / sizeof *handlers; i++)
		if (strcmp(handlers[i].name, op) == 0)
			return handlers[i].fn;
	return NULL;
}

/* The schema of op at opset: the newest version not after it. */
static const struct arity *
schema(const char *op, int opset)
{
	const struct arity *a = NULL;

	for (size_t i = 0; i < sizeof arities / sizeof *arities; i++)
		if (strcmp(arities[i].op, op) == 0 &&
		    arities[i].since <= opset)
			a = &arities[i];
	return a;
}

/* "2", "2 to 3" or "1 or more", in a static buffer. */
static const char *
range(int lo, int hi)
{
	static char s[48];

	if (lo == hi)
		snprintf(s, sizeof s, "%d", lo);
	else if (hi >= 65535)
		snprintf(s, sizeof s, "%d or more", lo);
	else
		snprintf(s, sizeof s, "%d to %d", lo, hi);
	return s;
}

/* Optional inputs before a required one, which the counts cannot say:
 * Loop's M and cond, Scan-8's sequence_lens. */
static int
leading_optional(const struct arity *a, int i)
{
	return (strcmp(a->op, "Loop") == 0 && i < 2) ||
	    (strcmp(a->op, "Scan") == 0 && a->since == 8 && i == 0);
}

int
onnx_arity(struct imp *m)
{
	const Onnx__NodeProto *n = m->n;
	const struct arity *a;

	if (n->domain && strcmp(n->domain, TRAINING) == 0)
		return 0;	/* onnx_train.c counts its groups */
	if (!(a = schema(n->op_type, m->opset)))
		return nodeerr(m, "%s is not an operator of opset %d",
		    escape_tty_name(n->op_type), m->opset);
	if ((int)n->n_input < a->minin || (int)n->n_input > a->maxin)
		return nodeerr(m, "%zu inputs; %s-%d takes %s", n->n_input,
		    escape_tty_name(n->op_type), a->since,
		    range(a->minin, a->maxin));
	if ((int)n->n_output < a->minout || (int)n->n_output > a->maxout)
		return nodeerr(m, "%zu outputs; %s-%d gives %s", n->n_output,
		    escape_tty_name(n->op_type), a->since,
		    range(a->minout, a->maxout));
	for (int i = 0; i < a->minin; i++)
		if (!*n->input[i] && !leading_optional(a, i))
			return nodeerr(m, "input %d is required", i);
	return 0;
}

/* An op on sequences or optionals, values WebNN has no type for. */
static int
seqop(const char *op)
{
	static const char *const seq[] = {
		"SequenceAt", "SequenceConstruct", "SequenceEmpty",
		"SequenceErase", "SequenceInsert", "SequenceLength",
		"SequenceMap", "SplitToSequence", "ConcatFromSequence",
		"Optional", "OptionalGetElement", "OptionalHasElement",
	};

	for (size_t i = 0; i < sizeof seq / sizeof *seq; i++)
		if (strcmp(op, seq[i]) == 0)
			return 1;
	return 0;
}

/* Does the row name attribute name for version since?  Each word of
 * the row is "name", "name:A" or "name:A-B". */
static int
understood(const struct impl *r, const char *name, int since)
{
	size_t len = strlen(name);

	for (const char *w = r->attrs; *w; ) {
		size_t wl = strcspn(w, " ");
		size_t nl = strcspn(w, " :");
		long lo = 0, hi = 1L << 30;

		if (w[nl] == ':') {
			char *end;

			lo = strtol(w + nl + 1, &end, 10);
			hi = *end == '-' ? strtol(end + 1, NULL, 10) : hi;
		}
		if (nl == len && strncmp(w, name, len) == 0 &&
		    lo <= since && since <= hi)
			return 1;
		w += wl;
		w += strspn(w, " ");
	}
	return 0;
}

/* An optimizer of ai.onnx.preview.training (onnx_train.c)? */
static int
trainop(const char *op)
{
	return strcmp(op, "Adagrad") == 0 || strcmp(op, "Adam") == 0 ||
	    strcmp(op, "Momentum") == 0;
}

/* The training domain's version 1, the only one: its since_version
 * (1), or -1 after refuse(). */
static int
trainsince(struct imp *m)
{
	if (m->training == 1)
		return 1;
	if (m->training == 0)
		refuse(m, REFUSE_VERSION, "the model does not import the "
		    "domain " TRAINING);
	else
		refuse(m, REFUSE_VERSION, TRAINING " version %d is not "
		    "implemented; the importer implements version 1",
		    m->training);
	return -1;
}

int
onnx_strict(struct imp *m)
{
	const Onnx__NodeProto *n = m->n;
	const char *dom = n->domain && *n->domain &&
	    strcmp(n->domain, "ai.onnx") ? n->domain : NULL;
	const struct impl *r = NULL;
	const struct arity *a;
	int since, train = dom && strcmp(dom, TRAINING) == 0 &&
	    trainop(n->op_type);

	if (dom && !train)
		return refuse(m, REFUSE_OP, "the importer knows only the "
		    "default domain's operators, and Adagrad, Adam and "
		    "Momentum of " TRAINING);
	if (!onnx_handler_of(n->op_type) || (!dom && trainop(n->op_type)))
		return refuse(m, seqop(n->op_type) ? REFUSE_SEQUENCE :
		    REFUSE_OP, "no converter for this operator");
	if (!train && m->opset > ONNX_OPSET)
		return refuse(m, REFUSE_VERSION, "opset %d is newer than "
		    "the newest the importer knows (%d)", m->opset,
		    ONNX_OPSET);
	if (train) {
		if ((since = trainsince(m)) < 0)
			return REFUSED;
	} else if ((a = schema(n->op_type, m->opset)) != NULL)
		since = a->since;
	else	/* not an operator of this opset: the arity check's error */
		return 0;
	for (size_t i = 0; i < sizeof impls / sizeof *impls && !r; i++)
		if (strcmp(impls[i].op, n->op_type) == 0)
			r = &impls[i];
	if (!r)		/* gen-onnx-attrs.py --check says so too */
		return refuse(m, REFUSE_VERSION, "%s-%d (opset %d): no "
		    "version is in onnx_attrs.def",
		    escape_tty_name(n->op_type), since, m->opset);
	if (since < r->first || since > r->last)
		return refuse(m, REFUSE_VERSION, "%s-%d (opset %d) is not "
		    "implemented; the importer implements %s-%d to %s-%d",
		    escape_tty_name(n->op_type), since, m->opset,
		    escape_tty_name(n->op_type), r->first,
		    escape_tty_name(n->op_type), r->last);
	for (size_t i = 0; i < n->n_attribute; i++) {
		const char *name = n->attribute[i]->name ?
		    n->attribute[i]->name : "";

		if (!understood(r, name, since))
			return refuse(m, REFUSE_ATTR, "attribute \"%s\" of "
			    "%s-%d is not implemented",
			    escape_tty_name(name),
			    escape_tty_name(n->op_type), since);
	}
	return 0;
}
