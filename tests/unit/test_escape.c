/* test_escape: each context's escaping, against hand-derived text. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "escape.h"

/* f(s) into a static string (each call overwrites the last). */
static const char *
esc(void (*f)(struct buf *, const char *), const char *s)
{
	static char *out;
	struct buf b = { 0 };

	f(&b, s);
	free(out);
	out = b.s;
	return out ? out : "";
}

static int
validcident(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
	    *s == '_'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

TEST(utf8_sequences_well_formed_only)
{
	unsigned long cp = 0;

	CHECK(escape_utf8len("A", 1, &cp) == 1 && cp == 'A');
	CHECK(escape_utf8len("\xc3\xa9", 2, &cp) == 2 && cp == 0xe9);
	CHECK(escape_utf8len("\xe2\x80\xa8", 3, &cp) == 3 && cp == 0x2028);
	CHECK(escape_utf8len("\xf0\x9f\x98\x80", 4, &cp) == 4 &&
	    cp == 0x1f600);
	CHECK(escape_utf8len("\xc0\x80", 2, &cp) == 0);	/* overlong NUL */
	CHECK(escape_utf8len("\xe0\x80\xaf", 3, &cp) == 0);	/* overlong */
	CHECK(escape_utf8len("\xed\xa0\x80", 3, &cp) == 0);	/* surrogate */
	CHECK(escape_utf8len("\xf4\x90\x80\x80", 4, &cp) == 0); /* > 10FFFF */
	CHECK(escape_utf8len("\xe2\x80", 2, &cp) == 0);	/* cut short */
	CHECK(escape_utf8len("\xff", 1, &cp) == 0);
	CHECK(escape_utf8len("\x80", 1, &cp) == 0);	/* lone continuation */
}

TEST(c_comment_cannot_be_closed_or_nested)
{
	CHECK_STR(esc(escape_c_comment, "a*/b"), "a*\\/b");
	CHECK_STR(esc(escape_c_comment, "/* x */"), "/\\* x *\\/");
	CHECK_STR(esc(escape_c_comment, "x\n#include <y>"),
	    "x\\n#include <y>");
	CHECK_STR(esc(escape_c_comment, "a\\"), "a\\\\");
	CHECK_STR(esc(escape_c_comment, "\r\t\x01\x7f"),
	    "\\x0D\\t\\x01\\x7F");
	/* no trigraph survives: ?, ?, / would be a backslash */
	CHECK_STR(esc(escape_c_comment, "?" "?/"), "?\\?/");
	CHECK_STR(esc(escape_c_comment, "?" "?" "?/"), "?\\?\\?/");
	CHECK_STR(esc(escape_c_comment, "caf\xc3\xa9 \xe2\x80\xa8\xff"),
	    "caf\\u{E9} \\u{2028}\\xFF");
	CHECK_STR(esc(escape_c_comment, "</script>"), "</script>");
}

TEST(comments_cut_long_names)
{
	char *s = malloc(1 << 20 | 1);
	const char *e;

	memset(s, 'a', 1 << 20);
	s[1 << 20] = '\0';
	e = esc(escape_c_comment, s);
	CHECK(strlen(e) == ESCAPE_COMMENT_MAX + 3);
	CHECK(strcmp(e + ESCAPE_COMMENT_MAX, "...") == 0);
	free(s);
}

TEST(js_comment_also_keeps_out_of_html)
{
	CHECK_STR(esc(escape_js_comment, "x</script><!--"),
	    "x<\\/script><\\!--");
	CHECK_STR(esc(escape_js_comment, "a\xe2\x80\xa8 b\xe2\x80\xa9"),
	    "a\\u{2028} b\\u{2029}");
	CHECK_STR(esc(escape_js_comment, "\nalert(1)"), "\\nalert(1)");
}

TEST(c_string_octal_escapes_and_no_trigraph)
{
	CHECK_STR(esc(escape_c_string, "plain"), "\"plain\"");
	CHECK_STR(esc(escape_c_string, "a\"b\\c?"), "\"a\\\"b\\\\c\\?\"");
	/* octal, always three digits, so a following digit stays apart */
	CHECK_STR(esc(escape_c_string, "\n7"), "\"\\0127\"");
	CHECK_STR(esc(escape_c_string, "\xff\x01"), "\"\\377\\001\"");
	CHECK_STR(esc(escape_c_string, "?" "?="), "\"\\?\\?=\"");
}

TEST(c_identifiers_kept_when_plain)
{
	const char *keep[] = { "mnist", "resnet_head", "Model2", "a_b_c",
	    "x", NULL };

	for (int i = 0; keep[i]; i++) {
		char *s = escape_c_ident(keep[i]);

		CHECK_STR(s, keep[i]);
		free(s);
	}
}

/* Expectations worked out by hand from the rule in escape.h. */
TEST(c_identifiers_readable_otherwise)
{
	static const struct { const char *in, *out; } t[] = {
		{ "efficientnet_b0.op13", "efficientnet_b0_op13" },
		{ "my-net", "my_net" },
		{ "my__net", "my_net" },
		{ "a.-_b", "a_b" },
		{ "1x", "m_1x" },
		{ "3d-unet", "m_3d_unet" },
		{ "int", "int_m" },
		{ "main", "main_m" },
		{ "while.", "while_m" },
		{ "_x", "x" },
		{ "x_", "x" },
		{ "nnl_k", "m_nnl_k" },
		{ "NNL", "m_NNL" },
		{ "Nnlx", "m_Nnlx" },
		{ "nn", "nn" },
		{ "", "m" },
		{ "*/\n#", "m" },
		{ "\xc3\xa9t\xc3\xa9", "t" },
		{ "a*/b\n#define x", "a_b_define_x" },
	};

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		char *s = escape_c_ident(t[i].in);

		CHECK_STR(s, t[i].out);
		CHECK(validcident(s));
		free(s);
	}
}

TEST(c_identifiers_distinct_where_letters_differ)
{
	/* the rule keeps letters, digits and word breaks: names that
	 * differ in those stay apart, case included */
	const char *names[] = { "my-net", "mynet", "my-ne-t", "MY_NET",
	    "My_net", "1", "1x", "int", "int_n", "", "x", "nnl", "nnl_x",
	    NULL };
	char *ids[32];
	int n = 0;

	for (; names[n]; n++) {
		ids[n] = escape_c_ident(names[n]);
		CHECK(validcident(ids[n]));
	}
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (strcmp(ids[i], ids[j]) == 0) {
				fprintf(stderr, "\"%s\" and \"%s\" both give %s\n",
				    names[i], names[j], ids[i]);
				CHECK(0);
			}
	for (int i = 0; i < n; i++)
		free(ids[i]);
}

TEST(c_identifiers_of_long_names_bounded_and_distinct)
{
	char a[300], b[300];
	char *x, *y, *z;

	memset(a, 'a', sizeof a - 1);
	a[sizeof a - 1] = '\0';
	memcpy(b, a, sizeof b);
	b[sizeof b - 2] = 'b';	/* differs in its last byte only */
	x = escape_c_ident(a);
	y = escape_c_ident(b);
	a[ESCAPE_IDENT_MAX] = '\0';	/* 64 bytes: kept */
	z = escape_c_ident(a);
	CHECK(strlen(x) <= ESCAPE_IDENT_MAX && strlen(y) <= ESCAPE_IDENT_MAX);
	CHECK(strcmp(x, y) != 0);
	CHECK(strncmp(x, "aaaa", 4) == 0);
	CHECK(strlen(x) == ESCAPE_IDENT_MAX && x[46] == '_' && x[47] == 'h');
	CHECK(validcident(x) && validcident(y));
	CHECK_STR(z, a);
	free(x);
	free(y);
	free(z);
}

TEST(js_string_ascii_and_html_safe)
{
	CHECK_STR(esc(escape_js_string, "x"), "\"x\"");
	CHECK_STR(esc(escape_js_string, "a\"b\\c'`${d}"),
	    "\"a\\\"b\\\\c'`${d}\"");
	CHECK_STR(esc(escape_js_string, "\n\r\t\x01\x7f"),
	    "\"\\n\\r\\t\\u0001\\u007F\"");
	CHECK_STR(esc(escape_js_string, "</script><!--"),
	    "\"\\u003C/script\\u003E\\u003C!--\"");
	CHECK_STR(esc(escape_js_string, "\xe2\x80\xa8\xe2\x80\xa9"),
	    "\"\\u2028\\u2029\"");
	CHECK_STR(esc(escape_js_string, "\xc3\xa9\xf0\x9f\x98\x80"),
	    "\"\\u00E9\\uD83D\\uDE00\"");
	CHECK_STR(esc(escape_js_string, "a\xff" "b\xed\xa0\x80"),
	    "\"a\\uFFFDb\\uFFFD\\uFFFD\\uFFFD\"");
}

TEST(js_keys_never_set_a_prototype)
{
	CHECK_STR(esc(escape_js_key, "x_1$"), "x_1$");
	CHECK_STR(esc(escape_js_key, "constructor"), "constructor");
	CHECK_STR(esc(escape_js_key, "__proto__"), "[\"__proto__\"]");
	CHECK_STR(esc(escape_js_key, "a-b"), "\"a-b\"");
	CHECK_STR(esc(escape_js_key, "1"), "\"1\"");
	CHECK_STR(esc(escape_js_key, ""), "\"\"");
}

TEST(js_values_escape_keys_and_strings)
{
	cJSON *v = cJSON_Parse("{\"a\": [1, \"</x>\", true, null], "
	    "\"__proto__\": {\"b-c\": 0.5}}");
	struct buf b = { 0 };

	escape_js_value(&b, v);
	CHECK_STR(b.s, "{a: [1, \"\\u003C/x\\u003E\", true, null], "
	    "[\"__proto__\"]: {\"b-c\": 0.5}}");
	free(b.s);
	cJSON_Delete(v);
}

/* escape_tty_text / escape_tty_message of s into a static string. */
static const char *
text(const char *s, int message)
{
	static char *out;
	struct buf b = { 0 };

	if (message)
		escape_tty_message(&b, s);
	else
		escape_tty_text(&b, s, strlen(s), (size_t)-1);
	free(out);
	out = b.s;
	return out ? out : "";
}

TEST(tty_keeps_printable_utf8_names)
{
	CHECK_STR(esc(escape_tty, "ReLU_1"), "ReLU_1");
	/* "конв" and "层/1": UTF-8 letters stay as they are */
	CHECK_STR(esc(escape_tty, "\xd0\xba\xd0\xbe\xd0\xbd\xd0\xb2"),
	    "\xd0\xba\xd0\xbe\xd0\xbd\xd0\xb2");
	CHECK_STR(esc(escape_tty, "\xe5\xb1\x82/1"), "\xe5\xb1\x82/1");
	CHECK_STR(esc(escape_tty, "a \"b\" 'c' $d"), "a \"b\" 'c' $d");
	CHECK_STR(esc(escape_tty, "\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");
}

TEST(tty_escapes_controls_and_invalid_utf8)
{
	/* OSC title, clear screen, CR, backspace, BEL, DEL */
	CHECK_STR(esc(escape_tty, "\x1b]0;T\x07"), "\\x1B]0;T\\x07");
	CHECK_STR(esc(escape_tty, "\x1b[2J"), "\\x1B[2J");
	CHECK_STR(esc(escape_tty, "a\rb\bc\x7f"), "a\\rb\\x08c\\x7F");
	CHECK_STR(esc(escape_tty, "x\nnnl-parse: ok"), "x\\nnnl-parse: ok");
	CHECK_STR(esc(escape_tty, "t\tb\\"), "t\\tb\\\\");
	/* C1 as a byte (invalid UTF-8) and as a character (U+009B CSI) */
	CHECK_STR(esc(escape_tty, "\x9b" "1m"), "\\x9B1m");
	CHECK_STR(esc(escape_tty, "\xc2\x9b" "1m"), "\\u{9B}1m");
	/* overlong, surrogate, cut short: byte by byte */
	CHECK_STR(esc(escape_tty, "\xc0\x8a"), "\\xC0\\x8A");
	CHECK_STR(esc(escape_tty, "\xed\xa0\x80"), "\\xED\\xA0\\x80");
	CHECK_STR(esc(escape_tty, "a\xe2\x80"), "a\\xE2\\x80");
	/* reordering and line-breaking characters */
	CHECK_STR(esc(escape_tty, "a\xe2\x80\xae" "b"), "a\\u{202E}b");
	CHECK_STR(esc(escape_tty, "\xe2\x81\xa6x\xe2\x81\xa9"),
	    "\\u{2066}x\\u{2069}");
	CHECK_STR(esc(escape_tty, "a\xe2\x80\xa8" "b"), "a\\u{2028}b");
	CHECK_STR(esc(escape_tty, "\xef\xbb\xbfx"), "\\u{FEFF}x");
	CHECK_STR(esc(escape_tty, "\xd8\x9c"), "\\u{61C}");
}

TEST(tty_cuts_long_names_saying_how_long)
{
	char big[1001], want[300];

	memset(big, 'a', 1000);
	big[1000] = '\0';
	memset(want, 'a', 200);
	strcpy(want + 200, "...[1000 bytes]");
	CHECK_STR(esc(escape_tty, big), want);
	big[200] = '\0';	/* exactly the limit: whole */
	CHECK_STR(esc(escape_tty, big), big);
	/* a character is never split: 199 bytes and a 2-byte one */
	memset(big, 'b', 199);
	strcpy(big + 199, "\xd0\xba" "cd");
	memset(want, 'b', 199);
	strcpy(want + 199, "...[203 bytes]");
	CHECK_STR(esc(escape_tty, big), want);
}

TEST(tty_name_ring_keeps_recent_strings)
{
	const char *a = escape_tty_name("a\x1b"), *b = escape_tty_name("b");

	CHECK_STR(a, "a\\x1B");
	CHECK_STR(b, "b");
	for (int i = 0; i < ESCAPE_TTY_RING - 2; i++)
		escape_tty_name("filler");
	CHECK_STR(a, "a\\x1B");	/* still valid after RING - 1 calls */
	CHECK_STR(escape_tty_name(NULL), "(null)");
}

TEST(tty_text_keeps_backslash_and_tab_never_a_line)
{
	CHECK_STR(text("\tx = \"a\\u001b\"", 0), "\tx = \"a\\u001b\"");
	CHECK_STR(text("a\nb\r\x1b", 0), "a\\nb\\r\\x1B");
	CHECK_STR(text("a\n  b", 0), "a\\n  b");
	/* a message goes on only in lines indented by two spaces */
	CHECK_STR(text("x:\n  node \"a\"\n  node \"b\"", 1),
	    "x:\n  node \"a\"\n  node \"b\"");
	CHECK_STR(text("x\nnnl-parse: ok", 1), "x\\nnnl-parse: ok");
	CHECK_STR(text("x\n nnl-parse: ok", 1), "x\\n nnl-parse: ok");
	CHECK_STR(text("x\n ", 1), "x\\n ");
}

TEST(tty_message_bounded)
{
	size_t n = ESCAPE_TTY_LINE_MAX + 100;
	char *big = malloc(n + 1);
	const char *r;

	memset(big, 'm', n);
	big[n] = '\0';
	r = text(big, 1);
	CHECK(strlen(r) < ESCAPE_TTY_LINE_MAX + 32);
	CHECK(strstr(r, "...[8292 bytes]") != NULL);
	free(big);
}

int
main(void)
{
	RUN(utf8_sequences_well_formed_only);
	RUN(c_comment_cannot_be_closed_or_nested);
	RUN(comments_cut_long_names);
	RUN(js_comment_also_keeps_out_of_html);
	RUN(c_string_octal_escapes_and_no_trigraph);
	RUN(c_identifiers_kept_when_plain);
	RUN(c_identifiers_readable_otherwise);
	RUN(c_identifiers_distinct_where_letters_differ);
	RUN(c_identifiers_of_long_names_bounded_and_distinct);
	RUN(js_string_ascii_and_html_safe);
	RUN(js_keys_never_set_a_prototype);
	RUN(js_values_escape_keys_and_strings);
	RUN(tty_keeps_printable_utf8_names);
	RUN(tty_escapes_controls_and_invalid_utf8);
	RUN(tty_cuts_long_names_saying_how_long);
	RUN(tty_name_ring_keeps_recent_strings);
	RUN(tty_text_keeps_backslash_and_tab_never_a_line);
	RUN(tty_message_bounded);
	return DONE();
}
