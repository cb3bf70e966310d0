/*
 * jsonerr: locate the first syntax error in JSON text, or the first
 * string no name may be: '\u0000' (a C string ends there), an unpaired
 * surrogate, invalid UTF-8.
 */
#ifndef NNL_JSONERR_H
#define NNL_JSONERR_H

#include <stddef.h>

/*
 * 0 if text is one valid JSON value (with white space around it);
 * otherwise -1 with *off the byte offset of the culprit and *msg what
 * was expected there (static storage, valid until the next call).
 */
int json_syntax_error(const char *text, size_t len, size_t *off,
    const char **msg);

/*
 * 0 if text is valid JSON whose strings are all UTF-8 without NUL;
 * otherwise -1 after reporting "name:line:col: error: ...".
 */
int json_check(const char *text, size_t len, const char *name);

#endif
