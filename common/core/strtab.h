/*
 * strtab: a hash table from strings to pointers, so that looking a name
 * up (a node id, a manifest tensor, an archive member, the readers of
 * an operand) costs the same in a graph of ten nodes or of a million.
 * Keys are not copied: each must outlive its entry.  Values are never
 * NULL (NULL means "absent").
 */
#ifndef NNL_STRTAB_H
#define NNL_STRTAB_H

#include <stddef.h>

struct strtab_ent {
	const char *key;	/* NULL: empty slot */
	void *val;
};

struct strtab {
	struct strtab_ent *v;
	size_t cap, n;		/* cap: 0 or a power of two */
};

/* The value stored under key, or NULL. */
void *strtab_get(const struct strtab *t, const char *key);
/*
 * Store val under key unless key is there already.  Returns NULL when
 * it stored val, else the value already stored (left in place).
 */
void *strtab_put(struct strtab *t, const char *key, void *val);
/* Remove key; returns its value, or NULL when it was not there. */
void *strtab_del(struct strtab *t, const char *key);
void strtab_free(struct strtab *t);

#endif
