/*
 * jsonput: the canonical printer of any JSON value (fixed number
 * format, shortest round-trip form), appended to a buffer.  Apart from
 * the graph reader and writer in json.c, so that the escapers can
 * print a JSON value without reaching the graph.
 */
#include "jsonput.h"
#include "escape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
json_put_string(struct buf *b, const char *s)
{
	buf_putc(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '"': buf_puts(b, "\\\""); break;
		case '\\': buf_puts(b, "\\\\"); break;
		case '\n': buf_puts(b, "\\n"); break;
		case '\r': buf_puts(b, "\\r"); break;
		case '\t': buf_puts(b, "\\t"); break;
		case '\b': buf_puts(b, "\\b"); break;
		case '\f': buf_puts(b, "\\f"); break;
		default:
			if (c < 0x20)
				buf_printf(b, "\\u%04x", c);
			else
				buf_putc(b, c);
		}
	}
	buf_putc(b, '"');
}

/*
 * Shortest text that reads back as the same double: integers without a
 * fraction, other values with the fewest significant digits that round
 * trip, exponents without '+' or leading zeros ("1e-5", "1.5e20").
 */
void
json_put_number(struct buf *b, double v)
{
	char s[40], *e;

	if (isnan(v) || isinf(v)) {
		buf_puts(b, "null");
		return;
	}
	if (v == 0) {
		buf_puts(b, signbit(v) ? "-0" : "0");
		return;
	}
	if (v == floor(v) && fabs(v) < 1e17) {
		buf_printf(b, "%.0f", v);
		return;
	}
	for (int p = 1; p <= 17; p++) {
		snprintf(s, sizeof s, "%.*g", p, v);
		if (strtod(s, NULL) == v)
			break;
	}
	e = strchr(s, 'e');
	if (e) {
		char mant[40], *d = e + 1;
		int neg = *d == '-';

		memcpy(mant, s, (size_t)(e - s));
		mant[e - s] = '\0';
		if (*d == '+' || *d == '-')
			d++;
		while (*d == '0' && d[1])
			d++;
		buf_printf(b, "%se%s%s", mant, neg ? "-" : "", d);
		return;
	}
	buf_puts(b, s);
}

void
json_put_value(struct buf *b, const cJSON *v)
{
	const cJSON *it;
	int first = 1;

	if (cJSON_IsObject(v)) {
		buf_putc(b, '{');
		cJSON_ArrayForEach(it, v) {
			if (!first)
				buf_puts(b, ", ");
			first = 0;
			json_put_string(b, it->string);
			buf_puts(b, ": ");
			json_put_value(b, it);
		}
		buf_putc(b, '}');
	} else if (cJSON_IsArray(v)) {
		buf_putc(b, '[');
		cJSON_ArrayForEach(it, v) {
			if (!first)
				buf_puts(b, ", ");
			first = 0;
			json_put_value(b, it);
		}
		buf_putc(b, ']');
	} else if (cJSON_IsString(v)) {
		json_put_string(b, v->valuestring);
	} else if (cJSON_IsNumber(v)) {
		json_put_number(b, v->valuedouble);
	} else if (cJSON_IsTrue(v)) {
		buf_puts(b, "true");
	} else if (cJSON_IsFalse(v)) {
		buf_puts(b, "false");
	} else {
		buf_puts(b, "null");
	}
}

/*
 * A JSON value as a JavaScript literal (escape.h): here, not in
 * escape.c, because its numbers are the JSON printer's, and the
 * escapers sit below it.
 */
void
escape_js_value(struct buf *b, const cJSON *v)
{
	const cJSON *it;
	int first = 1;

	if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
		buf_putc(b, cJSON_IsObject(v) ? '{' : '[');
		cJSON_ArrayForEach(it, v) {
			buf_puts(b, first ? "" : ", ");
			first = 0;
			if (cJSON_IsObject(v)) {
				escape_js_key(b, it->string);
				buf_puts(b, ": ");
			}
			escape_js_value(b, it);
		}
		buf_putc(b, cJSON_IsObject(v) ? '}' : ']');
	} else if (cJSON_IsString(v)) {
		escape_js_string(b, v->valuestring);
	} else {
		json_put_value(b, v);	/* a number, true, false, null */
	}
}
