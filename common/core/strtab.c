/*
 * strtab: open addressing with linear probing, the table at most half
 * full; removal shifts the rest of the cluster back (no tombstones), so
 * a table that sees many removals stays as fast as a fresh one.
 */
#include "strtab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* FNV-1a */
static size_t
hash(const char *s)
{
	size_t h = (size_t)2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * (size_t)16777619u;
	return h;
}

/* The slot holding key, or the empty slot where it would go. */
static size_t
slot(const struct strtab *t, const char *key)
{
	size_t m = t->cap - 1, i;

	for (i = hash(key) & m; t->v[i].key; i = (i + 1) & m)
		if (strcmp(t->v[i].key, key) == 0)
			break;
	return i;
}

void *
strtab_get(const struct strtab *t, const char *key)
{
	if (!t->cap)
		return NULL;
	return t->v[slot(t, key)].val;
}

static void
grow(struct strtab *t)
{
	struct strtab_ent *old = t->v;
	size_t oldcap = t->cap;

	if (oldcap > SIZE_MAX / 2 / sizeof *t->v)
		die("out of memory");
	t->cap = oldcap ? oldcap * 2 : 16;
	t->v = xcalloc(t->cap, sizeof *t->v);
	for (size_t k = 0; k < oldcap; k++)
		if (old[k].key)
			t->v[slot(t, old[k].key)] = old[k];
	free(old);
}

void *
strtab_put(struct strtab *t, const char *key, void *val)
{
	size_t i;

	if (!val)
		BUG("strtab_put: a NULL value");
	if ((t->n + 1) * 2 > t->cap)
		grow(t);
	i = slot(t, key);
	if (t->v[i].key)
		return t->v[i].val;
	t->v[i].key = key;
	t->v[i].val = val;
	t->n++;
	return NULL;
}

void *
strtab_del(struct strtab *t, const char *key)
{
	size_t m = t->cap - 1, i, j;
	void *val;

	if (!t->cap || !t->v[i = slot(t, key)].key)
		return NULL;
	val = t->v[i].val;
	t->v[i].key = NULL;
	t->v[i].val = NULL;
	t->n--;
	/* Move back each later entry of the cluster whose home slot does
	 * not lie cyclically in (i, j]. */
	for (j = (i + 1) & m; t->v[j].key; j = (j + 1) & m) {
		size_t h = hash(t->v[j].key) & m;

		if (i <= j ? (h > i && h <= j) : (h > i || h <= j))
			continue;
		t->v[i] = t->v[j];
		t->v[j].key = NULL;
		t->v[j].val = NULL;
		i = j;
	}
	return val;
}

void
strtab_free(struct strtab *t)
{
	free(t->v);
	memset(t, 0, sizeof *t);
}
