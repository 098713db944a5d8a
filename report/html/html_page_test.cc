// The page around the model: the model survives embedding byte for byte
// whatever its strings hold, markup in names cannot end the model element,
// the policy names exactly the script and style the page carries, and the
// compiled-in assets hold nothing that would end their own elements.
#include "report/html/html_page.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "report/html/csp_hash.h"
#include "report/html/html_assets.h"

namespace hwt::report::html {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

constexpr char kHostile[] = "</script><img src=x onerror=alert(1)>";

TEST(HtmlPageTest, HostileNamesStayInsideTheModel) {
  const nlohmann::json model = {
      {"title", kHostile},
      {"names", {kHostile, "<!-- -->", "a & b", "\\u003c", "line\u2028sep"}}};
  const std::string json = model.dump();
  const std::string page = RenderPage(kHostile, json);
  // Only the two elements the page writes end a script; no tag of the name
  // is in the page as markup.
  EXPECT_EQ(Count(page, "</script"), 2u);
  EXPECT_THAT(page, Not(HasSubstr("<img")));
  EXPECT_THAT(page, Not(HasSubstr("<!-- -->")));
  EXPECT_THAT(page, HasSubstr("<title>&lt;/script&gt;&lt;img src=x "
                              "onerror=alert(1)&gt;</title>"));
  EXPECT_EQ(ExtractModel(page), json);
  EXPECT_EQ(nlohmann::json::parse(ExtractModel(page)), model);
}

TEST(HtmlPageTest, EscapesAreJsonEscapes) {
  // The escaped text is the same JSON document.
  const std::string json = R"({"a":"<b>&</b>","c":"x)"
                           "\xe2\x80\xa8"
                           R"(y"})";
  const std::string escaped = EscapeJsonForScript(json);
  EXPECT_EQ(escaped,
            R"({"a":"\u003cb\u003e\u0026\u003c/b\u003e","c":"x\u2028y"})");
  EXPECT_EQ(nlohmann::json::parse(escaped), nlohmann::json::parse(json));
}

TEST(HtmlPageTest, PolicyAllowsExactlyThePagesScriptAndStyle) {
  const std::string page = RenderPage("t", "{}");
  const std::string policy = ContentSecurityPolicy();
  EXPECT_THAT(policy, HasSubstr("default-src 'none'"));
  EXPECT_THAT(policy, HasSubstr("script-src " + CspHashSource(PageScript())));
  EXPECT_THAT(policy, HasSubstr("style-src " + CspHashSource(PageStyle())));
  EXPECT_THAT(policy, Not(HasSubstr("unsafe")));
  EXPECT_THAT(page,
              HasSubstr("<script>" + std::string(PageScript()) + "</script>"));
  EXPECT_THAT(page,
              HasSubstr("<style>" + std::string(PageStyle()) + "</style>"));
  EXPECT_THAT(page, HasSubstr("http-equiv=\"Content-Security-Policy\""));
}

TEST(HtmlPageTest, AssetsDoNotEndTheirOwnElements) {
  const std::string script(PageScript()), style(PageStyle());
  EXPECT_THAT(script, Not(HasSubstr("</script")));
  EXPECT_THAT(script, Not(HasSubstr("<!--")));
  EXPECT_THAT(style, Not(HasSubstr("</style")));
  EXPECT_FALSE(script.empty());
  EXPECT_FALSE(style.empty());
  // Nothing that could reach the network or the file system.
  for (const std::string& asset : {script, style, std::string(PageBody())}) {
    EXPECT_THAT(asset, Not(HasSubstr("http://")));
    EXPECT_THAT(asset, Not(HasSubstr("https://")));
    EXPECT_THAT(asset, Not(HasSubstr("url(")));
    EXPECT_THAT(asset, Not(HasSubstr("@import")));
  }
}

}  // namespace
}  // namespace hwt::report::html
