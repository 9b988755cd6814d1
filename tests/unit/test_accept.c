// SPDX-License-Identifier: MIT
/* Media types from Accept: weights, specificity and hostile values. */
#include "harness.h"
#include "http/accept.h"

#define JSON "application/json"
#define HTML "text/html"

static int weight(const char *accept, const char *type)
{
	return http_accept_weight(accept, accept ? strlen(accept) : 0, type);
}

static bool prefers_json(const char *accept)
{
	return http_accept_prefers(accept, accept ? strlen(accept) : 0, JSON,
				   HTML);
}

TEST(prefers_json_or_not)
{
	static const struct {
		const char *accept;
		bool json;
	} cases[] = {
		/* No preference: HTML, the default, stays. */
		{ NULL, false },
		{ "", false },
		{ " , ,", false },
		{ "*/*", false }, /* curl */
		{ "text/html,application/xhtml+xml,application/xml;q=0.9,"
		  "image/avif,image/webp,*/*;q=0.8",
		  false }, /* a browser */
		{ "application/json, text/html", false }, /* a tie */
		{ "application/*, text/*", false },
		{ "image/png", false },
		/* Asked for. */
		{ "application/json", true },
		{ "application/json, */*;q=0.5", true },
		{ "text/html;q=0.9, application/json", true },
		{ "application/json;q=0.9, text/html;q=0.8", true },
		{ "application/*", true },
		{ "application/*;q=0.5, text/*;q=0.4", true },
		{ "application/json, text/html;q=0", true },
		{ "application/json;charset=utf-8", true },
		{ "application/json;q=0.001", true },
		{ "application/json;q=1.000", true },
		{ "application/json;q=0.500, text/html;q=0.499", true },
		/* The most specific range decides, whatever the others say. */
		{ "text/*;q=0.1, */*;q=0.5, application/json;q=0.2", true },
		{ "application/json;q=0.2, */*;q=0.5", false },
		{ "application/*;q=0.9, application/json;q=0.1, text/html;q=0.2",
		  false },
		/* The highest of equally specific ranges. */
		{ "application/json;q=0.1, application/json;q=0.9, "
		  "text/html;q=0.5",
		  true },
		/* q=0 refuses. */
		{ "application/json;q=0", false },
		{ "application/json;q=0.000", false },
		{ "application/json;q=0, */*", false },
		{ "text/html;q=0, application/json;q=0", false },
		/* Case and spaces. */
		{ "APPLICATION/JSON", true },
		{ "Application/Json ; Q=1", true },
		{ "  application/json  ", true },
		{ "application/json\t;\tq=0.5", true },
		{ "text/html;Q=0.5, application/JSON;q=0.6", true },
		{ "application/json;;q=1", true },
		{ "application/json;", true },
		{ "application/json;level=\"a;b\";q=0.7, text/html;q=0.6",
		  true },
		/* Junk counts as absent. */
		{ "application/json;q=abc", false },
		{ "application/json;q=1.5", false },
		{ "application/json;q=1.001", false },
		{ "application/json;q=0.0001", false },
		{ "application/json;q=", false },
		{ "application/json;q", false },
		{ "application/json;q=-1", false },
		{ "application/json;q=\"0.5\"", false },
		{ "application/json;q=0.5x", false },
		{ "application/json x", false },
		{ "application / json", false },
		{ "application", false },
		{ "/json", false },
		{ "application/", false },
		{ "*/json", false },
		{ "application/json/x", false },
		{ "\x01"
		  "application/json",
		  false },
		{ "application/json\x7f", false },
		{ "application/json;level=\"open", false },
		{ "application/json;=1", false },
		{ ",,,;;;===", false },
		{ "application/json;q=0.9, junk, text/html;q=abc", true },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		if (prefers_json(cases[i].accept) != cases[i].json) {
			fprintf(stderr, "  case %zu: \"%s\"\n", i,
				cases[i].accept ? cases[i].accept : "(null)");
			CHECK(prefers_json(cases[i].accept) == cases[i].json);
		}
	}
}

TEST(weights)
{
	CHECK_EQ_INT(weight(NULL, JSON), 0);
	CHECK_EQ_INT(weight("application/json", JSON), 1000);
	CHECK_EQ_INT(weight("application/json;q=0.25", JSON), 250);
	CHECK_EQ_INT(weight("application/json;q=0.5;q=0.1", JSON), 500);
	CHECK_EQ_INT(weight("*/*;q=0.8", JSON), 800);
	CHECK_EQ_INT(weight("application/*;q=0.3, */*;q=0.8", JSON), 300);
	CHECK_EQ_INT(weight("text/*;q=0.3, */*;q=0.8", JSON), 800);
	CHECK_EQ_INT(weight("text/html", JSON), 0);
	CHECK_EQ_INT(weight("text/html;q=0.2", HTML), 200);
	CHECK_EQ_INT(weight("text/htmlx, text/htm", HTML), 0);
	CHECK_EQ_INT(weight("application/jsonx", JSON), 0);
	CHECK_EQ_INT(weight("applicatio/*", JSON), 0);
	CHECK_EQ_INT(weight("0;q=1", JSON), 0);
}

/* Every prefix of hostile values parses without reading past its end
 * (ASan's job when built with it). */
TEST(every_prefix_of_hostile_values)
{
	static const char *const values[] = {
		"application/json;level=\"a\\\"b\";q=0.5",
		"application/json;q=0.123, text/html;q=1.000, */*;q=0",
		"a/b;c=\"\\",
		"*/*;q=1.",
	};

	for (size_t v = 0; v < ARRAY_SIZE(values); v++) {
		size_t n = strlen(values[v]);

		for (size_t len = 0; len <= n; len++) {
			char *copy = malloc(len ? len : 1);

			memcpy(copy, values[v], len);
			CHECK(http_accept_weight(copy, len, JSON) <= 1000);
			free(copy);
		}
	}
}
