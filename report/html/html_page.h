// The page around the HTML report's model: one self-contained HTML file
// with the styles, the scripts and the model (a JSON document) inline, and
// a Content-Security-Policy that allows that one script and that one style
// (by their SHA-256) and nothing else: no request of any kind, to the
// network or to the file system, can come from the page.
//
// The model carries names from the input (functions, paths, commands),
// which may hold markup such as "</script><img src=x onerror=...>": it is
// embedded as JSON with every '<', '>' and '&' escaped (\u003c ...), so it
// cannot end its element, and the scripts show names only as text.
#ifndef HWT_REPORT_HTML_HTML_PAGE_H_
#define HWT_REPORT_HTML_HTML_PAGE_H_

#include <string>
#include <string_view>

namespace hwt::report::html {

// The page's policy: default-src 'none' with the hashes of the inline script
// and style.
std::string ContentSecurityPolicy();

// JSON text made safe inside <script type="application/json">: '<', '>',
// '&', U+2028 and U+2029 as \u escapes (they occur only inside strings).
std::string EscapeJsonForScript(std::string_view json);
// Text made safe as HTML element content or attribute value.
std::string EscapeHtml(std::string_view text);

// The whole page: `title` in <title>, `model_json` (a JSON document) in the
// model element the scripts read.
std::string RenderPage(std::string_view title, std::string_view model_json);

// The model JSON embedded in a page RenderPage wrote (unescaped: the JSON
// text as it was given), or "" when there is none. For tests and tools that
// read a report back.
std::string ExtractModel(std::string_view page);

}  // namespace hwt::report::html

#endif  // HWT_REPORT_HTML_HTML_PAGE_H_
