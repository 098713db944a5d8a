// The hashes a Content-Security-Policy allows inline scripts and styles by:
// SHA-256 (FIPS 180-4) and base64 (RFC 4648), so that the HTML report can
// name exactly the one script and the one style it carries ('sha256-...')
// instead of allowing every inline script.
#ifndef HWT_REPORT_HTML_CSP_HASH_H_
#define HWT_REPORT_HTML_CSP_HASH_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace hwt::report::html {

std::array<uint8_t, 32> Sha256(std::string_view data);
std::string Base64(std::string_view bytes);
// "'sha256-BASE64'": a CSP source expression for an inline element whose
// text is `text`.
std::string CspHashSource(std::string_view text);

}  // namespace hwt::report::html

#endif  // HWT_REPORT_HTML_CSP_HASH_H_
