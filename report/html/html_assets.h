// The HTML report's page, styles and scripts, compiled in from assets/ at
// build time (cmake/EmbedText.cmake writes html_assets.cc).
#ifndef HWT_REPORT_HTML_HTML_ASSETS_H_
#define HWT_REPORT_HTML_HTML_ASSETS_H_

#include <string_view>

namespace hwt::report::html {

std::string_view PageBody();    // assets/page.html: the markup of <body>
std::string_view PageStyle();   // assets/style.css
std::string_view PageScript();  // assets/js/*.js, in their order

}  // namespace hwt::report::html

#endif  // HWT_REPORT_HTML_HTML_ASSETS_H_
