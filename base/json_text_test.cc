// JsonText and JsonQuoted: the layouts byte for byte, and text that is not
// valid UTF-8 (a hostile symbol name) written with U+FFFD instead of
// throwing, as nlohmann's default dump() would.
#include "base/json_text.h"

#include "gtest/gtest.h"

namespace hwt {
namespace {

TEST(JsonTextTest, IndentedEndsWithANewlineAndKeepsOrder) {
  nlohmann::ordered_json doc = {{"zeta", 1}, {"alpha", {1, 2}}};
  EXPECT_EQ(JsonText(doc, JsonLayout::kIndented),
            "{\n  \"zeta\": 1,\n  \"alpha\": [\n    1,\n    2\n  ]\n}\n");
}

TEST(JsonTextTest, OneLineIsCompactWithoutNewline) {
  nlohmann::json doc = {{"a", "b"}};
  EXPECT_EQ(JsonText(doc, JsonLayout::kOneLine), "{\"a\":\"b\"}");
}

TEST(JsonTextTest, NonAsciiStaysUtf8) {
  nlohmann::json doc = "caf\xc3\xa9";
  EXPECT_EQ(JsonText(doc, JsonLayout::kOneLine), "\"caf\xc3\xa9\"");
}

TEST(JsonTextTest, InvalidUtf8BecomesReplacementCharacter) {
  // nlohmann's dump() with its default handler throws type_error 316 here.
  nlohmann::json doc = {{"function", std::string("bad\xff\xfename")}};
  EXPECT_THROW((void)doc.dump(2), nlohmann::json::type_error);
  EXPECT_EQ(JsonText(doc, JsonLayout::kIndented),
            "{\n  \"function\": \"bad\xef\xbf\xbd\xef\xbf\xbdname\"\n}\n");
}

TEST(JsonTextTest, QuotedEscapesLikeADocument) {
  EXPECT_EQ(JsonQuoted("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
  EXPECT_EQ(JsonQuoted(std::string("x\x80", 2)), "\"x\xef\xbf\xbd\"");
  EXPECT_EQ(JsonQuoted(""), "\"\"");
}

}  // namespace
}  // namespace hwt
