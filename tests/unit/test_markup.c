/* test_markup: names in DOT strings, DOT HTML labels and XML, against
 * hand-derived text. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "markup.h"

/* f(s, max) into a static string (each call overwrites the last). */
static const char *
mk(void (*f)(struct buf *, const char *, size_t), const char *s, size_t max)
{
	static char *out;
	struct buf b = { 0 };

	f(&b, s, max);
	free(out);
	out = b.s;
	return out;
}

TEST(dot_string_quotes_and_backslashes)
{
	CHECK_STR(mk(markup_dot_string, "plain_name.1", 0), "plain_name.1");
	CHECK_STR(mk(markup_dot_string, "", 0), "");
	CHECK_STR(mk(markup_dot_string, "a\"b", 0), "a\\\"b");
	/* \N would be the node's id, \l a line end: the backslash is
	 * doubled, so Graphviz shows one */
	CHECK_STR(mk(markup_dot_string, "x\\N\\l", 0), "x\\\\N\\\\l");
	/* a string cannot end early and start a statement */
	CHECK_STR(mk(markup_dot_string, "\"]; a -> b [", 0),
	    "\\\"]; a -> b [");
	/* markup characters are plain text in a quoted string, but for
	 * '&': Graphviz reads "&#1;" in a tooltip as U+0001 */
	CHECK_STR(mk(markup_dot_string, "<&>", 0), "<&amp;>");
	CHECK_STR(mk(markup_dot_string, "&#1;&lt;", 0), "&amp;#1;&amp;lt;");
	/* UTF-8 kept as it is */
	CHECK_STR(mk(markup_dot_string, "caf\xc3\xa9", 0), "caf\xc3\xa9");
}

TEST(dot_string_shows_controls_visibly)
{
	CHECK_STR(mk(markup_dot_string, "a\nb\r\tc", 0),
	    "a\\\\nb\\\\r\\\\tc");
	CHECK_STR(mk(markup_dot_string, "\x01\x7f", 0), "\\\\x01\\\\x7F");
	CHECK_STR(mk(markup_dot_string, "bad\xff", 0), "bad\\\\xFF");
	/* U+202E RIGHT-TO-LEFT OVERRIDE */
	CHECK_STR(mk(markup_dot_string, "a\xe2\x80\xae", 0),
	    "a\\\\u{202E}");
}

TEST(dot_html_entities_and_doubled_backslash)
{
	CHECK_STR(mk(markup_dot_html, "in<b>\"&amp;'", 0),
	    "in&lt;b&gt;&quot;&amp;amp;'");
	CHECK_STR(mk(markup_dot_html, "</font><br/>", 0),
	    "&lt;/font&gt;&lt;br/&gt;");
	CHECK_STR(mk(markup_dot_html, "w\\N", 0), "w\\\\N");
	CHECK_STR(mk(markup_dot_html, "line\nbreak", 0), "line\\\\nbreak");
	/* non-ASCII as a character reference */
	CHECK_STR(mk(markup_dot_html, "caf\xc3\xa9 \xe2\x82\xac", 0),
	    "caf&#233; &#8364;");
	CHECK_STR(mk(markup_dot_html, "\xc2\x85", 0), "\\\\u{85}");
	CHECK_STR(mk(markup_dot_html, "\xc3", 0), "\\\\xC3");
}

TEST(xml_entities_single_backslash)
{
	CHECK_STR(mk(markup_xml, "<script>alert('x')</script>", 0),
	    "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
	CHECK_STR(mk(markup_xml, "a\"b&c", 0), "a&quot;b&amp;c");
	CHECK_STR(mk(markup_xml, "x\\y\n", 0), "x\\y\\n");
	CHECK_STR(mk(markup_xml, "\xe2\x81\xa6\xc3\xa9", 0),
	    "\\u{2066}&#233;");
	/* ]]> cannot end a CDATA section that is not there, nor can a
	 * name open a comment */
	CHECK_STR(mk(markup_xml, "]]><!--", 0), "]]&gt;&lt;!--");
}

TEST(long_names_cut_at_a_character)
{
	CHECK_STR(mk(markup_dot_html, "abcdef", 3), "abc...");
	CHECK_STR(mk(markup_dot_html, "abc", 3), "abc");
	/* the cut falls after the whole of a character */
	CHECK_STR(mk(markup_xml, "ab\xc3\xa9z", 3), "ab&#233;...");
	CHECK_STR(mk(markup_dot_string, "a\"\"\"", 2), "a\\\"...");
}

int
main(void)
{
	RUN(dot_string_quotes_and_backslashes);
	RUN(dot_string_shows_controls_visibly);
	RUN(dot_html_entities_and_doubled_backslash);
	RUN(xml_entities_single_backslash);
	RUN(long_names_cut_at_a_character);
	return DONE();
}
