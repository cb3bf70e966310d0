/*
 * modelpath: the one rule for a file a model names (an NNL model's
 * weights, ONNX external data): it lies in the model's folder, unless
 * the user gave --allow-outside.  Paths the user gives on the command
 * line are not model-named and never come here.
 */
#ifndef NNL_MODELPATH_H
#define NNL_MODELPATH_H

/* The option, spelt the same in every program that reads a model:
 * its getopt_long name and as written. */
#define MODELPATH_NAME "allow-outside"
#define MODELPATH_FLAG "--" MODELPATH_NAME
/* Its getopt_long value (beside CHECKED_OPTION's). */
enum { MODELPATH_OPTION = 0x101 };

/*
 * The path to open for name, which the model in folder dir names.
 * Without allow, name must be relative and, after every symbolic link
 * and "..", lead to dir or below it: the resolved path is returned.
 * With allow, dir/name (or name if absolute), as it is.  On NULL, *why
 * completes `path "NAME" ...': "is absolute; ...", "leads outside the
 * model's folder; ...", or the system's reason, with errno kept
 * (errno is 0 for the policy's own refusals).
 */
char *modelpath(const char *dir, const char *name, int allow,
    const char **why);

#endif
