/* dtype: the one table of operand data types. */
#include "dtype.h"

#include <string.h>

static const struct {
	const char *name, *shortname, *npy;
	int bits, isfloat, issigned;
} tab[] = {
#define X(e, n, s, b, d, f, sg) { n, s, d, b, f, sg },
	DTYPES(X)
#undef X
};

#define OK(t) ((t) >= 0 && (t) < DT_COUNT)

const char *dtype_name(enum dtype t) { return OK(t) ? tab[t].name : "?"; }
const char *dtype_short(enum dtype t) { return OK(t) ? tab[t].shortname : "?"; }
const char *dtype_npy(enum dtype t) { return OK(t) ? tab[t].npy : NULL; }
int dtype_bits(enum dtype t) { return OK(t) ? tab[t].bits : 0; }
int dtype_isfloat(enum dtype t) { return OK(t) && tab[t].isfloat; }
int dtype_issigned(enum dtype t) { return OK(t) && tab[t].issigned; }
int dtype_extended(enum dtype t) { return OK(t) && t >= DT_FIRST_EXTENDED; }

enum dtype
dtype_from_name(const char *s)
{
	for (int i = 0; i < DT_COUNT; i++)
		if (strcmp(s, tab[i].name) == 0)
			return (enum dtype)i;
	return DT_NONE;
}

enum dtype
dtype_from_short(const char *s)
{
	for (int i = 0; i < DT_COUNT; i++)
		if (strcmp(s, tab[i].shortname) == 0)
			return (enum dtype)i;
	return DT_NONE;
}

enum dtype
dtype_from_npy(const char *d)
{
	/* Byte order: '<' little, '|' not applicable, '=' native (we only
	 * run little-endian hosts for packing), '>' big: refused. */
	if (*d == '<' || *d == '|' || *d == '=')
		d++;
	else if (*d == '>')
		return DT_NONE;
	for (int i = 0; i < DT_COUNT; i++)
		if (tab[i].npy && strcmp(d, tab[i].npy + 1) == 0)
			return (enum dtype)i;
	return DT_NONE;
}

uint64_t
dtype_bytes(enum dtype t, uint64_t n)
{
	int b = dtype_bits(t);

	/* saturating: a count that overflowed (tdesc_numel's UINT64_MAX)
	 * stays too large to match any real size */
	if (b == 4)
		return n / 2 + (n & 1);
	if (b < 8)
		return 0;	/* no such type */
	return n > UINT64_MAX / (uint64_t)(b / 8) ? UINT64_MAX :
	    n * (uint64_t)(b / 8);
}
