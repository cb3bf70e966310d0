/*
 * scaffold: nnc new, a starter project in another language (rust, go,
 * cpp, python) around a sample NNL model, from templates/new.
 */
#ifndef NNL_SCAFFOLD_H
#define NNL_SCAFFOLD_H

/* Make dir (which must not exist) as a project; errors printed;
 * returns 0, -1, or -2 for a project that is not one of the four. */
int scaffold_new(const char *dir, const char *project);

#endif
